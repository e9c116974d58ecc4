#include "src/agent/launch/launch_options.hpp"

#include <cctype>
#include <cstdlib>
#include <string_view>

#include "src/util/error.hpp"

extern char** environ;

namespace ejob::agent {
namespace {

enum class Kind { Value, Flag, Help };

/// One row of the flag table: argparse's dest, its option strings and how its value is stored.
struct FlagSpec {
  const char* dest;
  std::vector<std::string> names;  // short first, then the underscore and dash spellings
  Kind kind;
  void (*store)(LaunchOptions&, const std::string& value, const std::string& display);
};

[[noreturn]] void usage_error(const std::string& message) {
  throw Error(ErrorCode::Usage, message);
}

std::string strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

int to_int(const std::string& value, const std::string& display) {
  std::string s = strip(value);
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  bool ok = i < s.size();
  for (size_t k = i; k < s.size(); ++k) ok = ok && std::isdigit(static_cast<unsigned char>(s[k]));
  if (!ok || s.size() > 10)
    usage_error("argument " + display + ": invalid int value: '" + value + "'");
  return std::stoi(s);
}

double to_float(const std::string& value, const std::string& display) {
  std::string s = strip(value);
  char* end = nullptr;
  double d = s.empty() ? 0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size())
    usage_error("argument " + display + ": invalid float value: '" + value + "'");
  return d;
}

std::string choice(const std::string& value, const std::string& display,
                   const std::vector<std::string>& choices) {
  for (const auto& c : choices)
    if (c == value) return value;
  std::string list;
  for (const auto& c : choices) list += (list.empty() ? "'" : ", '") + c + "'";
  usage_error("argument " + display + ": invalid choice: '" + value + "' (choose from " + list +
              ")");
}

#define EJOB_STR(field) \
  [](LaunchOptions& o, const std::string& v, const std::string&) { o.field = v; }
#define EJOB_INT(field) \
  [](LaunchOptions& o, const std::string& v, const std::string& d) { o.field = to_int(v, d); }
#define EJOB_FLAG(field) \
  [](LaunchOptions& o, const std::string&, const std::string&) { o.field = true; }

/// Adds the dash spelling of each underscore long name (newer torchrun accepts both).
std::vector<std::string> spellings(std::vector<std::string> names) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    out.push_back(n);
    std::string dashed = n;
    for (size_t i = 2; i < dashed.size(); ++i)
      if (dashed[i] == '_') dashed[i] = '-';
    if (dashed != n) out.push_back(dashed);
  }
  return out;
}

