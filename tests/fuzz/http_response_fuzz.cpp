// The agent's HTTP/1.1 response reader (src/agent/etcd/http_response.cpp), which reads etcd's
// and the cloud metadata services' answers: the input is the byte stream of one connection,
// fed in pieces whose sizes the first byte sets (a response arrives in any split), then the end
// of the connection.
#include <algorithm>

#include "src/agent/etcd/http_response.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = data[0] == 0 ? size : data[0];
  std::string_view stream = ejob::fuzz::as_text(data + 1, size - 1);
  ejob::fuzz::refusals_expected([&] {
    ejob::agent::HttpResponseReader reader;
    while (!stream.empty()) {
      const std::size_t n = std::min(piece, stream.size());
      if (reader.feed(stream.substr(0, n))) return;
      stream.remove_prefix(n);
    }
    reader.finish_at_eof();
  });
  return 0;
}
