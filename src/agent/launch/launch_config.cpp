#include "src/agent/launch/launch_config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>

#include "src/agent/launch/torch_version.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

[[noreturn]] void usage(const std::string& message) { throw Error(ErrorCode::Usage, message); }

bool parse_int(const std::string& s, int& out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  out = std::stoi(s);
  return true;
}

void parse_nnodes(const std::string& text, int& min_nodes, int& max_nodes) {
  size_t colon = text.find(':');
  bool ok = colon == std::string::npos ? parse_int(text, min_nodes) && parse_int(text, max_nodes)
                                       : text.find(':', colon + 1) == std::string::npos &&
                                             parse_int(text.substr(0, colon), min_nodes) &&
                                             parse_int(text.substr(colon + 1), max_nodes);
  if (!ok) usage("--nnodes=" + text + " is not in \"N\" or \"MIN:MAX\" format");
  if (min_nodes <= 0 || min_nodes > max_nodes)
    usage("--nnodes=" + text + ": expected 0 < MIN <= MAX");
}

int resolve_nproc(const std::string& text, const HostInfo& host) {
  int n = 0;
  if (parse_int(text, n)) {
    if (n <= 0) usage("--nproc_per_node=" + text + ": must be at least 1");
    return n;
  }
  if (text == "cpu") return host.cpu_count;
  if (text == "gpu") {
    if (host.gpu_count == 0)
      usage(
          "--nproc_per_node=gpu: Cuda is not available (no GPU in /proc/driver/nvidia/gpus "
          "or CUDA_VISIBLE_DEVICES)");
    return host.gpu_count;
  }
  if (text == "auto") return host.gpu_count > 0 ? host.gpu_count : host.cpu_count;
  usage("Unsupported nproc_per_node value: " + text);
}

Backend resolve_backend(const std::string& name) {
  if (name == "etcd") return Backend::Etcd;
  if (name == "static") return Backend::Static;
  if (name == "c10d") return Backend::C10d;
  if (name == "etcd-v2") return Backend::EtcdV2;
  usage("--rdzv_backend=" + name +
        ": unknown rendezvous backend (supported: c10d, etcd, etcd-v2, static)");
}

std::string random_id() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) id += '-';
    id += hex[rd() % 16];
  }
  return id;
}

std::vector<std::string> command_of(const LaunchOptions& o, const Environment& env) {
  auto it = env.find("PYTHON_EXEC");
  std::string python = it != env.end() && !it->second.empty() ? it->second : "python3";
  std::vector<std::string> cmd;
  if (o.run_path) {
    cmd = {python, "-u", o.training_script};
  } else if (o.no_python) {
    if (o.module)
      usage("Don't use both the '--no_python' flag and the '--module' flag at the same time.");
    cmd = {o.training_script};
  } else {
    cmd = {python, "-u"};
    if (o.module) cmd.push_back("-m");
    cmd.push_back(o.training_script);
  }
  cmd.insert(cmd.end(), o.training_script_args.begin(), o.training_script_args.end());
  return cmd;
}

}  // namespace

