#pragma once
/// Reading a whole file into memory.

#include <filesystem>
#include <optional>
#include <string>

namespace ejob {

/// The whole content of a file, read into one string of its size: a stream copied into an
/// ostringstream touches two to four times the file's size in fresh pages as its buffer
/// doubles and is copied out, and a page fault is dear (bench/README.md). Files that do not
/// know their size (pipes, /proc) are read until their end. std::nullopt when the file cannot
/// be opened or read, with errno telling why.
std::optional<std::string> read_whole_file(const std::filesystem::path& path);

}  // namespace ejob
