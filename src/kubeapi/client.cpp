#include "src/kubeapi/client.hpp"

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/object_shape.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

/// Kinds ejob sends, known without a discovery request.
const ResourceInfo k_builtin[] = {
    {"", "v1", "pods", "Pod", true},
    {"", "v1", "services", "Service", true},
    {"", "v1", "events", "Event", true},
    {"", "v1", "persistentvolumes", "PersistentVolume", false},
    {"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true},
    {"", "v1", "namespaces", "Namespace", false},
    {"", "v1", "configmaps", "ConfigMap", true},
    {"", "v1", "secrets", "Secret", true},
    {"apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", false},
};

std::string str(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string meta(const Json& obj, const char* key) {
  auto it = obj.find("metadata");
  return it != obj.end() ? str(*it, key) : std::string();
}

/// An answer that is JSON but not the shape Kubernetes gives it (a proxy's, a broken server's).
Error not_kubernetes(const std::string& what, const std::string& why) {
  return Error(ErrorCode::Api, "the server answered " + what + " with " + why);
}

/// The object field `key` of `j`, or an empty object when it is absent or not an object.
const Json& object_at(const Json& j, const char* key) {
  static const Json k_empty = Json::object();
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : k_empty;
}

/// Moves the list `field` of an answer (`items` of a list, `resources` of discovery: objects) to
/// `out`; what a caller reads with nlohmann's value() must be an object, so anything else is
/// refused here.
void take_items(Json& page, const char* field, const std::string& what, std::vector<Json>& out) {
  if (!page.is_object()) throw not_kubernetes(what, "a body that is not a JSON object");
  auto items = page.find(field);
  if (items == page.end() || items->is_null()) return;
  if (!items->is_array()) throw not_kubernetes(what, std::string(field) + " that are not a list");
  for (Json& item : *items) {
    if (!item.is_object()) throw not_kubernetes(what, "an item that is not a JSON object");
    out.push_back(std::move(item));
  }
}

/// take_items() of a list of Kubernetes objects, each of the shape check_object_shape() wants.
void take_objects(Json& page, const std::string& what, std::vector<Json>& out) {
  const size_t first = out.size();
  take_items(page, "items", what, out);
  for (size_t k = first; k < out.size(); ++k)
    check_object_shape(out[k], what, "items[" + std::to_string(k - first) + "].");
}

Json parse_json(const std::string& body, const std::string& what) {
  Json doc = Json::parse(body, nullptr, false);
  if (doc.is_discarded())
    throw Error(ErrorCode::Api, "the server answered " + what + " with a body that is not JSON");
  return doc;
}

std::string join_query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string q;
  for (const auto& [k, v] : params) q += (q.empty() ? "?" : "&") + k + "=" + url_escape(v);
  return q;
}

/// The apply conflict as one sentence plus kubectl's hint.
Error conflict_error(const ApiError& e, const Json& object) {
  std::map<std::string, std::vector<std::string>> by_manager;
  for (const StatusCause& c : e.causes()) {
    const auto q1 = c.message.find('"');
    const auto q2 = c.message.find('"', q1 + 1);
    const std::string manager =
        q1 == std::string::npos ? c.message : c.message.substr(q1 + 1, q2 - q1 - 1);
    by_manager[manager].push_back(c.field);
  }
  std::string what;
  for (const auto& [manager, fields] : by_manager) {
    what += what.empty() ? "" : "; ";
    what += "field manager \"" + manager + "\" owns";
    for (size_t i = 0; i < fields.size(); ++i) what += (i ? ", " : " ") + fields[i];
  }
  if (what.empty()) what = e.message();
  const std::string name = str(object, "kind") + "/" + meta(object, "name");
  return Error(ErrorCode::Conflict, "applying " + name + " conflicts: " + what +
                                        " (rerun with --force-conflicts to take these fields over, "
                                        "or remove them from your manifest)");
}

}  // namespace

std::string url_escape(const std::string& text) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
  }
  return out;
}

Client::Client(Transport& transport) : m_transport(transport) {}

const std::string& Client::default_namespace() const { return m_transport.config().namespace_name; }

std::string Client::path(const ResourceInfo& res, const std::string& ns, const std::string& name) {
  std::string p =
      res.group.empty() ? "/api/" + res.version : "/apis/" + res.group + "/" + res.version;
  if (res.namespaced && !ns.empty()) p += "/namespaces/" + ns;
  p += "/" + res.plural;
  if (!name.empty()) p += "/" + name;
  return p;
}

