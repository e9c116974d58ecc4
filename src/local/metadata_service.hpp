#pragma once
/// The instance metadata service of a local job's simulated VMs, so that `ejob evict --notice`
/// drills the whole spot path on a laptop: the supervisor serves it on 127.0.0.1, every node's
/// ejob-agent gets `EJOB_SPOT_METADATA_URL=http://127.0.0.1:PORT/worker-I` and finds its cloud
/// there as it would on the VM, and a notice is published in that cloud's documented format:
///   azure  Scheduled Events (`Metadata: true`): compute name, a `Preempt` event with NotBefore
///          (an HTTP date), DocumentIncarnation, StartRequests acknowledged by POST
///   aws    IMDSv2: PUT /latest/api/token (TTL header) then GETs with the token;
///          spot/instance-action 404 until the notice, then {"action":"terminate","time":…}
///   gce    `Metadata-Flavor: Google`; instance/preempted FALSE/TRUE with an ETag, and the
///          wait_for_change long-poll that returns on a change or after timeout_sec
/// Single-threaded: the supervisor polls its descriptors beside its own (fds(), serve()).

#include <poll.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::local {

/// The cloud whose metadata service a local node's VM has.
enum class Cloud { Azure, Aws, Gce };

/// `azure`, `aws`, `gce`; nullopt for another word.
std::optional<Cloud> cloud_named(std::string_view word);
std::string cloud_name(Cloud cloud);
/// How long before the reclaim each cloud warns: Azure ≥ 30 s, AWS 2 min, GCE 30 s.
std::chrono::seconds cloud_notice_period(Cloud cloud);

class MetadataService {
 public:
  using SysTime = std::chrono::system_clock::time_point;

  /// Listens on 127.0.0.1, a free port. Throws ejob::Error(Io) when it cannot.
  explicit MetadataService(Cloud cloud);
  ~MetadataService();
  MetadataService(const MetadataService&) = delete;
  MetadataService& operator=(const MetadataService&) = delete;

  [[nodiscard]] Cloud cloud() const { return m_cloud; }
  /// The base URL node `index` gets as EJOB_SPOT_METADATA_URL.
  [[nodiscard]] std::string url_for(int index) const;
  /// The descriptors to poll for reading (the listener and open connections).
  [[nodiscard]] std::vector<pollfd> fds() const;
  /// Accepts, reads and answers what `polled` (fds() after poll) says is ready, then answers
  /// long-polls whose value changed or whose time is up.
  void serve(const std::vector<pollfd>& polled);
  /// Node `index`'s VM will be reclaimed at `deadline`: its cloud's notice from now on.
  void publish(int index, SysTime deadline);
  /// Node `index` is a fresh VM: no notice.
  void withdraw(int index);
  /// Whether node `index` acknowledged its notice (Azure StartRequests).
  [[nodiscard]] bool acknowledged(int index) const;

  struct Connection;
  struct Notice {
    SysTime deadline;
    int event = 0;  ///< Azure EventId / GCE ETag generation
    bool started = false;
  };

 private:
  void accept_all();
  bool read_from(Connection& c);
  void answer_ready();
  void answer(Connection& c);

  Cloud m_cloud;
  int m_listen_fd = -1;
  int m_port = 0;
  int m_generation = 0;                ///< bumped by every publish/withdraw
  std::map<int, Notice> m_notices;     ///< by node index
  std::set<std::string> m_aws_tokens;  ///< IMDSv2 session tokens handed out
  std::vector<std::unique_ptr<Connection>> m_connections;
};

}  // namespace ejob::local
