#pragma once
/// The validated launch configuration: LaunchOptions checked across flags and resolved the way
/// torchrun's config_from_args does (nnodes range, nproc_per_node cpu/gpu/auto, backend,
/// endpoint, rdzv_conf, redirects/tee maps, the worker command line).

#include <chrono>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "src/agent/launch/launch_options.hpp"
#include "src/agent/rendezvous/dynamic_state.hpp"
#include "src/agent/rendezvous/rdzv_conf.hpp"

namespace ejob::agent {

/// The rendezvous backends ejob-agent implements.
enum class Backend { Etcd, C10d, EtcdV2, Static };

/// torch's Std flags: which worker streams go to files.
enum class StdStreams : int { None = 0, Out = 1, Err = 2, All = 3 };

/// What the machine offers, for --nproc_per_node cpu/gpu/auto.
struct HostInfo {
  int cpu_count = 1;
  int gpu_count = 0;
};

/// Counts CPUs and NVIDIA GPUs without CUDA: GPUs are the entries of `gpu_proc_dir`
/// (/proc/driver/nvidia/gpus), limited by CUDA_VISIBLE_DEVICES when set (up to its first
/// invalid entry, as CUDA reads it).
HostInfo detect_host(const Environment& env,
                     const std::string& gpu_proc_dir = "/proc/driver/nvidia/gpus");

/// Everything the agent needs to run.
struct LaunchConfig {
  int min_nodes = 1;
  int max_nodes = 1;
  int nproc_per_node = 1;
  Backend backend = Backend::Static;
  Endpoint endpoint;
  EtcdSettings etcd;
  DynamicSettings dynamic;  ///< c10d
  std::string run_id;
  int max_restarts = 0;
  double monitor_interval = 5;
  std::string role;
  std::optional<std::string> log_dir;
  std::vector<StdStreams> redirects;  ///< per local rank
  std::vector<StdStreams> tee;        ///< per local rank
  int node_rank = 0;
  std::string master_addr;
  int master_port = 0;
  std::optional<std::string> local_addr;  ///< published as MASTER_ADDR by group rank 0
  std::vector<std::string> command;       ///< worker argv before ${local_rank} substitution
  std::string preload;                    ///< --preload: modules warm workers import
  std::string entrypoint_name;            ///< the script (or binary) named in failure summaries
  /// The torch dialect spoken: from --torch_version here; when absent, agent_main reads the
  /// worker python's torch (resolve_torch_dialect).
  std::optional<RdzvDialect> torch;
  /// Group rank 0's agent hosts the workers' store (unless TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1):
  /// torch 2.x's c10d agents do; for torch 1.13 and the etcd backend, round_master.hpp.
  bool share_agent_store = true;
  /// torch 2.x with TORCH_ELASTIC_WORKER_IDENTICAL=1: every agent runs nproc_per_node workers
  /// of one role, so ranks follow from the group rank without the role_info exchange.
  bool workers_identical = false;
  /// Preemption notices (docs/spot.md): the --spot-notices word, the signal each worker gets
  /// on a notice (0: none), how long before the deadline the workers must have exited, and
  /// whether Azure is told once the agent left.
  std::string spot_notices = "auto";
  int preempt_signal = SIGTERM;
  std::chrono::milliseconds preempt_grace{5000};
  bool spot_ack = false;
};

/// A signal as --preempt-signal takes it: `SIGTERM`, `TERM`, `sigusr1`, `15`, or `none`/`0`
/// (none: 0). nullopt for anything else.
std::optional<int> parse_signal(const std::string& text);

/// Fills config.torch when --torch_version did not: the version of the torch the worker's
/// python has (`python` is the interpreter of the worker command; none with --no_python),
/// else torch 1.13's. Returns the version found, for the log.
std::optional<std::string> resolve_torch_dialect(LaunchConfig& config, bool worker_is_python);

/// Validates and resolves the options. Throws ejob::Error(Usage) with a message naming the
/// flag, e.g. for `--nnodes=3:2`, `--rdzv_backend=zk`, `--no_python` with `-m`.
LaunchConfig make_launch_config(const LaunchOptions& options, const Environment& env,
                                const HostInfo& host);

/// Parses a redirects/tee value (`0`–`3`, or `lrank:value,...`) into one entry per local rank.
std::vector<StdStreams> parse_std_streams(const std::string& text, int nproc);

/// The argv of local worker `local_rank`: `${local_rank}` (and `$local_rank`) replaced, `$$`
/// turned into `$`, as string.Template.safe_substitute does.
std::vector<std::string> worker_argv(const LaunchConfig& config, int local_rank);

}  // namespace ejob::agent
