#pragma once
/// torchrun 1.13's command line, parsed the way its argparse parser does: every flag in its
/// underscore spelling (1.13) and its dash spelling (newer torchrun), `--flag=v` and `--flag v`,
/// unique-prefix abbreviations, `PET_<DEST>` environment fallbacks (the command line wins), the
/// training script as the first positional and everything after it passed through verbatim.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ejob::agent {

/// The process environment as a name -> value map (a snapshot, so parsing stays pure).
using Environment = std::map<std::string, std::string>;

/// Reads the current process environment.
Environment current_environment();

/// The raw option values, typed as torchrun's parser types them (before any validation that
/// depends on more than one flag).
struct LaunchOptions {
  std::string nnodes = "1:1";
  std::string nproc_per_node = "1";
  std::string rdzv_backend = "static";
  std::string rdzv_endpoint;
  std::string rdzv_id = "none";
  std::string rdzv_conf;
  bool standalone = false;
  int max_restarts = 0;
  double monitor_interval = 5;
  std::string start_method = "spawn";
  std::string role = "default";
  bool module = false;
  bool no_python = false;
  bool run_path = false;
  std::optional<std::string> log_dir;
  std::string redirects = "0";
  std::string tee = "0";
  int node_rank = 0;
  std::string master_addr = "127.0.0.1";
  int master_port = 29500;
  std::optional<std::string> local_addr;  ///< torch >= 2.0's --local-addr
  /// ejob's own: the torch the workers run (`1.13`, `2.6.0`…), whose dialect the agent speaks;
  /// detected from the worker's python when absent.
  std::optional<std::string> torch_version;
  /// ejob's own: modules each worker's python imports before the round completes
  /// (warm_start.hpp), comma-separated; empty: none.
  std::string preload;
  /// ejob's own, docs/spot.md: where preemption notices come from (`auto`, `azure`, `aws`,
  /// `gce`, `off`; also EJOB_SPOT_NOTICES, below PET_SPOT_NOTICES), the signal the workers get
  /// on a notice (a name, a number or `none`), the seconds before the deadline by which the
  /// workers must have exited, and whether Azure is told the VM may go once the agent left.
  std::string spot_notices = "auto";
  std::string preempt_signal = "SIGTERM";
  double preempt_grace = 5;
  bool spot_ack = false;
  bool help = false;
  std::string training_script;
  std::vector<std::string> training_script_args;
};

/// Parses the agent's arguments (without argv[0]). Throws ejob::Error(Usage) with argparse's
/// wording for an unknown or ambiguous flag, a missing or mistyped value, a bad choice, or a
/// missing training script (unless --help was given).
LaunchOptions parse_launch_options(const std::vector<std::string>& args, const Environment& env);

/// The usage text printed for -h/--help.
std::string launch_usage();

}  // namespace ejob::agent