const std::vector<FlagSpec>& flag_table() {
  static const std::vector<FlagSpec> table = {
      {"help", {"-h", "--help"}, Kind::Help, EJOB_FLAG(help)},
      {"nnodes", {"--nnodes"}, Kind::Value, EJOB_STR(nnodes)},
      {"nproc_per_node", spellings({"--nproc_per_node"}), Kind::Value, EJOB_STR(nproc_per_node)},
      {"rdzv_backend", spellings({"--rdzv_backend"}), Kind::Value, EJOB_STR(rdzv_backend)},
      {"rdzv_endpoint", spellings({"--rdzv_endpoint"}), Kind::Value, EJOB_STR(rdzv_endpoint)},
      {"rdzv_id", spellings({"--rdzv_id"}), Kind::Value, EJOB_STR(rdzv_id)},
      {"rdzv_conf", spellings({"--rdzv_conf"}), Kind::Value, EJOB_STR(rdzv_conf)},
      {"standalone", {"--standalone"}, Kind::Flag, EJOB_FLAG(standalone)},
      {"max_restarts", spellings({"--max_restarts"}), Kind::Value, EJOB_INT(max_restarts)},
      {"monitor_interval", spellings({"--monitor_interval"}), Kind::Value,
       [](LaunchOptions& o, const std::string& v, const std::string& d) {
         o.monitor_interval = to_float(v, d);
       }},
      {"start_method", spellings({"--start_method"}), Kind::Value,
       [](LaunchOptions& o, const std::string& v, const std::string& d) {
         o.start_method = choice(v, d, {"spawn", "fork", "forkserver"});
       }},
      {"role", {"--role"}, Kind::Value, EJOB_STR(role)},
      {"module", {"-m", "--module"}, Kind::Flag, EJOB_FLAG(module)},
      {"no_python", spellings({"--no_python"}), Kind::Flag, EJOB_FLAG(no_python)},
      {"run_path", spellings({"--run_path"}), Kind::Flag, EJOB_FLAG(run_path)},
      {"log_dir", spellings({"--log_dir"}), Kind::Value, EJOB_STR(log_dir)},
      {"redirects", {"-r", "--redirects"}, Kind::Value, EJOB_STR(redirects)},
      {"tee", {"-t", "--tee"}, Kind::Value, EJOB_STR(tee)},
      {"node_rank", spellings({"--node_rank"}), Kind::Value, EJOB_INT(node_rank)},
      {"master_addr", spellings({"--master_addr"}), Kind::Value, EJOB_STR(master_addr)},
      {"master_port", spellings({"--master_port"}), Kind::Value, EJOB_INT(master_port)},
      {"local_addr", spellings({"--local_addr"}), Kind::Value, EJOB_STR(local_addr)},
      {"torch_version", spellings({"--torch_version"}), Kind::Value, EJOB_STR(torch_version)},
      {"preload", {"--preload"}, Kind::Value, EJOB_STR(preload)},
      // ejob's flags of docs/spot.md: named as the docs write them, with the dash first.
      {"spot_notices",
       {"--spot-notices", "--spot_notices"},
       Kind::Value,
       [](LaunchOptions& o, const std::string& v, const std::string& d) {
         o.spot_notices = choice(v, d, {"auto", "azure", "aws", "gce", "off"});
       }},
      {"preempt_signal",
       {"--preempt-signal", "--preempt_signal"},
       Kind::Value,
       EJOB_STR(preempt_signal)},
      {"preempt_grace",
       {"--preempt-grace", "--preempt_grace"},
       Kind::Value,
       [](LaunchOptions& o, const std::string& v, const std::string& d) {
         o.preempt_grace = to_float(v, d);
       }},
      {"spot_ack", {"--spot-ack", "--spot_ack"}, Kind::Flag, EJOB_FLAG(spot_ack)},
  };
  return table;
}

#undef EJOB_STR
#undef EJOB_INT
#undef EJOB_FLAG

/// The row of `dest`.
const FlagSpec& find_flag_exact(std::string_view dest) {
  for (const auto& f : flag_table())
    if (f.dest == dest) return f;
  throw Error(ErrorCode::Internal, "no flag " + std::string(dest));
}

/// argparse's way of naming an argument in messages: its option strings joined by '/'.
std::string display(const FlagSpec& f) {
  std::string out;
  for (const auto& n : f.names) out += (out.empty() ? "" : "/") + n;
  return out;
}

/// `PET_<DEST>` fallbacks: value flags take the string as their default, switches take
/// bool(int(value)) like torchrun's check_env action. EJOB_SPOT_NOTICES comes first: the
/// image's or the platform's choice, which a job's PET_SPOT_NOTICES and its flag override.
void apply_environment(LaunchOptions& o, const Environment& env) {
  if (auto it = env.find("EJOB_SPOT_NOTICES"); it != env.end())
    find_flag_exact("spot_notices").store(o, it->second, "EJOB_SPOT_NOTICES");
  for (const auto& f : flag_table()) {
    if (f.kind == Kind::Help) continue;
    std::string name = "PET_" + std::string(f.dest);
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto it = env.find(name);
    if (it == env.end()) continue;
    if (f.kind == Kind::Value) {
      f.store(o, it->second, display(f));
    } else if (to_int(it->second, name) != 0) {
      f.store(o, "", display(f));
    }
  }
}

/// ejob-agent's own flags, which torchrun does not have.
bool ejob_only(const FlagSpec& f) {
  for (std::string_view own :
       {"torch_version", "preload", "spot_notices", "preempt_signal", "preempt_grace", "spot_ack"})
    if (f.dest == own) return true;
  return false;
}

