#include "src/job/job_describe.hpp"

#include <algorithm>
#include <set>

#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/job/job_table.hpp"
#include "src/job/local_backend.hpp"
#include "src/kubeapi/exec_plugin.hpp"

namespace ejob::job {

using kubeapi::Json;
using Clock = std::chrono::system_clock;

namespace {

std::string or_none(const std::string& s) { return s.empty() ? "<none>" : s; }

/// The age of an RFC 3339 time at `now`; "" when there is none.
std::string age_of(const std::string& time, Clock::time_point now) {
  auto t = kubeapi::parse_rfc3339(time);
  if (!t) return "";
  return format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

/// A pod's STATUS as kubectl get pods shows it (the common cases): Terminating, the waiting
/// or terminated reason of a container, the pod's reason (Evicted), else its phase.
std::string pod_status_word(const Json& pod) {
  if (!json_at(pod, {"metadata", "deletionTimestamp"}).is_null()) return "Terminating";
  if (std::string reason = json_text(json_at(pod, {"status", "reason"})); !reason.empty())
    return reason;
  const Json& statuses = json_at(pod, {"status", "containerStatuses"});
  if (statuses.is_array())
    for (const Json& s : statuses) {
      if (std::string w = json_text(json_at(s, {"state", "waiting", "reason"})); !w.empty())
        return w;
      if (std::string t = json_text(json_at(s, {"state", "terminated", "reason"})); !t.empty())
        return t;
    }
  return or_none(json_text(json_at(pod, {"status", "phase"})));
}

/// "key=value:effect" per toleration, as kubectl describe pod shows them.
std::string tolerations_text(const Json& spec) {
  std::string out;
  const Json& list = json_at(spec, {"tolerations"});
  if (!list.is_array()) return out;
  for (const Json& t : list) {
    std::string one = json_text(t.value("key", Json()));
    if (std::string op = json_text(t.value("operator", Json())); op == "Exists")
      one += one.empty() ? "op=Exists" : " op=Exists";
    else if (std::string v = json_text(t.value("value", Json())); !v.empty())
      one += "=" + v;
    if (std::string e = json_text(t.value("effect", Json())); !e.empty()) one += ":" + e;
    out += (out.empty() ? "" : ", ") + one;
  }
  return out;
}

std::string map_text(const Json& map) {
  std::string out;
  if (map.is_object())
    for (const auto& [k, v] : map.items())
      out += (out.empty() ? "" : ", ") + k + "=" + json_text(v);
  return out;
}

/// The node affinity's required terms in short: "key In (a, b)" ORed with " | ".
std::string node_affinity_text(const Json& spec) {
  const Json& terms =
      json_at(spec, {"affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution",
                     "nodeSelectorTerms"});
  std::string out;
  if (!terms.is_array()) return out;
  for (const Json& term : terms) {
    std::string one;
    for (const Json& e : term.value("matchExpressions", Json::array())) {
      std::string values;
      for (const Json& v : e.value("values", Json::array()))
        values += (values.empty() ? "" : ", ") + json_text(v);
      one += (one.empty() ? "" : " and ") + json_text(e.value("key", Json())) + " " +
             json_text(e.value("operator", Json())) + (values.empty() ? "" : " (" + values + ")");
    }
    out += (out.empty() ? "" : " | ") + one;
  }
  return out;
}

/// The table as kubectl prints it inside describe: indented by two spaces.
std::string indented_table(const std::vector<Row>& rows) {
  std::string out;
  const std::string table = format_table(rows);
  size_t start = 0;
  for (size_t nl; (nl = table.find('\n', start)) != std::string::npos; start = nl + 1)
    out += "  " + table.substr(start, nl - start) + "\n";
  return out;
}

void field(std::string& out, const char* name, const std::string& value) {
  std::string label = std::string(name) + ":";
  label.resize(std::max<size_t>(label.size() + 1, 17), ' ');
  out += label + value + "\n";
}

/// A worker count of the job's status: 0 until an operator has written one (a job no
/// controller acts on has no status at all).
long count_at(const Json& counts, const char* key) {
  const Json& n = json_at(counts, {key});
  return n.is_number_integer() ? n.get<long>() : 0;
}

}  // namespace

std::string event_age(const Json& ev, Clock::time_point now) {
  const std::string last = age_of(event_time(ev), now);
  const long count = ev.value("count", Json(1)).is_number() ? ev.value("count", 1L) : 1L;
  const long series = json_at(ev, {"series", "count"}).is_number()
                          ? json_at(ev, {"series", "count"}).get<long>()
                          : 0;
  const long times = std::max(count, series);
  if (times <= 1) return or_none(last);
  return or_none(last) + " (x" + std::to_string(times) + " over " +
         or_none(age_of(event_first_time(ev), now)) + ")";
}

namespace {

/// Name, namespace, status and the job's times.
void describe_header(std::string& out, const Json& job, Clock::time_point now) {
  field(out, "Name", json_text(json_at(job, {"metadata", "name"})));
  field(out, "Namespace", json_text(json_at(job, {"metadata", "namespace"})));
  const Engine& engine = job_engine(job);
  field(out, "Engine",
        std::string(engine.name) + " (" + engine.kind + " " +
            json_text(json_at(job, {"apiVersion"})) + ", " + engine.project + ")");
  field(out, "Status", job_status(job));
  const std::string created = json_text(json_at(job, {"metadata", "creationTimestamp"}));
  field(out, "Created",
        or_none(created) + (created.empty() ? "" : " (" + age_of(created, now) + " ago)"));
  if (std::string done = json_text(json_at(job, {"status", "completionTime"})); !done.empty())
    field(out, "Completed", done + " (" + age_of(done, now) + " ago)");
}

/// The pod template of the job's workers: ElasticJob's replicaSpecs.Worker, PyTorchJob's
/// pytorchReplicaSpecs.Worker; a TrainJob's from its JobSet's first replicated job once the
/// controller has made it (the runtime's template with the job's overrides), else none.
Json worker_template(const Engine& e, const JobView& view) {
  switch (e.id) {
    case EngineId::PyTorchJob:
      return json_at(view.job, {"spec", "pytorchReplicaSpecs", "Worker", "template"});
    case EngineId::TrainJob:
      for (const Json& o : view.runs)
        if (json_text(json_at(o, {"kind"})) == "JobSet") {
          const Json& rjobs = json_at(o, {"spec", "replicatedJobs"});
          if (rjobs.is_array() && !rjobs.empty())
            return json_at(rjobs[0], {"template", "spec", "template"});
        }
      return Json::object();
    case EngineId::ElasticJob: break;
  }
  return json_at(view.job, {"spec", "replicaSpecs", "Worker", "template"});
}

/// The first container of a pod template; for a TrainJob without its JobSet yet, the trainer.
Json worker_container(const Engine& e, const JobView& view, const Json& pod_spec) {
  const Json& containers = json_at(pod_spec, {"containers"});
  if (containers.is_array() && !containers.empty()) return containers[0];
  if (e.id != EngineId::TrainJob) return Json::object();
  const Json& trainer = json_at(view.job, {"spec", "trainer"});
  Json c = trainer.is_object() ? trainer : Json::object();
  if (const Json& r = json_at(trainer, {"resourcesPerNode"}); r.is_object()) c["resources"] = r;
  return c;
}

void table_section(std::string& out, const char* title, const std::vector<Row>& rows);

/// Where the workers meet: ElasticJob's etcd (and its pod), PyTorchJob's c10d store on
/// worker 0, a TrainJob's static master (node 0).
std::string rendezvous_text(const Engine& e, const JobView& view) {
  const std::string name = json_text(json_at(view.job, {"metadata", "name"}));
  if (e.id == EngineId::PyTorchJob) {
    const Json& policy = json_at(view.job, {"spec", "elasticPolicy"});
    const std::string backend = json_text(json_at(policy, {"rdzvBackend"}));
    const std::string port = json_text(json_at(policy, {"rdzvPort"}));
    return (backend.empty() ? "c10d" : backend) + " " + name +
           "-worker-0:" + (port.empty() ? "<its pytorchjob-port>" : port) +
           " (worker 0 hosts the store)";
  }
  if (e.id == EngineId::TrainJob)
    return "static, master " + name + "-node-0-0." + name + " (node 0)";
  std::string rdzv = or_none(json_text(json_at(view.job, {"spec", "rdzvEndpoint"})));
  for (const Json& pod : view.own_pods)
    rdzv += " (pod " + json_text(json_at(pod, {"metadata", "name"})) + ": " + pod_status_word(pod) +
            ")";
  return rdzv;
}

std::string arg_text(const Json& first) {
  std::string args;
  for (const char* key : {"command", "args"})
    if (const Json& list = json_at(first, {key}); list.is_array())
      for (const Json& a : list) args += (args.empty() ? "" : " ") + json_text(a);
  return args;
}

/// What the workers run and where: image, args, counts, resources, placement, rendezvous.
void describe_worker_spec(std::string& out, const JobView& view) {
  const Engine& engine = job_engine(view.job);
  const Json pod_template = worker_template(engine, view);
  const Json& pod_spec = json_at(pod_template, {"spec"});
  const Json first = worker_container(engine, view, pod_spec);
  const Json& counts = json_at(view.job, {"status", "replicaStatuses", "Worker"});
  const WorkerRange range = worker_range(engine, view.job);
  const Json& worker = engine.id == EngineId::PyTorchJob
                           ? json_at(view.job, {"spec", "pytorchReplicaSpecs", "Worker"})
                           : json_at(view.job, {"spec", "replicaSpecs", "Worker"});
  field(out, "Image", or_none(json_text(json_at(first, {"image"}))));
  field(out, "Args", or_none(arg_text(first)));
  field(out, "Workers",
        "min " + std::to_string(range.min) + ", max " + std::to_string(range.max) + ", desired " +
            std::to_string(range.desired) + "; active " +
            std::to_string(count_at(counts, "active")) + ", succeeded " +
            std::to_string(count_at(counts, "succeeded")) + ", failed " +
            std::to_string(count_at(counts, "failed")));
  field(out, "Restart policy", or_none(json_text(json_at(worker, {"restartPolicy"}))));
  field(out, "Limits", or_none(map_text(json_at(first, {"resources", "limits"}))));
  field(out, "Requests", or_none(map_text(json_at(first, {"resources", "requests"}))));
  field(out, "Node-Selectors", or_none(map_text(json_at(pod_spec, {"nodeSelector"}))));
  if (std::string aff = node_affinity_text(pod_spec); !aff.empty())
    field(out, "Node-Affinity", aff);
  field(out, "Tolerations", or_none(tolerations_text(pod_spec)));
  field(out, "Rendezvous", rendezvous_text(engine, view));
}

/// A TrainJob's JobSet and Jobs, with their counts and state.
void describe_runs(std::string& out, const JobView& view, Clock::time_point now) {
  if (job_engine(view.job).id != EngineId::TrainJob) return;
  std::vector<Row> rows = {{"KIND", "NAME", "STATUS", "ACTIVE", "SUCCEEDED", "FAILED", "AGE"}};
  for (const Json& o : view.runs) {
    const Json& st = json_at(o, {"status"});
    rows.push_back({json_text(json_at(o, {"kind"})), json_text(json_at(o, {"metadata", "name"})),
                    job_status(o), std::to_string(count_at(st, "active")),
                    std::to_string(count_at(st, "succeeded")),
                    std::to_string(count_at(st, "failed")), object_age(o, now)});
  }
  table_section(out, "JobSet and Jobs", rows);
}

/// A section that is a table (its title, then the rows indented), or `TITLE: <none>`.
void table_section(std::string& out, const char* title, const std::vector<Row>& rows) {
  if (rows.size() <= 1) {
    field(out, title, "<none>");
    return;
  }
  out += std::string(title) + ":\n";
  out += indented_table(rows);
}

void describe_conditions(std::string& out, const Json& job, Clock::time_point now) {
  std::vector<Row> rows = {{"TYPE", "STATUS", "REASON", "AGE", "MESSAGE"}};
  if (const Json& conditions = json_at(job, {"status", "conditions"}); conditions.is_array())
    for (const Json& c : conditions)
      rows.push_back({json_text(c.value("type", Json())), json_text(c.value("status", Json())),
                      json_text(c.value("reason", Json())),
                      or_none(age_of(json_text(c.value("lastTransitionTime", Json())), now)),
                      json_text(c.value("message", Json()))});
  table_section(out, "Conditions", rows);
}

/// The current worker pods and how often their containers restarted.
void describe_worker_pods(std::string& out, const JobView& view, Clock::time_point now) {
  std::vector<Row> rows = {{"NAME", "STATUS", "RESTARTS", "NODE", "IP", "AGE"}};
  for (const Json& pod : view.workers)
    rows.push_back({json_text(json_at(pod, {"metadata", "name"})), pod_status_word(pod),
                    std::to_string(pod_restarts(pod)),
                    or_none(json_text(json_at(pod, {"spec", "nodeName"}))),
                    or_none(json_text(json_at(pod, {"status", "podIP"}))), object_age(pod, now)});
  table_section(out, "Worker pods", rows);
  int restarts = 0;
  for (const Json& pod : view.workers) restarts += pod_restarts(pod);
  field(out, "Restarts", std::to_string(restarts) + " (containers restarted in the current pods)");
}

/// The evictions, then preemptions and failures counted apart: a preempted worker is made
/// again and costs the job a re-rendezvous, a failed one uses up its restarts.
void describe_evictions(std::string& out, const JobView& view, Clock::time_point now) {
  std::vector<Row> rows = {{"POD", "AGE", "WHY"}};
  const std::vector<Eviction> evictions = job_evictions(view);
  for (const Eviction& e : evictions) rows.push_back({e.pod, or_none(age_of(e.time, now)), e.why});
  table_section(out, "Evictions", rows);
  int failures = 0;
  for (const Json& pod : view.workers) {
    failures += pod_restarts(pod);
    failures += json_text(json_at(pod, {"status", "phase"})) == "Failed" && !disruption_of(pod);
  }
  field(out, "Preemptions", std::to_string(evictions.size()) + " (workers evicted or preempted)");
  field(out, "Failures",
        std::to_string(failures) + " (worker containers restarted or pods failed, not preempted)");
}

void describe_events(std::string& out, const JobView& view, Clock::time_point now) {
  std::vector<Row> rows = {{"TYPE", "REASON", "AGE", "FROM", "OBJECT", "MESSAGE"}};
  for (const Json& ev : job_events(view.job, view.events)) {
    std::string from = json_text(json_at(ev, {"source", "component"}));
    if (from.empty()) from = json_text(ev.value("reportingComponent", Json()));
    std::string kind = json_text(json_at(ev, {"involvedObject", "kind"}));
    std::transform(kind.begin(), kind.end(), kind.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    rows.push_back({json_text(ev.value("type", Json())), json_text(ev.value("reason", Json())),
                    event_age(ev, now), or_none(from),
                    kind + "/" + json_text(json_at(ev, {"involvedObject", "name"})),
                    json_text(ev.value("message", Json()))});
  }
  table_section(out, "Events", rows);
}

}  // namespace

std::string describe_job(const JobView& view, Clock::time_point now) {
  std::string out;
  describe_header(out, view.job, now);
  describe_worker_spec(out, view);
  describe_conditions(out, view.job, now);
  describe_runs(out, view, now);
  describe_worker_pods(out, view, now);
  describe_evictions(out, view, now);
  describe_events(out, view, now);
  return out;
}

namespace {

std::string age_since(const std::string& rfc3339, Clock::time_point now) {
  return rfc3339.empty() ? "" : or_none(age_of(rfc3339, now));
}

/// "round 2 final, 2 participants" from the etcd rendezvous's active-version state.
std::string round_text(const local::JobView& v) {
  if (v.round.is_null()) return v.round_note;
  const Json& participants = json_at(v.round, {"participants"});
  std::string out = "round " + json_text(json_at(v.round, {"version"})) + " " +
                    json_text(json_at(v.round, {"status"}));
  if (participants.is_array()) out += ", " + std::to_string(participants.size()) + " participants";
  return out;
}

std::string node_table(const local::JobView& v, Clock::time_point now) {
  std::vector<Row> rows = {{"NAME", "STATUS", "RESTARTS", "PREEMPTIONS", "EXIT", "PID", "AGE"}};
  for (const local::NodeState& n : v.state.nodes)
    rows.push_back({"worker-" + std::to_string(n.index), n.status, std::to_string(n.restarts),
                    std::to_string(n.evictions), n.exit_code ? std::to_string(*n.exit_code) : "-",
                    n.pid ? std::to_string(n.pid) : "-", or_none(age_since(n.started, now))});
  return indented_table(rows);
}

std::string local_events(const local::JobView& v, Clock::time_point now) {
  std::vector<Row> rows = {{"TYPE", "REASON", "AGE", "MESSAGE"}};
  for (const local::Event& e : v.events)
    rows.push_back({e.type, e.reason, or_none(age_since(e.time, now)), e.message});
  return indented_table(rows);
}

}  // namespace

std::string describe_local_job(const local::JobView& v, Clock::time_point now) {
  const local::JobState& s = v.state;
  std::string out;
  field(out, "Name", s.name);
  field(out, "Where", "local, " + local::job_dir(s.name).string());
  field(out, "Status",
        local::phase_name(s.phase) + (s.message.empty() ? "" : " (" + s.message + ")"));
  field(out, "Created",
        or_none(s.created) + (s.created.empty() ? "" : " (" + age_since(s.created, now) + " ago)"));
  if (!s.finished.empty())
    field(out, "Completed", s.finished + " (" + age_since(s.finished, now) + " ago)");
  std::string args;
  for (const std::string& a : v.launch.args) args += (args.empty() ? "" : " ") + a;
  field(out, "Agent", v.launch.agent);
  field(out, "Args", or_none(args));
  field(out, "Workers",
        "min " + std::to_string(s.min_nodes) + ", max " + std::to_string(s.max_nodes) +
            ", desired " + std::to_string(s.desired_nodes));
  field(out, "Supervisor", s.supervisor_pid ? "pid " + std::to_string(s.supervisor_pid) : "<none>");
  field(out, "Engine", s.engine);
  field(out, "Rendezvous",
        s.engine == "elasticjob" ? "etcd " + or_none(s.etcd_endpoint) + ": " + round_text(v)
                                 : local::rendezvous_text(s));
  if (s.nodes.empty())
    field(out, "Worker nodes", "<none>");
  else
    out += "Worker nodes:\n" + node_table(v, now);
  int notices = 0;
  for (const local::NodeState& n : s.nodes) notices += n.notices;
  field(out, "Preemptions",
        std::to_string(local::preemptions(s)) + " (" + std::to_string(notices) +
            " announced by a notice)");
  field(out, "Failures", std::to_string(local::failures(s)));
  if (v.events.empty())
    field(out, "Events", "<none>");
  else
    out += "Events:\n" + local_events(v, now);
  return out;
}

std::string describe_text(const Description& d, Clock::time_point now) {
  if (const auto* local = std::get_if<local::JobView>(&d)) return describe_local_job(*local, now);
  return describe_job(std::get<JobView>(d), now);
}

std::vector<Json> described_objects(const Description& d) {
  if (const auto* local = std::get_if<local::JobView>(&d)) return {local_job_object(local->state)};
  const JobView& view = std::get<JobView>(d);
  std::vector<Json> objects = {view.job};
  for (const auto* list : {&view.runs, &view.own_pods, &view.workers})
    objects.insert(objects.end(), list->begin(), list->end());
  for (Json& ev : job_events(view.job, view.events)) objects.push_back(std::move(ev));
  return objects;
}

}  // namespace ejob::job
