// The log-line splitter of `ejob logs` (src/job/job_pods.cpp, LineSplitter): the input is a
// log stream cut into chunks whose sizes the first byte sets (the API server's chunks fall
// anywhere). Every byte must come out once and in order: the lines, each with its '\n' back,
// then the rest, give the stream again.
#include <algorithm>
#include <string>

#include "src/job/job_pods.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = data[0] == 0 ? size : data[0];
  const std::string_view stream = ejob::fuzz::as_text(data + 1, size - 1);
  ejob::job::LineSplitter splitter;
  std::string again;
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    for (const std::string& line : splitter.add(stream.substr(at, piece))) {
      if (line.find('\n') != std::string::npos) std::abort();  // a line holds a line break
      again += line + "\n";
    }
  }
  again += splitter.rest();
  if (again != stream || !splitter.rest().empty()) std::abort();  // lost, doubled or reordered
  return 0;
}