/// The flag of which `option` is a unique prefix among torchrun's flags (ejob_own false)
/// or among ejob's own (true); nullptr when none.
const FlagSpec* find_prefix(const std::string& option, bool ejob_own) {
  const FlagSpec* found = nullptr;
  std::string matches;
  bool ambiguous = false;
  for (const auto& f : flag_table()) {
    if (ejob_only(f) != ejob_own) continue;
    bool hit = false;
    for (const auto& n : f.names) {
      if (n.rfind(option, 0) != 0) continue;
      matches += (matches.empty() ? "" : ", ") + n;
      hit = true;
    }
    if (hit && found != nullptr) ambiguous = true;
    if (hit) found = &f;
  }
  if (ambiguous) usage_error("ambiguous option: " + option + " could match " + matches);
  return found;
}

/// Finds the flag an option string names: exact, else a unique prefix of a long name. A prefix
/// is read as torchrun reads it, among torchrun's flags (`--t` is `--tee`, as in torchrun);
/// ejob's own flags only take prefixes that name no torchrun flag.
const FlagSpec* find_flag(const std::string& option) {
  for (const auto& f : flag_table())
    for (const auto& n : f.names)
      if (n == option) return &f;
  if (option.size() < 3 || option.rfind("--", 0) != 0) return nullptr;
  if (const FlagSpec* f = find_prefix(option, false)) return f;
  return find_prefix(option, true);
}

bool looks_like_negative_number(const std::string& s) {
  if (s.size() < 2 || s[0] != '-') return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

/// Splits `--flag=value` / `-rVALUE`; returns the option part and sets `inline_value`.
std::string split_option(const std::string& arg, std::optional<std::string>& inline_value) {
  size_t eq = arg.find('=');
  if (eq != std::string::npos) {
    inline_value = arg.substr(eq + 1);
    return arg.substr(0, eq);
  }
  if (arg.rfind("--", 0) != 0 && arg.size() > 2) {
    inline_value = arg.substr(2);
    return arg.substr(0, 2);
  }
  return arg;
}

}  // namespace

Environment current_environment() {
  Environment env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq != std::string_view::npos) env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
  }
  return env;
}

LaunchOptions parse_launch_options(const std::vector<std::string>& args, const Environment& env) {
  LaunchOptions o;
  apply_environment(o, env);
  std::vector<std::string> unknown;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-' || looks_like_negative_number(arg)) break;
    std::optional<std::string> inline_value;
    std::string option = split_option(arg, inline_value);
    const FlagSpec* f = find_flag(option);
    if (f == nullptr && inline_value && option.rfind("--", 0) != 0) {
      f = find_flag(arg);  // a short option spelled without a value, e.g. an unknown "-xyz"
      inline_value.reset();
    }
    if (f == nullptr) {
      unknown.push_back(arg);
      continue;
    }
    if (f->kind != Kind::Value) {
      if (inline_value)
        usage_error("argument " + display(*f) + ": ignored explicit argument '" + *inline_value +
                    "'");
      f->store(o, "", display(*f));
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size() || (args[i + 1].size() > 1 && args[i + 1][0] == '-' &&
                                   !looks_like_negative_number(args[i + 1])))
        usage_error("argument " + display(*f) + ": expected one argument");
      inline_value = args[++i];
    }
    f->store(o, *inline_value, display(*f));
  }
  if (!unknown.empty()) {
    std::string list;
    for (const auto& u : unknown) list += (list.empty() ? "" : " ") + u;
    usage_error("unrecognized arguments: " + list);
  }
  if (i < args.size()) {
    o.training_script = args[i];
    o.training_script_args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  } else if (!o.help) {
    usage_error("the following arguments are required: training_script, training_script_args");
  }
  return o;
}

