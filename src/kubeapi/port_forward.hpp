#pragma once
/// Port-forward to a pod over the API server, with Kubernetes' WebSocket protocol (what the
/// kubelet serves as `v4.channel.k8s.io`, k8s.io/apiserver wsstream):
/// - `GET /api/v1/namespaces/NS/pods/NAME/portforward?ports=P`, upgraded to a WebSocket with
///   subprotocol `v4.channel.k8s.io` (binary messages);
/// - every message starts with a channel byte; port number i of the request has data channel
///   2*i and error channel 2*i+1 (one port per WebSocket here, so channels 0 and 1);
/// - the first message the server sends on each channel is the port number, 2 bytes little
///   endian; what follows on the data channel are the pod port's bytes, and our messages on
///   channel 0 are written to it;
/// - text on the error channel is the kubelet's reason for failing, e.g. "error forwarding port
///   5000 to pod …, uid : … connection refused"; it becomes ejob::Error(Transport);
/// - the protocol has no half-close: the connection to the pod port ends when the WebSocket
///   closes (either side).
/// PortForwarder is what `kubectl port-forward` does with it: a local listener whose every
/// accepted connection gets its own WebSocket.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "src/kubeapi/transport.hpp"
#include "src/kubeapi/websocket.hpp"

namespace ejob::kubeapi {

/// The WebSocket subprotocol of port-forward.
inline constexpr std::string_view k_port_forward_protocol = "v4.channel.k8s.io";

/// What read() found.
enum class StreamRead {
  Data,     ///< bytes were appended to `out`
  Timeout,  ///< nothing arrived in time
  Closed,   ///< the pod's side ended the connection
};

/// One connection to a port of a pod, as a byte stream. One thread at a time.
class PortForwardStream {
 public:
  /// Opens the connection. Throws ApiError (NotFound naming the pod, Forbidden, …) when the
  /// server refuses the upgrade, ejob::Error(Transport) when it cannot be reached.
  static std::unique_ptr<PortForwardStream> open(Transport& transport, const std::string& ns,
                                                 const std::string& pod, int port);

  /// Sends bytes to the pod's port. Throws ejob::Error(Transport) when the connection is gone.
  void write(std::string_view data);
  /// Waits up to `timeout` (negative: without limit, zero: only what already arrived) for
  /// bytes from the pod's port and appends them to `out`. Throws ejob::Error(Transport) with
  /// the error channel's text when the kubelet reports a failure (nothing listening, …).
  StreamRead read(std::string& out, std::chrono::milliseconds timeout);
  /// Ends the connection (the WebSocket closes). Never throws.
  void close();

  /// The WebSocket's socket for poll(); see WebSocket::socket().
  [[nodiscard]] int socket() const;
  [[nodiscard]] int port() const { return m_port; }

 private:
  PortForwardStream(std::unique_ptr<WebSocket> ws, std::string pod, int port);
  /// Handles one message; true when it carried data.
  bool take(Message& m, std::string& out);
  /// Throws the error for a server that broke the protocol (`what` it did).
  [[noreturn]] void fail(const std::string& what) const;

  std::unique_ptr<WebSocket> m_ws;
  std::string m_pod;
  int m_port;
  bool m_data_port_seen = false;
  bool m_error_port_seen = false;
};

/// What a PortForwarder forwards, and where.
struct ForwardSpec {
  std::string ns;
  std::string pod;
  int remote_port = 0;
  int local_port = 0;  ///< 0: a free port, see PortForwarder::local_port()
  std::string address = "127.0.0.1";
  /// Told about each failed connection (the message of the error); may be empty. Called from
  /// the connection's thread.
  std::function<void(const std::string&)> on_error;
};

/// Listens on address:local_port and forwards every accepted connection over its own
/// WebSocket to the pod's port, until stop() or destruction.
class PortForwarder {
 public:
  /// Binds and starts listening. Throws ejob::Error(Io) when the address cannot be bound.
  PortForwarder(Transport& transport, ForwardSpec spec);
  ~PortForwarder();
  PortForwarder(const PortForwarder&) = delete;
  PortForwarder& operator=(const PortForwarder&) = delete;

  /// The port listened on (the chosen one when 0 was asked).
  [[nodiscard]] int local_port() const { return m_local_port; }
  /// Stops listening, ends every forwarded connection and waits for their threads. Safe to
  /// call twice.
  void stop();

 private:
  struct Connection {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };

  void accept_loop();
  void serve(int client);
  void reap(bool all);

  Transport& m_transport;
  ForwardSpec m_spec;
  int m_listen_fd = -1;
  int m_stop_fd = -1;  ///< an eventfd written by stop(); every thread polls it
  int m_local_port = 0;
  std::thread m_acceptor;
  std::mutex m_mutex;
  std::vector<Connection> m_connections;
  std::atomic<bool> m_stopped{false};
};

}  // namespace ejob::kubeapi