HostInfo detect_host(const Environment& env, const std::string& gpu_proc_dir) {
  HostInfo h;
  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  h.cpu_count = cpus > 0 ? static_cast<int>(cpus) : 1;
  int physical = 0;
  std::error_code ec;
  for (auto it = std::filesystem::directory_iterator(gpu_proc_dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
    ++physical;
  h.gpu_count = physical;
  auto cvd = env.find("CUDA_VISIBLE_DEVICES");
  if (physical > 0 && cvd != env.end()) {
    int visible = 0;
    std::string list = cvd->second + ",";
    size_t start = 0;
    for (size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1) {
      std::string entry = list.substr(start, comma - start);
      while (!entry.empty() && std::isspace(static_cast<unsigned char>(entry.front())))
        entry.erase(0, 1);
      if (entry.empty() || entry[0] == '-') break;
      ++visible;
    }
    h.gpu_count = std::min(visible, physical);
  }
  return h;
}

std::vector<StdStreams> parse_std_streams(const std::string& text, int nproc) {
  auto bad = [&] { usage(text + " does not match: <^[0123]$> or <^(\\d:[0123],)*(\\d:[0123])$>"); };
  auto value = [&](char c) {
    if (c < '0' || c > '3') bad();
    return static_cast<StdStreams>(c - '0');
  };
  if (text.size() == 1) return std::vector<StdStreams>(static_cast<size_t>(nproc), value(text[0]));
  std::vector<StdStreams> out(static_cast<size_t>(nproc), StdStreams::None);
  if (text.empty() || (text.size() + 1) % 4 != 0) bad();
  for (size_t i = 0; i < text.size(); i += 4) {
    if (!std::isdigit(static_cast<unsigned char>(text[i])) || text[i + 1] != ':' ||
        (i + 3 < text.size() && text[i + 3] != ','))
      bad();
    int rank = text[i] - '0';
    StdStreams v = value(text[i + 2]);
    if (rank < nproc) out[static_cast<size_t>(rank)] = v;
  }
  return out;
}

std::optional<int> parse_signal(const std::string& text) {
  std::string upper;
  for (char ch : text) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper == "NONE" || upper == "0") return 0;
  if (!upper.empty() && std::all_of(upper.begin(), upper.end(), ::isdigit))
    return upper.size() <= 2 && std::stoi(upper) < NSIG ? std::optional(std::stoi(upper))
                                                        : std::nullopt;
  std::string_view name = upper.rfind("SIG", 0) == 0 ? std::string_view(upper).substr(3) : upper;
  for (int sig = 1; sig < NSIG; ++sig)
    if (const char* abbrev = sigabbrev_np(sig); abbrev != nullptr && name == abbrev) return sig;
  return std::nullopt;
}

namespace {

/// --spot-notices (a valid word already), --preempt-signal, --preempt-grace, --spot-ack.
void set_preemption(const LaunchOptions& o, LaunchConfig& c) {
  std::optional<int> sig = parse_signal(o.preempt_signal);
  if (!sig)
    usage("--preempt-signal=" + o.preempt_signal +
          ": not a signal (a name such as SIGTERM or SIGUSR1, a number, or none)");
  if (*sig == SIGKILL || *sig == SIGSTOP)
    usage("--preempt-signal=" + o.preempt_signal +
          ": a worker cannot catch it, so it could not checkpoint");
  if (o.preempt_grace < 0 || o.preempt_grace > 3600) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%g", o.preempt_grace);
    usage(std::string("--preempt-grace=") + seconds + ": must be 0 to 3600 seconds");
  }
  c.spot_notices = o.spot_notices;
  c.preempt_signal = *sig;
  c.preempt_grace = std::chrono::milliseconds(static_cast<long>(o.preempt_grace * 1000));
  c.spot_ack = o.spot_ack;
}

}  // namespace

