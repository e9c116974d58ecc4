#include "src/render/helm/archive.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <optional>

#include "src/render/go/fmt.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;

namespace {

constexpr size_t k_block = 512;
constexpr int64_t k_max_chart_size = 100 * 1024 * 1024;  // Helm's MaxDecompressedChartSize
constexpr int64_t k_max_file_size = 5 * 1024 * 1024;     // Helm's MaxDecompressedFileSize

[[noreturn]] void fail(const std::string& message) { throw Error(ErrorCode::Input, message); }

const std::string k_unexpected_eof = "unexpected EOF";
const std::string k_invalid_header = "archive/tar: invalid tar header";

/// Decompressed bytes and, when the data after the last complete gzip member is not another
/// member, the error Go's gzip.Reader would return on reading past the end (it surfaces only
/// if the tar reader asks for more).
struct Inflated {
  std::string data;
  std::string trailing_error;
};

/// Go's gzip header check for the member at `gz[pos]`; empty when it is fine.
std::string member_header_error(std::string_view gz, size_t pos) {
  size_t left = gz.size() - pos;
  if (left == 0) return "EOF";
  if (left < 10) return k_unexpected_eof;
  if (static_cast<unsigned char>(gz[pos]) != 0x1f ||
      static_cast<unsigned char>(gz[pos + 1]) != 0x8b || gz[pos + 2] != 8)
    return "gzip: invalid header";
  return {};
}

/// Inflates one gzip member starting at `pos`; returns the offset after it.
size_t inflate_member(std::string_view gz, size_t pos, std::string& out) {
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK) fail("gzip: cannot initialise zlib");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + pos));
  zs.avail_in = static_cast<uInt>(gz.size() - pos);
  std::array<char, 64 * 1024> buf{};
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf.data(), buf.size() - zs.avail_out);
    if (rc == Z_STREAM_END) break;
    if (rc == Z_OK) continue;
    std::string msg = zs.msg != nullptr ? zs.msg : "";
    uLong consumed = zs.total_in;
    inflateEnd(&zs);
    if (rc == Z_BUF_ERROR) fail(k_unexpected_eof);  // the input ended inside the member
    if (msg == "incorrect data check" || msg == "incorrect length check")
      fail("gzip: invalid checksum");
    fail(fmt::format("flate: corrupt input before offset {}", consumed));
  }
  size_t used = zs.total_in;
  inflateEnd(&zs);
  return pos + used;
}

Inflated inflate_all(std::string_view gz) {
  if (std::string err = member_header_error(gz, 0); !err.empty()) fail(err);
  Inflated r;
  size_t pos = 0;
  while (true) {
    pos = inflate_member(gz, pos, r.data);
    std::string err = member_header_error(gz, pos);
    if (err == "EOF") return r;  // clean end of a multi-member stream
    if (!err.empty()) {
      r.trailing_error = err;
      return r;
    }
  }
}

/// Go's archive/tar parsing of header fields (parseString, parseNumeric).
std::string c_string(std::string_view field) {
  return std::string(field.substr(0, field.find('\0')));
}

int64_t parse_numeric(std::string_view field) {
  if (!field.empty() && (static_cast<unsigned char>(field[0]) & 0x80) != 0) {
    // base-256: the first byte's top bit marks it; the next bit is the sign
    auto first = static_cast<unsigned char>(field[0]);
    bool negative = (first & 0x40) != 0;
    uint64_t v = 0;
    for (size_t i = 0; i < field.size(); ++i) {
      auto c = static_cast<unsigned char>(field[i]);
      if (negative) c ^= 0xff;
      if (i == 0) c &= 0x7f;
      if ((v >> 56) != 0) throw Error(ErrorCode::Input, k_invalid_header);
      v = (v << 8) | c;
    }
    if ((v >> 63) != 0) throw Error(ErrorCode::Input, k_invalid_header);
    auto n = static_cast<int64_t>(v);
    return negative ? ~n : n;
  }
  size_t b = 0;
  size_t e = field.size();
  while (b < e && (field[b] == ' ' || field[b] == '\0')) ++b;
  while (e > b && (field[e - 1] == ' ' || field[e - 1] == '\0')) --e;
  int64_t v = 0;
  for (size_t i = b; i < e; ++i) {
    if (field[i] < '0' || field[i] > '7' || v > (INT64_MAX >> 3))
      throw Error(ErrorCode::Input, k_invalid_header);
    v = v * 8 + (field[i] - '0');
  }
  return v;
}

enum class Format { V7, Ustar, Gnu };