std::string launch_usage() {
  return R"(usage: ejob-agent [-h] [--nnodes NNODES] [--nproc_per_node NPROC_PER_NODE]
                  [--rdzv_backend RDZV_BACKEND] [--rdzv_endpoint RDZV_ENDPOINT]
                  [--rdzv_id RDZV_ID] [--rdzv_conf RDZV_CONF] [--standalone]
                  [--max_restarts MAX_RESTARTS] [--monitor_interval MONITOR_INTERVAL]
                  [--start_method {spawn,fork,forkserver}] [--role ROLE] [-m] [--no_python]
                  [--run_path] [--log_dir LOG_DIR] [-r REDIRECTS] [-t TEE]
                  [--node_rank NODE_RANK] [--master_addr MASTER_ADDR]
                  [--master_port MASTER_PORT] [--local_addr LOCAL_ADDR]
                  [--torch_version TORCH_VERSION] [--preload MODULES]
                  [--spot-notices {auto,azure,aws,gce,off}] [--preempt-signal SIGNAL]
                  [--preempt-grace SECONDS] [--spot-ack]
                  training_script ...

A drop-in for torchrun (torch.distributed.run 1.13) that joins the same etcd rendezvous.
Every flag also accepts its dash spelling (--nproc-per-node), a unique prefix (--nproc=2) and
the environment fallback PET_<FLAG> (PET_NNODES=2); the command line wins.

  --nnodes N|MIN:MAX        number of nodes, or the elastic range (default 1:1)
  --nproc_per_node N|cpu|gpu|auto   workers per node (default 1)
  --rdzv_backend etcd|static        rendezvous backend (default static)
  --rdzv_endpoint HOST[:PORT]       etcd endpoint (default port 2379)
  --rdzv_id ID              job id shared by all nodes (default none)
  --rdzv_conf K=V,...       timeout, last_call_timeout, etcd_prefix, protocol, cacert, cert, key
  --standalone              single node, no etcd: c10d on localhost:29400, a random run id
  --max_restarts N          worker group restarts before failing (default 0)
  --monitor_interval S      accepted for compatibility; worker exits are seen at once
  --start_method M          accepted for compatibility (spawn, fork, forkserver)
  --role ROLE               user-defined role of the workers (default default)
  -m, --module              run the script as a module: python -u -m SCRIPT
  --no_python               exec the script directly instead of through python
  --run_path                run the script with python (torchrun runs it in-process)
  --log_dir DIR             base directory for worker logs and error files
  -r, --redirects 0|1|2|3|R:S,...   redirect worker stdout(1)/stderr(2)/both(3) to files
  -t, --tee 0|1|2|3|R:S,...         tee worker output to files and to the console
  --node_rank R             static backend: this node's rank (default 0)
  --master_addr ADDR        static backend: address of node 0 (default 127.0.0.1)
  --master_port PORT        static backend: port of node 0 (default 29500)
  --local_addr ADDR         etcd backend: the address this node publishes as MASTER_ADDR when
                            it is group rank 0 (torch >= 2.0's flag; default: its FQDN)
  --torch_version V         the torch the workers (and the torchrun agents beside this one) run,
                            1.13 or 2.x: the store protocol, state and worker environment
                            spoken (ejob's flag; default: read from the worker's python, else
                            1.13)
  --preload M1,M2,...       start each worker's python while the round forms and import these
                            modules there (e.g. torch); the script runs once the round is
                            complete (ejob's flag; docs/agent.md, Warm workers)
  --spot-notices auto|azure|aws|gce|off   where the cloud announces that this spot VM goes:
                            on a notice the workers find EJOB_PREEMPT_FILE written and get
                            --preempt-signal, the agent leaves the rendezvous and exits 143
                            (ejob's flag, also EJOB_SPOT_NOTICES; default auto; docs/spot.md)
  --preempt-signal SIGNAL   sent to each worker on a notice: a name, a number or none
                            (default SIGTERM)
  --preempt-grace SECONDS   the workers must exit this long before the deadline; the agent
                            kills what is left then (default 5)
  --spot-ack                Azure: acknowledge the event once the agent left, so the VM may go

The worker interpreter is $PYTHON_EXEC, else python3. "${local_rank}" in script arguments is
replaced by each worker's local rank.
)";
}

}  // namespace ejob::agent
