// The streaming operations of Client: watch (with bookmarks, renewal and 410 re-list) and pod
// logs. Kept apart from client.cpp, which holds the request/response operations.

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/client.hpp"
#include "src/kubeapi/object_shape.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

std::string resource_version_of(const Json& obj) {
  auto m = obj.find("metadata");
  if (m == obj.end()) return {};
  auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : std::string();
}

constexpr int k_max_broken_streams = 5;

}  // namespace

void Client::watch_once(const ResourceInfo& res, const std::string& ns, WatchOptions& options,
                        const std::function<bool(const WatchEvent&)>& on_event, bool& stop,
                        bool& gone) {
  std::string target = path(res, ns) + "?watch=true&allowWatchBookmarks=true&resourceVersion=" +
                       url_escape(options.resource_version) +
                       "&timeoutSeconds=" + std::to_string(options.timeout_seconds);
  if (!options.label_selector.empty())
    target += "&labelSelector=" + url_escape(options.label_selector);
  if (!options.field_selector.empty())
    target += "&fieldSelector=" + url_escape(options.field_selector);
  std::string buffer;
  auto handle_line = [&](const std::string& line) {
    Json ev = Json::parse(line, nullptr, false);
    if (ev.is_discarded() || !ev.is_object())
      throw Error(ErrorCode::Api, "the server sent a watch event that is not JSON");
    auto type_at = ev.find("type");
    const std::string type =
        type_at != ev.end() && type_at->is_string() ? type_at->get<std::string>() : "";
    Json obj = ev.contains("object") ? std::move(ev["object"]) : Json::object();
    // Callers read the object with nlohmann's value(), which throws on anything but an object.
    if (!obj.is_object())
      throw Error(ErrorCode::Api, "the server sent a watch event whose object is not an object");
    if (type == "ERROR") {
      auto code_at = obj.find("code");
      const long code =
          code_at != obj.end() && code_at->is_number_integer() ? code_at->get<long>() : 500;
      if (code == 410) {
        gone = true;
        return false;
      }
      throw error_from_status(code, obj.dump());
    }
    check_object_shape(obj, "the watch GET " + target, "a " + type + " event's object.");
    if (const std::string rv = resource_version_of(obj); !rv.empty()) options.resource_version = rv;
    if (type == "BOOKMARK") return true;
    if (!on_event({type, std::move(obj)})) {
      stop = true;
      return false;
    }
    return true;
  };
  Sink sink = [&](std::string_view data) {
    buffer.append(data);
    for (size_t nl; (nl = buffer.find('\n')) != std::string::npos;) {
      const std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      if (!line.empty() && !handle_line(line)) return false;
    }
    return true;
  };
  std::string error_body;
  Request request{Method::Get, target};
  request.cancel = options.cancel;
  // A live server ends the watch after timeoutSeconds; silence past that (and a margin) is
  // a hung server holding the connection open, and the watch is renewed.
  request.stall_limit =
      std::chrono::seconds(options.timeout_seconds + std::max(2L, options.timeout_seconds / 10));
  const long status = m_transport.stream(request, sink, error_body);
  if (options.cancel && options.cancel->load()) {
    stop = true;
    return;
  }
  if (status == 410) {
    gone = true;
    return;
  }
  if (status < 200 || status >= 300) throw error_from_status(status, error_body);
}

void Client::watch(const ResourceInfo& res, const std::string& ns, WatchOptions options,
                   const std::function<bool(const WatchEvent&)>& on_event) {
  bool relist = options.resource_version.empty();
  int broken = 0;
  while (!options.cancel || !options.cancel->load()) {
    if (relist) {
      ListResult current = list(res, ns, {options.label_selector, options.field_selector});
      for (Json& item : current.items)
        if (!on_event({"ADDED", std::move(item)})) return;
      options.resource_version = current.resource_version;
      relist = false;
    }
    bool stop = false;
    bool gone = false;
    try {
      watch_once(res, ns, options, on_event, stop, gone);
      broken = 0;
    } catch (const Error& e) {
      // A stream cut by the network is renewed from the last version seen.
      if (e.code() != ErrorCode::Transport || ++broken > k_max_broken_streams) throw;
    }
    if (stop) return;
    relist = gone;
  }
}

void Client::logs(const std::string& ns, const std::string& pod, const LogOptions& options,
                  const Sink& sink) {
  std::string target = path(resource("v1", "Pod"), ns, pod) + "/log";
  std::string q;
  auto add = [&](const std::string& k, const std::string& v) {
    q += (q.empty() ? "?" : "&") + k + "=" + url_escape(v);
  };
  if (!options.container.empty()) add("container", options.container);
  if (options.follow) add("follow", "true");
  if (options.timestamps) add("timestamps", "true");
  if (options.previous) add("previous", "true");
  if (!options.since_time.empty()) add("sinceTime", options.since_time);
  if (options.since_seconds >= 0) add("sinceSeconds", std::to_string(options.since_seconds));
  if (options.tail_lines >= 0) add("tailLines", std::to_string(options.tail_lines));
  std::string error_body;
  // kubectl's Accept: the apiserver negotiates a log request like any other (text/plain is a
  // 406 there) and answers with the container's text whatever was asked.
  Request request{Method::Get, target + q, "", "", "application/json, */*"};
  request.cancel = options.cancel;
  const long status = m_transport.stream(request, sink, error_body);
  if (options.cancel && options.cancel->load()) return;
  if (status < 200 || status >= 300) throw error_from_status(status, error_body);
}

}  // namespace ejob::kubeapi
