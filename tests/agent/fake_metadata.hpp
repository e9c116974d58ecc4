#pragma once
/// tests/agent/fake_metadata.py as a peer of the spot room's unit tests: one cloud's fake
/// metadata service on a free 127.0.0.1 port, driven by its stdin commands.

#include <memory>
#include <string>

#include "src/agent/preemption/metadata_http.hpp"
#include "tests/agent/python_peer.hpp"

namespace ejob::agent::testing {

/// One fake service (`azure`, `aws` or `gce`), stopped on destruction.
class FakeCloud {
 public:
  explicit FakeCloud(const std::string& cloud)
      : m_peer("fake_metadata.py", {cloud}), m_port(std::stoi(m_peer.read_line(30))) {}

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
  /// Runs one command of the script (e.g. `notice 30`, `fail 500 2`) and waits for its `ok`.
  void command(const std::string& line) {
    m_peer.write(line + "\n");
    m_peer.read_line(30);
  }
  /// The requests seen, as the script's JSON list.
  std::string requests() {
    m_peer.write("requests\n");
    return m_peer.read_line(30);
  }
  /// A client of this service.
  [[nodiscard]] std::unique_ptr<HttpMetadata> client() const {
    return std::make_unique<HttpMetadata>(*parse_metadata_url(url()), 1000);
  }

 private:
  PythonPeer m_peer;
  int m_port;
};

}  // namespace ejob::agent::testing
