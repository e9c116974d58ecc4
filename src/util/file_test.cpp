#include "src/util/file.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace ejob {
namespace {

namespace fs = std::filesystem;

/// A folder of its own under the temporary directory, removed with everything in it.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "ejob-file-test-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("read_whole_file: a file's bytes, whatever their size") {
  TempDir dir;
  for (size_t size : {size_t{0}, size_t{1}, size_t{4095}, size_t{4096}, size_t{1000003}}) {
    std::string text(size, '\0');
    for (size_t i = 0; i < size; ++i) text[i] = static_cast<char>((i * 7919) % 251);
    write(dir.path / "f", text);
    std::optional<std::string> got = read_whole_file(dir.path / "f");
    REQUIRE(got.has_value());
    CHECK(got->size() == size);
    CHECK(*got == text);
  }
}

TEST_CASE("read_whole_file: files that report no size are read to their end") {
  std::optional<std::string> status = read_whole_file("/proc/self/status");
  REQUIRE(status.has_value());
  CHECK(status->find("Pid:") != std::string::npos);
  CHECK(status->size() > 100);
}

TEST_CASE("read_whole_file: what cannot be read is nullopt, errno saying why") {
  TempDir dir;
  errno = 0;
  CHECK_FALSE(read_whole_file(dir.path / "missing").has_value());
  CHECK(errno == ENOENT);
  errno = 0;
  CHECK_FALSE(read_whole_file(dir.path).has_value());
  CHECK(errno == EISDIR);
}

}  // namespace ejob
