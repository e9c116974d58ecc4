#include "src/job/team_config.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "src/util/error.hpp"

namespace ejob::job {
namespace {

namespace fs = std::filesystem;

/// A config file in a fresh temporary folder.
std::string config_file(const std::string& name, const std::string& text) {
  const fs::path dir =
      fs::temp_directory_path() / ("ejob-team-config-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::string load_error(const std::string& file) {
  try {
    load_team_config({file});
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Input);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("team config: the first file that sets a key wins; sources are file:line") {
  const std::string team = config_file("team.yaml", "namespace: ml-team\nresources:\n  gpus: 2\n");
  const std::string mine = config_file("mine.yaml", "namespace: me\nengine: trainjob\n");
  const TeamConfig c = load_team_config({mine, team, "/no/such/file.yaml"});
  CHECK(team_setting(c, "namespace") == "me");
  CHECK(team_setting(c, "engine") == "trainjob");
  CHECK(team_setting(c, "resources.gpus") == "2");
  CHECK(c.settings.at("resources.gpus").source == team + ":3");
  const auto view = team_config_view(c);
  CHECK(view.front().key == "namespace");
  CHECK(view.front().source == mine + ":1");
  const auto values = team_values(c);
  CHECK(values.at("engine").as_string() == "trainjob");
  CHECK(values.at("gpus").as_int() == 2);
  CHECK(values.count("namespace") == 0);  // not a chart value
}

TEST_CASE("team config: unknown keys and bad values name the file, line and key") {
  CHECK(load_error(config_file("a.yaml", "namespace: ok\nenigne: x\n")) ==
        config_file("a.yaml", "namespace: ok\nenigne: x\n") +
            ":2: unknown key \"enigne\" (did you mean \"engine\"?)");
  CHECK(load_error(config_file("b.yaml", "resources:\n  gpu: 1\n"))
            .find("did you mean \"resources.gpus\"") != std::string::npos);
  CHECK(load_error(config_file("c.yaml", "engine: mpijob\n"))
            .find(":1: engine: \"mpijob\" is not one of") != std::string::npos);
  CHECK(
      load_error(config_file("d.yaml", "resources:\n  memory: lots\n")).find("is not a quantity") !=
      std::string::npos);
  CHECK(load_error(config_file("e.yaml", "- a\n- b\n")).find("a map of settings") !=
        std::string::npos);
  CHECK(load_error(config_file("f.yaml", "namespace: [a]\n")).find("not a single value") !=
        std::string::npos);
}

TEST_CASE("team config: the registry goes in front of an image named without one") {
  const TeamConfig c =
      load_team_config({config_file("r.yaml", "registry: myacr.azurecr.io/team/\n")});
  CHECK(with_registry(c, "train:1.4") == "myacr.azurecr.io/team/train:1.4");
  CHECK(with_registry(c, "pytorch/pytorch:2.6") == "myacr.azurecr.io/team/pytorch/pytorch:2.6");
  CHECK(with_registry(c, "ghcr.io/me/train:1") == "ghcr.io/me/train:1");
  CHECK(with_registry(c, "localhost/train") == "localhost/train");
  CHECK(with_registry(c, "registry:5000/train") == "registry:5000/train");
  CHECK(with_registry(TeamConfig{}, "train:1") == "train:1");
}

TEST_CASE("team config: EJOB_CONFIG lists files as KUBECONFIG does, else XDG, else HOME") {
  struct Restore {  // the other tests of this process see the environment they started with
    std::string home = std::getenv("HOME") ? std::getenv("HOME") : "";
    ~Restore() { ::setenv("HOME", home.c_str(), 1); }
  } restore;
  ::setenv("EJOB_CONFIG", "/a.yaml::/b.yaml", 1);
  CHECK(team_config_files() == std::vector<std::string>{"/a.yaml", "/b.yaml"});
  ::unsetenv("EJOB_CONFIG");
  ::setenv("XDG_CONFIG_HOME", "/x", 1);
  CHECK(team_config_files() == std::vector<std::string>{"/x/ejob/config.yaml"});
  ::unsetenv("XDG_CONFIG_HOME");
  ::setenv("HOME", "/h", 1);
  CHECK(team_config_files() == std::vector<std::string>{"/h/.config/ejob/config.yaml"});
}

}  // namespace ejob::job