/// Go's block.getFormat: the checksum must match (unsigned or signed sum) and the magic
/// decides the format; an unknown magic with a good checksum is V7.
std::optional<Format> header_format(std::string_view blk) {
  int64_t want = 0;
  try {
    want = parse_numeric(blk.substr(148, 8));
  } catch (const Error&) {
    return std::nullopt;
  }
  int64_t unsigned_sum = 0;
  int64_t signed_sum = 0;
  for (size_t i = 0; i < k_block; ++i) {
    char c = (i >= 148 && i < 156) ? ' ' : blk[i];
    unsigned_sum += static_cast<unsigned char>(c);
    signed_sum += static_cast<signed char>(c);
  }
  if (want != unsigned_sum && want != signed_sum) return std::nullopt;
  std::string_view magic = blk.substr(257, 6);
  std::string_view version = blk.substr(263, 2);
  if (magic == std::string_view("ustar\0", 6) && version == "00") return Format::Ustar;
  if (magic == "ustar " && version == std::string_view(" \0", 2)) return Format::Gnu;
  return Format::V7;
}

/// A bounded reader over the inflated bytes that raises the gzip trailing error, or Go's
/// EOF conditions, when more is needed than there is.
class Stream {
 public:
  explicit Stream(const Inflated& in) : m_in(in) {}
  [[nodiscard]] size_t left() const { return m_in.data.size() - m_pos; }
  /// Reads exactly n bytes; nullopt when the stream ends first with nothing read (io.EOF).
  std::optional<std::string_view> read_full(size_t n) {
    if (left() >= n) {
      std::string_view s = std::string_view(m_in.data).substr(m_pos, n);
      m_pos += n;
      return s;
    }
    if (!m_in.trailing_error.empty()) fail(m_in.trailing_error);
    if (left() == 0) return std::nullopt;
    fail(k_unexpected_eof);
  }
  /// Skips n bytes of padding; false when the stream ends first (Go's tryReadFull: io.EOF).
  bool skip(size_t n) {
    if (left() >= n) {
      m_pos += n;
      return true;
    }
    if (!m_in.trailing_error.empty()) fail(m_in.trailing_error);
    m_pos = m_in.data.size();
    return false;
  }

 private:
  const Inflated& m_in;
  size_t m_pos = 0;
};

/// pax records `LEN key=value\n`: applies `path` and `size`.
void apply_pax(std::string_view records, std::string& path, std::optional<int64_t>& size) {
  while (!records.empty()) {
    size_t sp = records.find(' ');
    if (sp == std::string_view::npos) fail(k_invalid_header);
    size_t len = 0;
    for (char c : records.substr(0, sp)) {
      if (c < '0' || c > '9') fail(k_invalid_header);
      len = len * 10 + static_cast<size_t>(c - '0');
    }
    if (len <= sp + 1 || len > records.size() || records[len - 1] != '\n') fail(k_invalid_header);
    std::string_view rec = records.substr(sp + 1, len - sp - 2);
    records.remove_prefix(len);
    size_t eq = rec.find('=');
    if (eq == std::string_view::npos) fail(k_invalid_header);
    std::string_view key = rec.substr(0, eq);
    std::string_view value = rec.substr(eq + 1);
    if (key == "path") path = std::string(value);
    if (key == "size") {
      int64_t v = 0;
      for (char c : value) {
        if (c < '0' || c > '9') fail(k_invalid_header);
        v = v * 10 + (c - '0');
      }
      size = v;
    }
  }
}

bool header_only(char type) {
  return type == '1' || type == '2' || type == '3' || type == '4' || type == '5' || type == '6';
}

/// Reads one header block into `e` (fields only); false at the end of the archive.
bool read_header(Stream& in, TarEntry& e, Format& format) {
  auto blk = in.read_full(k_block);
  if (!blk) return false;
  if (std::all_of(blk->begin(), blk->end(), [](char c) { return c == '\0'; })) {
    auto second = in.read_full(k_block);
    if (!second) return false;
    if (std::all_of(second->begin(), second->end(), [](char c) { return c == '\0'; })) return false;
    fail(k_invalid_header);
  }
  auto f = header_format(*blk);
  if (!f) fail(k_invalid_header);
  format = *f;
  e = TarEntry{};
  e.name = c_string(blk->substr(0, 100));
  e.mode = parse_numeric(blk->substr(100, 8));
  e.size = parse_numeric(blk->substr(124, 12));
  e.type = (*blk)[156];
  if (format == Format::Ustar) {
    std::string prefix = c_string(blk->substr(345, 155));
    if (!prefix.empty()) e.name = prefix + "/" + e.name;
  }
  if (e.size < 0) fail(k_invalid_header);
  return true;
}

}  // namespace

bool TarEntry::is_dir() const { return type == '5' || (mode & ~int64_t{07777}) == 0040000; }

std::string gunzip(std::string_view gz) {
  Inflated r = inflate_all(gz);
  if (!r.trailing_error.empty()) fail(r.trailing_error);
  return std::move(r.data);
}