Json Client::call(const Request& request) {
  Response r = m_transport.send(request);
  if (r.status < 200 || r.status >= 300) throw error_from_status(r.status, r.body);
  const std::string what = std::string(method_name(request.method)) + " " + request.target;
  Json doc = parse_json(r.body, what);
  check_object_shape(doc, what);
  return doc;
}

Client::Discovered Client::discover(const std::string& api_version) {
  std::promise<Discovered> promise;
  std::shared_future<Discovered> pending;
  {
    std::lock_guard lock(m_mutex);
    if (auto it = m_discovery.find(api_version); it != m_discovery.end()) {
      pending = it->second;
    } else {
      m_discovery.emplace(api_version, promise.get_future().share());
    }
  }
  if (pending.valid()) return pending.get();  // asked before, or being asked right now
  try {
    Discovered found = fetch_discovery(api_version);
    promise.set_value(found);
    return found;
  } catch (...) {
    {
      std::lock_guard lock(m_mutex);
      m_discovery.erase(api_version);  // the next caller asks again
    }
    promise.set_exception(std::current_exception());
    throw;
  }
}

Client::Discovered Client::fetch_discovery(const std::string& api_version) {
  const bool core = api_version.find('/') == std::string::npos;
  Response r = m_transport.send({Method::Get, (core ? "/api/" : "/apis/") + api_version});
  if (r.status == 404) return std::nullopt;
  if (r.status < 200 || r.status >= 300) throw error_from_status(r.status, r.body);
  const std::string what = "discovery of " + api_version;
  Json doc = parse_json(r.body, what);
  const auto slash = api_version.find('/');
  std::vector<ResourceInfo> list;
  std::vector<Json> resources;
  take_items(doc, "resources", what, resources);
  for (const Json& item : resources) {
    const std::string name = str(item, "name");
    if (name.find('/') != std::string::npos) continue;  // subresource
    auto namespaced = item.find("namespaced");
    list.push_back(
        {core ? "" : api_version.substr(0, slash),
         core ? api_version : api_version.substr(slash + 1), name, str(item, "kind"),
         namespaced == item.end() || !namespaced->is_boolean() || namespaced->get<bool>()});
  }
  return list;
}

std::optional<ResourceInfo> Client::find_resource(const std::string& api_version,
                                                  const std::string& kind) {
  for (const ResourceInfo& r : k_builtin)
    if (r.api_version() == api_version && r.kind == kind) return r;
  auto served = discover(api_version);
  if (!served) return std::nullopt;
  for (const ResourceInfo& r : *served)
    if (r.kind == kind) return r;
  return std::nullopt;
}

ResourceInfo Client::resource(const std::string& api_version, const std::string& kind) {
  auto found = find_resource(api_version, kind);
  if (!found)
    throw Error(ErrorCode::NotFound,
                "the server does not serve kind " + kind + " in " + api_version);
  return *found;
}

ResourceInfo Client::resource_of(const Json& object) {
  return resource(str(object, "apiVersion"), str(object, "kind"));
}

Json Client::get(const ResourceInfo& res, const std::string& ns, const std::string& name) {
  return call({Method::Get, path(res, ns, name)});
}

std::optional<Json> Client::try_get(const ResourceInfo& res, const std::string& ns,
                                    const std::string& name) {
  Response r = m_transport.send({Method::Get, path(res, ns, name)});
  if (r.status == 404) return std::nullopt;
  if (r.status < 200 || r.status >= 300) throw error_from_status(r.status, r.body);
  const std::string what = "GET " + path(res, ns, name);
  Json doc = parse_json(r.body, what);
  check_object_shape(doc, what);
  return doc;
}

ListResult Client::list(const ResourceInfo& res, const std::string& ns,
                        const ListOptions& options) {
  ListResult out;
  std::string next;
  do {
    std::vector<std::pair<std::string, std::string>> q;
    if (!options.label_selector.empty()) q.emplace_back("labelSelector", options.label_selector);
    if (!options.field_selector.empty()) q.emplace_back("fieldSelector", options.field_selector);
    if (options.limit > 0) q.emplace_back("limit", std::to_string(options.limit));
    if (!next.empty()) q.emplace_back("continue", next);
    const std::string target = path(res, ns) + join_query(q);
    Json page = call({Method::Get, target});
    take_objects(page, "GET " + target, out.items);
    const Json& m = object_at(page, "metadata");
    if (out.resource_version.empty()) out.resource_version = str(m, "resourceVersion");
    next = str(m, "continue");
  } while (!next.empty());
  return out;
}

