#pragma once
/// The Kubernetes API operations ejob uses, over one Transport. Objects are nlohmann::json.
/// Every non-2xx answer becomes an ApiError (api_error.hpp). Discovery is cached for the life
/// of the Client (one run); the core kinds ejob sends are known without asking the server.

#include <atomic>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/kubeapi/transport.hpp"

namespace ejob::kubeapi {

using Json = nlohmann::json;

/// A served resource type.
struct ResourceInfo {
  std::string group;
  std::string version;
  std::string plural;
  std::string kind;
  bool namespaced = true;

  [[nodiscard]] std::string api_version() const {
    return group.empty() ? version : group + "/" + version;
  }
};

enum class DryRun { None, All };
enum class Force { No, Yes };
enum class Propagation { Background, Foreground, Orphan };

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  long limit = 500;  ///< page size; pages are followed with `continue`
};

struct ListResult {
  std::vector<Json> items;
  std::string resource_version;
};

struct WatchOptions {
  std::string resource_version;  ///< empty: list first, then watch from the list's version
  std::string label_selector;
  std::string field_selector;
  long timeout_seconds = 300;  ///< per watch request; the watch is renewed until stopped
  /// When it turns true the watch returns (within about a second), as when on_event says stop.
  const std::atomic<bool>* cancel = nullptr;
};

/// One watch event. After a 410 Gone the client re-lists and reports the current objects as
/// "ADDED" before watching again; BOOKMARK events only move the resourceVersion.
struct WatchEvent {
  std::string type;  ///< ADDED, MODIFIED, DELETED, BOOKMARK
  Json object;
};

struct LogOptions {
  std::string container;
  bool follow = false;
  bool timestamps = false;
  bool previous = false;
  std::string since_time;   ///< RFC 3339
  long tail_lines = -1;     ///< -1 = all
  long since_seconds = -1;  ///< -1 = not given; excludes since_time
  /// When it turns true a followed stream ends (within about a second).
  const std::atomic<bool>* cancel = nullptr;
};

class Client {
 public:
  explicit Client(Transport& transport);

  /// The namespace of the configuration (context, -n or in-cluster).
  [[nodiscard]] const std::string& default_namespace() const;
  [[nodiscard]] Transport& transport() { return m_transport; }

  /// The resource for a kind, or nullopt when its group/version or kind is not served.
  std::optional<ResourceInfo> find_resource(const std::string& api_version,
                                            const std::string& kind);
  /// Like find_resource; throws ejob::Error(NotFound) naming the kind when it is not served.
  ResourceInfo resource(const std::string& api_version, const std::string& kind);
  /// The resource of an object, from its apiVersion and kind.
  ResourceInfo resource_of(const Json& object);

  Json get(const ResourceInfo& res, const std::string& ns, const std::string& name);
  /// Like get, nullopt on 404.
  std::optional<Json> try_get(const ResourceInfo& res, const std::string& ns,
                              const std::string& name);
  /// Every object (all pages); ns empty = all namespaces.
  ListResult list(const ResourceInfo& res, const std::string& ns, const ListOptions& options = {});
  /// POST; fails with Conflict (reason AlreadyExists) when the name is taken. Not retried
  /// after a 5xx or a broken connection (the object may exist): the caller decides.
  Json create(const Json& object, DryRun dry_run = DryRun::None);
  /// The same, to the collection of `res` (no discovery of the object's kind).
  Json create(const ResourceInfo& res, const Json& object, DryRun dry_run = DryRun::None);
  /// Server-side apply (application/apply-patch+yaml) as field manager `manager`. A conflict
  /// is ejob::Error(Conflict) naming the conflicting managers and fields, with a hint.
  Json apply(const Json& object, Force force = Force::No, DryRun dry_run = DryRun::None,
             const std::string& manager = "ejob");
  /// PATCH with a JSON merge patch (RFC 7386), as `kubectl patch --type merge` sends it.
  Json merge_patch(const ResourceInfo& res, const std::string& ns, const std::string& name,
                   const Json& patch, DryRun dry_run = DryRun::None);
  /// DELETE; nullopt when the object did not exist, else what the server answered: the
  /// object (with a deletionTimestamp while finalizers hold it) or a Status. `uid` non-empty
  /// = precondition.
  std::optional<Json> remove(const ResourceInfo& res, const std::string& ns,
                             const std::string& name,
                             Propagation propagation = Propagation::Background,
                             DryRun dry_run = DryRun::None, const std::string& uid = "");
  /// Watches until `on_event` returns false.
  void watch(const ResourceInfo& res, const std::string& ns, WatchOptions options,
             const std::function<bool(const WatchEvent&)>& on_event);
  /// Streams a container's log to `sink` (chunks, not lines).
  void logs(const std::string& ns, const std::string& pod, const LogOptions& options,
            const Sink& sink);
  /// The events whose involvedObject is `object`, oldest first.
  std::vector<Json> events_for(const Json& object);
  /// Evicts a pod (policy/v1 Eviction); a disruption budget refusal is ApiError 429.
  void evict(const std::string& ns, const std::string& pod, DryRun dry_run = DryRun::None);
  /// GET through the API server's pod proxy: /pods/NAME:PORT/proxy/PATH.
  std::string proxy_get(const std::string& ns, const std::string& pod, int port,
                        const std::string& path);

  /// The URL path of a collection (name empty) or an object.
  static std::string path(const ResourceInfo& res, const std::string& ns,
                          const std::string& name = "");

 private:
  Json call(const Request& request);
  using Discovered = std::optional<std::vector<ResourceInfo>>;
  Discovered discover(const std::string& api_version);
  Discovered fetch_discovery(const std::string& api_version);
  void watch_once(const ResourceInfo& res, const std::string& ns, WatchOptions& options,
                  const std::function<bool(const WatchEvent&)>& on_event, bool& stop, bool& gone);

  Transport& m_transport;
  std::mutex m_mutex;
  /// Per group/version; a request in flight is shared by every caller that asks meanwhile.
  std::map<std::string, std::shared_future<Discovered>> m_discovery;
};

/// Percent-encodes a query parameter value.
std::string url_escape(const std::string& text);

}  // namespace ejob::kubeapi
