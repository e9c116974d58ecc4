#pragma once
/// Packaged charts (`charts/NAME.tgz`): a gzip-compressed tar archive whose single top-level
/// directory holds the chart. Read the way Helm's LoadArchiveFiles reads one, on our own small
/// tar reader (ustar, GNU long names, pax `path`/`size` records) over zlib.

#include <string>
#include <string_view>
#include <vector>

#include "src/render/helm/chart.hpp"

namespace ejob::render::helm {

/// One member of a tar archive, as Go's archive/tar returns it from Next().
struct TarEntry {
  std::string name;  ///< full path (pax `path`, GNU long name or ustar prefix/name)
  char type = '0';   ///< typeflag (`0` file, `5` directory, `g` pax global header, …)
  int64_t mode = 0;  ///< permission and file-type bits
  int64_t size = 0;  ///< header size (pax `size` wins)
  std::string data;  ///< contents (empty for header-only types)
  [[nodiscard]] bool is_dir() const;  ///< Go's FileInfo().IsDir()
};

/// Decompresses gzip data (concatenated members too, as Go's gzip.Reader). Throws
/// ejob::Error(Input) with Go's wording: `EOF` (empty), `gzip: invalid header`,
/// `unexpected EOF`, `gzip: invalid checksum`, `flate: corrupt input`.
std::string gunzip(std::string_view gz);

/// Every member of an uncompressed tar stream in order, pax extended headers (`x`) and GNU
/// long-name records (`L`, `K`) applied to the member they precede. Throws ejob::Error(Input)
/// with Go's wording: `archive/tar: invalid tar header`, `unexpected EOF`.
std::vector<TarEntry> read_tar(std::string_view tar);

/// Helm's LoadArchiveFiles: the chart files of a .tgz, paths without the top directory and
/// with a UTF-8 BOM dropped; directories and pax headers skipped. Throws ejob::Error(Input)
/// with Helm's texts (`chart illegally references parent directory`, `chart yaml not in base
/// directory`, `no files in chart archive`, size limits of 100 MiB per chart, 5 MiB per file).
std::vector<ChartFile> load_archive_files(std::string_view gz);

/// Go's path.Clean for `/`-separated paths (filepath.Clean on Unix).
std::string clean_path(const std::string& p);

}  // namespace ejob::render::helm
