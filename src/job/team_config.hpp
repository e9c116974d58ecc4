#pragma once
/// A team's defaults, shared as a file (gh's and kubectl's way): the files $EJOB_CONFIG names
/// (separated by ':' as KUBECONFIG's; the first that sets a key wins), else
/// $XDG_CONFIG_HOME/ejob/config.yaml (~/.config/ejob/config.yaml). Missing files are no
/// config. They hold only what a team shares, under everything a job says:
///
///   chart defaults < team config < JOBFILE < -f < --set* < the job flags
///
///   namespace: ml-team               # the job commands' namespace (instead of elastic-job)
///   registry: myacr.azurecr.io/team  # prefix of an image named without a registry (train:1.4)
///   engine: pytorchjob               # engine
///   spot: azure                      # spot.provider (the --spot presets)
///   spotMode: preferred              # spot.mode
///   storageAccount: mystorage        # the account of --blob CONTAINER[:MOUNTPATH]
///   resources:                       # per worker: gpus, gpuResource, cpu, memory, shm
///     gpus: 1
///     memory: 32Gi
///
/// An unknown key or a bad value is ejob::Error(Input) naming the file, line and key (with a
/// did-you-mean).

#include <map>
#include <string>
#include <vector>

#include "src/render/go/value.hpp"

namespace ejob::job {

/// One setting and where it came from.
struct TeamSetting {
  std::string value;   ///< as written (a scalar)
  std::string source;  ///< "FILE:LINE"
};

struct TeamConfig {
  std::vector<std::string> files;               ///< the files looked for, in order
  std::map<std::string, TeamSetting> settings;  ///< by dotted key ("resources.gpus")
};

/// Where the config is looked for, from the environment (EJOB_CONFIG, XDG_CONFIG_HOME, HOME).
std::vector<std::string> team_config_files();

/// Reads and checks the files (those that exist).
TeamConfig load_team_config(const std::vector<std::string>& files);

/// Every key a team config may set, dotted, with its default in words ("elastic-job", "none").
const std::vector<std::pair<std::string, std::string>>& team_config_keys();

/// The settings that are chart values, as values (engine, spot.provider, spot.mode, gpus, ...).
render::go::Map team_values(const TeamConfig& config);

/// `image` with the config's registry in front when it names no registry ("train:1.4",
/// "team/train"); as it is otherwise, or without a registry setting.
std::string with_registry(const TeamConfig& config, const std::string& image);

/// The config's value of `key`, "" when it does not set it.
std::string team_setting(const TeamConfig& config, const std::string& key);

/// What `ejob config view` shows: per key its value in effect and where it came from
/// ("FILE:LINE", or "default" with the built-in fallback in words).
struct TeamConfigLine {
  std::string key, value, source;
};
std::vector<TeamConfigLine> team_config_view(const TeamConfig& config);

/// The team config of this process (loaded once; ejob::Error(Input) when it is bad).
const TeamConfig& team_config();

}  // namespace ejob::job