namespace {

std::vector<TarEntry> read_entries(const Inflated& inflated) {
  Stream in(inflated);
  std::vector<TarEntry> out;
  std::string long_name;
  std::string pax_path;
  int64_t pax_size = -1;  // -1: no pax size record (an optional trips g++ 12 -O3's
                          // maybe-uninitialized check)
  while (true) {
    TarEntry e;
    Format format = Format::V7;
    if (!read_header(in, e, format)) return out;
    size_t body = header_only(e.type) ? 0 : static_cast<size_t>(e.size);
    if (e.type == 'x' || e.type == 'g' || e.type == 'L' || e.type == 'K') body = e.size;
    if (e.type != 'x' && e.type != 'g' && e.type != 'L' && e.type != 'K' && pax_size >= 0)
      body = header_only(e.type) ? 0 : static_cast<size_t>(pax_size);
    auto data = in.read_full(body);
    if (!data && body > 0) fail(k_unexpected_eof);
    std::string contents(data ? *data : std::string_view());
    size_t pad = (k_block - body % k_block) % k_block;
    bool more = in.skip(pad);
    if (e.type == 'x' || e.type == 'g') {
      std::string path;
      std::optional<int64_t> size;
      apply_pax(contents, path, size);
      if (e.type == 'x') {
        pax_path = path;
        pax_size = size.value_or(-1);
        if (!more) return out;
        continue;
      }
      if (!path.empty()) e.name = path;  // a global header is returned as a member
    } else if (e.type == 'L' || e.type == 'K') {
      if (e.type == 'L') long_name = c_string(contents);
      if (!more) return out;
      continue;
    } else {
      if (!long_name.empty()) e.name = long_name;
      if (!pax_path.empty()) e.name = pax_path;
      if (pax_size >= 0) e.size = pax_size;
      if (e.type == '\0') e.type = e.name.ends_with('/') ? '5' : '0';
      e.data = std::move(contents);
      long_name.clear();
      pax_path.clear();
      pax_size = -1;
    }
    out.push_back(std::move(e));
    if (!more) return out;
  }
}

/// The member path without its top directory, as Helm computes it; throws Helm's errors.
std::string chart_path(const std::string& name) {
  char delimiter = name.find('\\') != std::string::npos ? '\\' : '/';
  size_t first = name.find(delimiter);
  std::string top = name.substr(0, first);
  std::string n = first == std::string::npos ? "" : name.substr(first + 1);
  std::replace(n.begin(), n.end(), delimiter, '/');
  if (!n.empty() && n[0] == '/') fail("chart illegally contains absolute paths");
  n = clean_path(n);
  if (n == ".")
    fail(fmt::format("chart illegally contains content outside the base directory: {}",
                     go_quote(name)));
  if (n.starts_with("..")) fail("chart illegally references parent directory");
  if (n.size() >= 3 && std::isalpha(static_cast<unsigned char>(n[0])) != 0 && n[1] == ':' &&
      n[2] == '/')
    fail("chart contains illegally named files");
  if (top == "Chart.yaml") fail("chart yaml not in base directory");
  return n;
}

}  // namespace

std::string clean_path(const std::string& p) {
  bool rooted = !p.empty() && p[0] == '/';
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= p.size()) {
    size_t slash = p.find('/', pos);
    std::string part = p.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    pos = slash == std::string::npos ? p.size() + 1 : slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty() && parts.back() != "..")
        parts.pop_back();
      else if (!rooted)
        parts.push_back(part);
      continue;
    }
    parts.push_back(part);
  }
  std::string out = rooted ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) out += (i > 0 ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

std::vector<TarEntry> read_tar(std::string_view tar) {
  Inflated in{std::string(tar), {}};
  return read_entries(in);
}

std::vector<ChartFile> load_archive_files(std::string_view gz) {
  std::vector<TarEntry> entries = read_entries(inflate_all(gz));
  std::vector<ChartFile> files;
  int64_t remaining = k_max_chart_size;
  for (TarEntry& e : entries) {
    if (e.is_dir() || e.type == 'x' || e.type == 'g') continue;
    std::string n = chart_path(e.name);
    if (e.size > remaining)
      fail(fmt::format("decompressed chart is larger than the maximum file size {}",
                       k_max_chart_size));
    if (e.size > k_max_file_size)
      fail(fmt::format("decompressed chart file {} is larger than the maximum file size {}",
                       go_quote(e.name), k_max_file_size));
    auto written = static_cast<int64_t>(e.data.size());
    remaining -= written;
    if (written < e.size || remaining <= 0)
      fail(fmt::format("decompressed chart is larger than the maximum file size {}",
                       k_max_chart_size));
    std::string data = std::move(e.data);
    if (data.starts_with("\xEF\xBB\xBF")) data.erase(0, 3);
    files.push_back({std::move(n), std::move(data)});
  }
  if (files.empty()) fail("no files in chart archive");
  return files;
}

}  // namespace ejob::render::helm
