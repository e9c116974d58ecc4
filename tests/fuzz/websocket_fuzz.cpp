// The WebSocket frame reader of port-forward (src/kubeapi/websocket.cpp, WebSocket::Impl::
// process): the input is what the API server sends after the upgrade, arriving in pieces whose
// size the first byte sets. Our close frame counts as sent already, so that no answer (pong,
// close) needs a connection: what is fuzzed is the parsing, reassembly and the checks on
// frames (reserved bits, masks, lengths, control frames, fragments).
#include <algorithm>
#include <optional>

#include "src/kubeapi/websocket.hpp"
#include "src/kubeapi/websocket_impl.hpp"
#include "tests/fuzz/fuzz_input.hpp"

using ejob::kubeapi::Message;
using ejob::kubeapi::Received;
using ejob::kubeapi::WebSocket;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = data[0] == 0 ? size : data[0];
  std::string_view stream = ejob::fuzz::as_text(data + 1, size - 1);
  WebSocket::Impl ws;
  ws.server = "https://fuzz";
  ws.close_sent = true;
  ejob::fuzz::refusals_expected([&] {
    while (!stream.empty()) {
      const std::size_t n = std::min(piece, stream.size());
      ws.in.append(stream.substr(0, n));
      stream.remove_prefix(n);
      Message out;
      for (std::optional<Received> r; (r = ws.process(out)) && *r == Received::Message;) out = {};
      if (ws.peer_closed) return;
    }
  });
  return 0;
}
