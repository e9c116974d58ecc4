#include "src/job/doctor.hpp"

#include <future>
#include <map>

#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/kubeapi/api_error.hpp"
#include "src/spot/presets.hpp"

namespace ejob::job {

using kubeapi::Json;
using kubeapi::ResourceInfo;
using Verdict = Finding::Verdict;

namespace {

const ResourceInfo k_nodes{"", "v1", "nodes", "Node", false};
const ResourceInfo k_deployments{"apps", "v1", "deployments", "Deployment", true};
const ResourceInfo k_csi_drivers{"storage.k8s.io", "v1", "csidrivers", "CSIDriver", false};
const ResourceInfo k_access_reviews{"authorization.k8s.io", "v1", "selfsubjectaccessreviews",
                                    "SelfSubjectAccessReview", false};
const ResourceInfo k_cluster_runtimes{"trainer.kubeflow.org", "v1alpha1", "clustertrainingruntimes",
                                      "ClusterTrainingRuntime", false};

/// Why a request failed, in a few words ("forbidden", the server's message).
std::string failure(const std::exception& e) {
  if (const auto* api = dynamic_cast<const kubeapi::ApiError*>(&e))
    if (api->http_status() == 403) return "forbidden";
  return e.what();
}

/// The server's version (/version's gitVersion); throws when it cannot be reached.
Finding server_finding(KubeSession& s) {
  const kubeapi::Response r = s.transport->send({kubeapi::Method::Get, "/version"});
  const Json doc = Json::parse(r.body, nullptr, false);
  const std::string version = doc.is_object() ? doc.value("gitVersion", "") : "";
  if (r.status != 200)
    return {Verdict::Problem, "cluster",
            s.server + " answered /version with " + std::to_string(r.status)};
  return {Verdict::Ok, "cluster",
          "context " + s.context + ", " + s.server + ", Kubernetes " +
              (version.empty() ? "?" : version)};
}

/// The ready replicas of the first Deployment named `name` (its default namespace first, then
/// any namespace the listing shows), with where it was found; nullopt when there is none.
struct Operator {
  std::string where;
  long ready = 0;
};
std::optional<Operator> find_operator(kubeapi::Client& c, const Engine& e,
                                      const std::vector<Json>& deployments) {
  auto ready_of = [](const Json& d) {
    const Json& r = json_at(d, {"status", "readyReplicas"});
    return r.is_number_integer() ? r.get<long>() : 0L;
  };
  for (const Json& d : deployments)
    if (json_text(json_at(d, {"metadata", "name"})) == e.controller)
      return Operator{json_text(json_at(d, {"metadata", "namespace"})) + "/" + e.controller,
                      ready_of(d)};
  if (!deployments.empty()) return std::nullopt;  // the listing saw every namespace
  if (auto d = c.try_get(k_deployments, e.controller_namespace, e.controller))
    return Operator{std::string(e.controller_namespace) + "/" + e.controller, ready_of(*d)};
  return std::nullopt;
}

Finding engine_finding(kubeapi::Client& c, const Engine& e, bool served,
                       const std::vector<Json>& deployments, bool& usable) {
  const std::string topic = std::string("engine ") + e.name;
  if (!served)
    return {Verdict::Warning, topic,
            std::string("not served (") + e.kind + "); to use it: " + e.install};
  const auto op = find_operator(c, e, deployments);
  if (!op)
    return {Verdict::Problem, topic,
            std::string(e.kind) + " served, but no operator Deployment " + e.controller +
                " found: " + e.install};
  if (op->ready == 0)
    return {Verdict::Problem, topic,
            std::string(e.kind) + " served; operator " + op->where + " has no ready replica"};
  std::string detail = std::string(e.kind) + " served; operator " + op->where + " ready (" +
                       std::to_string(op->ready) + ")";
  if (e.id == EngineId::TrainJob) {
    if (!c.try_get(k_cluster_runtimes, "", "torch-distributed"))
      return {Verdict::Problem, topic,
              detail +
                  "; but no ClusterTrainingRuntime torch-distributed (the "
                  "runtimes overlay of Trainer v2.3.0 installs it)"};
    detail += "; runtime torch-distributed present";
  }
  usable = true;
  return {Verdict::Ok, topic, detail};
}

}  // namespace

namespace {

/// How many nodes carry each provider's spot labels.
Finding spot_finding(kubeapi::Client& c) {
  std::vector<Json> nodes;
  try {
    nodes = c.list(k_nodes, "").items;
  } catch (const Error& e) {
    return {Verdict::Warning, "spot nodes", "cannot list nodes (" + failure(e) + ")"};
  }
  std::string seen;
  for (const spot::Preset& p : spot::presets()) {
    int count = 0;
    for (const Json& n : nodes)
      for (const spot::NodeLabel& l : p.labels)
        if (json_text(json_at(n, {"metadata", "labels", std::string(l.key).c_str()})) == l.value) {
          ++count;
          break;
        }
    if (count > 0)
      seen += (seen.empty() ? "" : ", ") + std::string(p.name) + " " + std::to_string(count);
  }
  const std::string of = " of " + std::to_string(nodes.size()) + " nodes";
  if (seen.empty())
    return {Verdict::Warning, "spot nodes", "none" + of + ": --spot jobs would stay Pending"};
  return {Verdict::Ok, "spot nodes",
          seen + of + " (--spot " +
              (seen.find(',') == std::string::npos ? seen.substr(0, seen.find(' ')) : "any") + ")"};
}

Finding blob_finding(kubeapi::Client& c) {
  try {
    if (c.try_get(k_csi_drivers, "", "blob.csi.azure.com"))
      return {Verdict::Ok, "blob storage", "CSI driver blob.csi.azure.com installed"};
    return {Verdict::Warning, "blob storage",
            "no CSI driver blob.csi.azure.com: --blob volumes will not mount (AKS: az aks update "
            "--enable-blob-driver)"};
  } catch (const Error& e) {
    return {Verdict::Warning, "blob storage", "cannot read CSIDrivers (" + failure(e) + ")"};
  }
}

/// Whether the user may `verb` `resource` (group, optional subresource) in `ns`.
bool allowed(kubeapi::Client& c, const std::string& ns, const std::string& verb,
             const std::string& group, const std::string& resource, const std::string& sub = "") {
  Json attrs = {{"namespace", ns}, {"verb", verb}, {"group", group}, {"resource", resource}};
  if (!sub.empty()) attrs["subresource"] = sub;
  const Json review = {{"apiVersion", "authorization.k8s.io/v1"},
                       {"kind", "SelfSubjectAccessReview"},
                       {"spec", {{"resourceAttributes", attrs}}}};
  const Json answer = c.create(k_access_reviews, review);
  return json_at(answer, {"status", "allowed"}).is_boolean() &&
         json_at(answer, {"status", "allowed"}).get<bool>();
}

/// The namespace and what ejob may do in it with jobs of `engines`.
Finding namespace_finding(kubeapi::Client& c, const std::string& ns,
                          const std::vector<const Engine*>& engines, bool& can_submit) {
  const std::string topic = "namespace " + ns;
  if (!c.try_get(c.resource("v1", "Namespace"), "", ns))
    return {
        Verdict::Problem, topic,
        "does not exist: `kubectl create namespace " + ns + "`, or submit with --create-namespace"};
  struct Ask {
    std::string what, verb, group, resource, sub;
  };
  std::vector<Ask> asks;
  for (const Engine* e : engines) {
    const std::string api_version = e->api_version;
    asks.push_back({std::string("create ") + e->plural, "create",
                    api_version.substr(0, api_version.find('/')), e->plural, ""});
  }
  asks.push_back({"list pods", "list", "", "pods", ""});
  asks.push_back({"read logs", "get", "", "pods", "log"});
  asks.push_back({"evict pods", "create", "", "pods", "eviction"});
  std::vector<std::future<bool>> answers;
  for (const Ask& a : asks)
    answers.push_back(std::async(std::launch::async, [&c, &ns, a] {
      return allowed(c, ns, a.verb, a.group, a.resource, a.sub);
    }));
  std::string can, cannot;
  for (size_t i = 0; i < asks.size(); ++i) {
    const bool yes = answers[i].get();
    (yes ? can : cannot) += ((yes ? can : cannot).empty() ? "" : ", ") + asks[i].what;
    if (yes && i < engines.size()) can_submit = true;
  }
  if (engines.empty())
    return {Verdict::Warning, topic, "exists; no engine to submit to (see above)"};
  const std::string detail = "exists; you may " + (can.empty() ? "nothing of: " + cannot : can) +
                             (cannot.empty() || can.empty() ? "" : "; not: " + cannot);
  return {can_submit ? (cannot.empty() ? Verdict::Ok : Verdict::Warning) : Verdict::Problem, topic,
          detail};
}

/// A finding that could not be made is a problem named by its error, not the end of doctor.
template <typename Examine>
Finding guarded(const std::string& topic, Examine examine) {
  try {
    return examine();
  } catch (const std::exception& e) {
    return {Verdict::Problem, topic, "could not be checked: " + failure(e)};
  }
}

std::vector<Json> all_deployments(kubeapi::Client& c) {
  try {
    return c.list(k_deployments, "").items;
  } catch (const Error&) {
    return {};  // not allowed cluster-wide: each operator is looked for where it installs itself
  }
}

}  // namespace

DoctorReport examine_cluster(KubeSession& s, const std::string& ns) {
  kubeapi::Client& c = *s.client;
  DoctorReport report;
  report.findings.push_back(server_finding(s));  // unreachable: the command's error
  auto deployments = std::async(std::launch::async, [&c] { return all_deployments(c); });
  auto spot = std::async(std::launch::async,
                         [&c] { return guarded("spot nodes", [&c] { return spot_finding(c); }); });
  auto blob = std::async(std::launch::async, [&c] {
    return guarded("blob storage", [&c] { return blob_finding(c); });
  });
  const std::vector<const Engine*> served = served_engines(c);
  const std::vector<Json> listed = deployments.get();
  std::vector<const Engine*> usable;
  for (const Engine* e : all_engines()) {
    bool ok = false;
    const bool is_served = std::find(served.begin(), served.end(), e) != served.end();
    report.findings.push_back(guarded(std::string("engine ") + e->name, [&] {
      return engine_finding(c, *e, is_served, listed, ok);
    }));
    if (ok) usable.push_back(e);
  }
  report.findings.push_back(spot.get());
  report.findings.push_back(blob.get());
  bool can_submit = false;
  report.findings.push_back(
      guarded("namespace " + ns, [&] { return namespace_finding(c, ns, usable, can_submit); }));
  report.submit_possible = !usable.empty() && can_submit;
  return report;
}

const char* verdict_word(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "ok";
    case Verdict::Warning: return "warning";
    case Verdict::Problem: break;
  }
  return "problem";
}

}  // namespace ejob::job
