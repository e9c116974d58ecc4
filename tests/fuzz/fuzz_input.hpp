#pragma once
/// What every fuzz target (tests/fuzz/*_fuzz.cpp) shares: the input as text, an input split in
/// two, and the line between an input the parser refuses (ejob::Error: the program prints it
/// and exits with its status) and a crash (anything else: a sanitizer report, a signal, another
/// exception escaping, which libFuzzer and the replay driver report).

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "src/util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace ejob::fuzz {

/// The input bytes as text.
inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// Two inputs from one: the text before the first NUL and the text after it (empty when none).
inline std::pair<std::string_view, std::string_view> split_at_nul(std::string_view text) {
  const std::size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return {text, {}};
  return {text.substr(0, nul), text.substr(nul + 1)};
}

/// Runs `parse`; an ejob::Error is the expected refusal of a bad input and ends the run quietly.
template <class F>
void refusals_expected(F&& parse) {
  try {
    parse();
  } catch (const Error&) {
    // the parser refused the input with a message: what it should do
  }
}

}  // namespace ejob::fuzz