Json Client::create(const Json& object, DryRun dry_run) {
  return create(resource_of(object), object, dry_run);
}

Json Client::create(const ResourceInfo& res, const Json& object, DryRun dry_run) {
  std::string ns = meta(object, "namespace");
  if (ns.empty()) ns = default_namespace();
  std::string target = path(res, ns) + "?fieldManager=ejob";
  if (dry_run == DryRun::All) target += "&dryRun=All";
  return call({Method::Post, target, object.dump(), "application/json", "application/json",
               Retry::Unprocessed});
}

Json Client::apply(const Json& object, Force force, DryRun dry_run, const std::string& manager) {
  const ResourceInfo res = resource_of(object);
  std::string ns = meta(object, "namespace");
  if (ns.empty()) ns = default_namespace();
  std::string target = path(res, ns, meta(object, "name")) + "?fieldManager=" + url_escape(manager);
  if (force == Force::Yes) target += "&force=true";
  if (dry_run == DryRun::All) target += "&dryRun=All";
  // JSON is YAML, so the apply patch is sent as the object's JSON.
  try {
    return call({Method::Patch, target, object.dump(), "application/apply-patch+yaml"});
  } catch (const ApiError& e) {
    if (e.http_status() == 409 && e.reason() == "Conflict" && !e.causes().empty())
      throw conflict_error(e, object);
    throw;
  }
}

Json Client::merge_patch(const ResourceInfo& res, const std::string& ns, const std::string& name,
                         const Json& patch, DryRun dry_run) {
  std::string target = path(res, ns, name);
  if (dry_run == DryRun::All) target += "?dryRun=All";
  return call({Method::Patch, target, patch.dump(), "application/merge-patch+json"});
}

std::optional<Json> Client::remove(const ResourceInfo& res, const std::string& ns,
                                   const std::string& name, Propagation propagation, DryRun dry_run,
                                   const std::string& uid) {
  Json opts = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  opts["propagationPolicy"] = propagation == Propagation::Foreground ? "Foreground"
                              : propagation == Propagation::Orphan   ? "Orphan"
                                                                     : "Background";
  if (dry_run == DryRun::All) opts["dryRun"] = Json::array({"All"});
  if (!uid.empty()) opts["preconditions"] = {{"uid", uid}};
  Response r =
      m_transport.send({Method::Delete, path(res, ns, name), opts.dump(), "application/json"});
  if (r.status == 404) return std::nullopt;
  if (r.status < 200 || r.status >= 300) throw error_from_status(r.status, r.body);
  Json answer = Json::parse(r.body, nullptr, false);
  return answer.is_discarded() ? Json::object() : answer;
}

std::vector<Json> Client::events_for(const Json& object) {
  const std::string ns = meta(object, "namespace");
  std::string selector =
      "involvedObject.name=" + meta(object, "name") + ",involvedObject.kind=" + str(object, "kind");
  if (!meta(object, "uid").empty()) selector += ",involvedObject.uid=" + meta(object, "uid");
  ListResult events = list(resource("v1", "Event"), ns, {"", selector});
  std::stable_sort(events.items.begin(), events.items.end(), [](const Json& a, const Json& b) {
    return str(a, "lastTimestamp") < str(b, "lastTimestamp");
  });
  return std::move(events.items);
}

void Client::evict(const std::string& ns, const std::string& pod, DryRun dry_run) {
  Json eviction = {{"apiVersion", "policy/v1"},
                   {"kind", "Eviction"},
                   {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (dry_run == DryRun::All) eviction["deleteOptions"] = {{"dryRun", Json::array({"All"})}};
  call({Method::Post, path(resource("v1", "Pod"), ns, pod) + "/eviction", eviction.dump(),
        "application/json"});
}

std::string Client::proxy_get(const std::string& ns, const std::string& pod, int port,
                              const std::string& p) {
  const std::string target = path(resource("v1", "Pod"), ns, pod + ":" + std::to_string(port)) +
                             "/proxy" + (p.empty() || p[0] != '/' ? "/" : "") + p;
  Response r = m_transport.send({Method::Get, target, "", "", "*/*"});
  if (r.status < 200 || r.status >= 300) throw error_from_status(r.status, r.body);
  return r.body;
}

}  // namespace ejob::kubeapi
