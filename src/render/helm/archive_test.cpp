#include "src/render/helm/archive.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::render::helm {
namespace {

/// One 512-byte header: ustar (or GNU magic), octal fields, checksum filled in.
std::string header(const std::string& name, size_t size, char type, bool gnu = false,
                   const std::string& prefix = "") {
  std::string h(512, '\0');
  h.replace(0, std::min<size_t>(name.size(), 100), name.substr(0, 100));
  h.replace(100, 8, std::string("0000644\0", 8));
  h.replace(124, 12, fmt::format("{:011o}", size) + '\0');
  h.replace(136, 12, std::string("00000000000\0", 12));
  h[156] = type;
  if (gnu) {
    h.replace(257, 8, std::string("ustar  \0", 8));
  } else {
    h.replace(257, 8,
              std::string("ustar\0"
                          "00",
                          8));
    h.replace(345, prefix.size(), prefix);
  }
  h.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  h.replace(148, 8, fmt::format("{:06o}", sum) + std::string("\0 ", 2));
  return h;
}

std::string padded(const std::string& data) {
  return data + std::string((512 - data.size() % 512) % 512, '\0');
}

std::string member(const std::string& name, const std::string& data, char type = '0') {
  return header(name, data.size(), type) + padded(data);
}

std::string end_blocks() { return std::string(1024, '\0'); }

std::string gzip(const std::string& raw) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, raw.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string error_of(const std::string& gz) {
  try {
    load_archive_files(gz);
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("archive: tar members with ustar prefixes, GNU long names and pax paths") {
  std::string long_name = "sub/templates/" + std::string(120, 'x') + ".yaml";
  std::string pax_record = fmt::format(" path=sub/pax-ü.txt\n");
  pax_record = std::to_string(pax_record.size() + 2) + pax_record;
  std::string tar = member("sub/", "", '5') + member("sub/Chart.yaml", "name: sub\n") +
                    header("x", 0, '0', false, "sub/deep") +
                    header("././@LongLink", long_name.size() + 1, 'L', true) +
                    padded(long_name + '\0') + header("ignored", 2, '0', true) + padded("hi") +
                    header("PaxHeaders/x", pax_record.size(), 'x') + padded(pax_record) +
                    member("short", "pax") + end_blocks();
  std::vector<TarEntry> entries = read_tar(tar);
  REQUIRE(entries.size() == 5);
  CHECK(entries[0].name == "sub/");
  CHECK(entries[0].is_dir());
  CHECK(entries[1].name == "sub/Chart.yaml");
  CHECK(entries[1].data == "name: sub\n");
  CHECK(entries[2].name == "sub/deep/x");
  CHECK(entries[3].name == long_name);
  CHECK(entries[3].data == "hi");
  CHECK(entries[4].name == "sub/pax-ü.txt");
  CHECK(entries[4].data == "pax");
}

TEST_CASE("archive: Go's errors for broken tar and gzip data") {
  std::string bad = member("a", "x");
  bad[148] = '7';
  CHECK_THROWS_WITH(read_tar(bad), "archive/tar: invalid tar header");
  CHECK_THROWS_WITH(read_tar(member("a", "xyz").substr(0, 514)), "unexpected EOF");
  CHECK_THROWS_WITH(gunzip(""), "EOF");
  CHECK_THROWS_WITH(gunzip("not gzip data"), "gzip: invalid header");
  std::string gz = gzip("hello");
  CHECK(gunzip(gz) == "hello");
  CHECK(gunzip(gz + gzip(" world")) == "hello world");
  CHECK_THROWS_WITH(gunzip(gz.substr(0, gz.size() - 4)), "unexpected EOF");
  std::string corrupt = gz;
  corrupt[corrupt.size() - 5] ^= 0x55;  // CRC-32 of the data
  CHECK_THROWS_WITH(gunzip(corrupt), "gzip: invalid checksum");
}

TEST_CASE("archive: chart files lose the top directory and a BOM; Helm's path rules") {
  std::string tar = member("sub/", "", '5') + member("sub/Chart.yaml", "name: sub\n") +
                    member("sub/files/a.txt", "\xEF\xBB\xBFtext") + end_blocks();
  std::vector<ChartFile> files = load_archive_files(gzip(tar));
  REQUIRE(files.size() == 2);
  CHECK(files[0].name == "Chart.yaml");
  CHECK(files[1].name == "files/a.txt");
  CHECK(files[1].data == "text");
  CHECK(load_archive_files(gzip(member("sub\\templates\\a.yaml", "x") + end_blocks()))[0].name ==
        "templates/a.yaml");
  CHECK(error_of(gzip(member("sub/../../x", "x") + end_blocks())) ==
        "chart illegally references parent directory");
  CHECK(error_of(gzip(member("sub//etc/x", "x") + end_blocks())) ==
        "chart illegally contains absolute paths");
  CHECK(error_of(gzip(member("Chart.yaml", "x") + end_blocks())) ==
        R"(chart illegally contains content outside the base directory: "Chart.yaml")");
  CHECK(error_of(gzip(member("sub/c:/x", "x") + end_blocks())) ==
        "chart contains illegally named files");
  CHECK(error_of(gzip(member("sub/", "", '5') + end_blocks())) == "no files in chart archive");
  CHECK(error_of(gzip(member("sub/big", std::string(5 * 1024 * 1024 + 1, 'x')) + end_blocks())) ==
        R"(decompressed chart file "sub/big" is larger than the maximum file size 5242880)");
  // bytes after the gzip member are never read when the tar ends first
  CHECK(load_archive_files(gzip(member("sub/a", "x") + end_blocks()) + "junk").size() == 1);
}

}  // namespace ejob::render::helm