LaunchConfig make_launch_config(const LaunchOptions& o, const Environment& env,
                                const HostInfo& host) {
  LaunchConfig c;
  parse_nnodes(o.nnodes, c.min_nodes, c.max_nodes);
  if (o.max_restarts < 0)
    usage("--max_restarts=" + std::to_string(o.max_restarts) + ": must be >= 0");
  c.nproc_per_node = resolve_nproc(o.nproc_per_node, host);
  std::string rdzv_endpoint = o.rdzv_endpoint;
  if (o.standalone) {
    if (c.min_nodes > 1)
      usage("--standalone runs a single node, but --nnodes=" + o.nnodes + " needs at least " +
            std::to_string(c.min_nodes));
    // As torchrun: a c10d rendezvous on this machine under a fresh id (a second standalone
    // job here finds the port taken and joins that store as a client, under its own id).
    c.min_nodes = c.max_nodes = 1;
    c.backend = Backend::C10d;
    c.run_id = random_id();
    rdzv_endpoint = "localhost:29400";
  } else {
    c.backend = resolve_backend(o.rdzv_backend);
    c.run_id = o.rdzv_id;
  }
  std::map<std::string, std::string> conf = parse_rdzv_conf(o.rdzv_conf);
  if (c.backend == Backend::Etcd) {
    c.etcd = etcd_settings(conf);
    c.endpoint = parse_endpoint(o.rdzv_endpoint, 2379);
  } else if (c.backend == Backend::C10d || c.backend == Backend::EtcdV2) {
    c.dynamic = dynamic_settings(conf);
    bool v2 = c.backend == Backend::EtcdV2;
    c.endpoint = parse_endpoint(rdzv_endpoint, v2 ? 2379 : 29400);
    if (v2) c.etcd = etcd_v2_settings(conf);
    if (c.run_id.empty()) usage("The run id must be a non-empty string.");
  } else {
    if (c.min_nodes != c.max_nodes)
      usage("--rdzv_backend=static needs a fixed --nnodes, not " + o.nnodes);
    if (o.node_rank < 0 || o.node_rank >= c.max_nodes)
      usage("--node_rank=" + std::to_string(o.node_rank) + " is not in [0, " +
            std::to_string(c.max_nodes) + ")");
  }
  c.max_restarts = o.max_restarts;
  c.monitor_interval = o.monitor_interval;
  c.role = o.role;
  c.log_dir = o.log_dir;
  c.redirects = parse_std_streams(o.redirects, c.nproc_per_node);
  c.tee = parse_std_streams(o.tee, c.nproc_per_node);
  c.node_rank = o.standalone ? 0 : o.node_rank;
  c.master_addr = o.master_addr;
  c.master_port = o.master_port;
  c.local_addr = o.local_addr;
  // A standalone node is alone: its workers reach their master on the loopback, whatever this
  // machine's name resolves to (torchrun uses the FQDN, and its workers hang where the name
  // does not resolve, as in a minimal container).
  if (o.standalone && !c.local_addr) c.local_addr = "127.0.0.1";
  if (c.backend == Backend::Static && !o.rdzv_endpoint.empty()) {
    Endpoint e = parse_endpoint(o.rdzv_endpoint, o.master_port);
    c.master_addr = e.host;
    c.master_port = e.port;
  }
  c.command = command_of(o, env);
  if (!o.preload.empty() && o.no_python && !o.run_path)
    usage("--preload needs a python worker; it cannot be used with --no_python.");
  c.preload = o.preload;
  set_preemption(o, c);
  if (o.torch_version) c.torch = dialect_of_torch_version(*o.torch_version);
  auto no_share = env.find("TORCH_DISABLE_SHARE_RDZV_TCP_STORE");
  c.share_agent_store = no_share == env.end() || no_share->second != "1";
  auto identical = env.find("TORCH_ELASTIC_WORKER_IDENTICAL");
  c.workers_identical = identical != env.end() && identical->second == "1";
  // As torch's _get_entrypoint_name: the first argument after the interpreter that is not a
  // flag, or the binary itself with --no_python.
  c.entrypoint_name = c.command[0];
  if (!o.no_python || o.run_path)
    for (size_t i = 1; i < c.command.size(); ++i)
      if (!c.command[i].empty() && c.command[i][0] != '-') {
        c.entrypoint_name = c.command[i];
        break;
      }
  return c;
}

std::vector<std::string> worker_argv(const LaunchConfig& config, int local_rank) {
  std::vector<std::string> out;
  const std::string rank = std::to_string(local_rank);
  for (const std::string& arg : config.command) {
    if (out.empty()) {  // the entrypoint itself is not substituted, as in torch
      out.push_back(arg);
      continue;
    }
    std::string s;
    for (size_t i = 0; i < arg.size(); ++i) {
      if (arg[i] != '$') {
        s += arg[i];
      } else if (arg.compare(i, 2, "$$") == 0) {
        s += '$';
        ++i;
      } else if (arg.compare(i, 13, "${local_rank}") == 0) {
        s += rank;
        i += 12;
      } else if (arg.compare(i, 11, "$local_rank") == 0 &&
                 (i + 11 == arg.size() ||
                  !(std::isalnum(static_cast<unsigned char>(arg[i + 11])) || arg[i + 11] == '_'))) {
        s += rank;
        i += 10;
      } else {
        s += '$';
      }
    }
    out.push_back(s);
  }
  return out;
}

std::optional<std::string> resolve_torch_dialect(LaunchConfig& config, bool worker_is_python) {
  if (config.torch) return std::nullopt;
  std::optional<std::string> version;
  if (worker_is_python && !config.command.empty())
    version = installed_torch_version(config.command.front());
  config.torch = version ? dialect_of_torch_version(*version) : RdzvDialect::Torch1_13;
  return version;
}

}  // namespace ejob::agent
