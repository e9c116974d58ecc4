#include "cli/kube_flags.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "src/util/error.hpp"

namespace ejob::cli {
namespace {

using job::KubeSession;

/// Parses `args` (without the program name) into fresh flags of a command with or without -n.
KubeFlags parsed(std::vector<std::string> args, NamespaceFlag ns = NamespaceFlag::Add) {
  CLI::App app("test");
  KubeFlags flags;
  add_kube_flags(app, flags, ns);
  std::reverse(args.begin(), args.end());  // CLI11 takes a reversed vector
  app.parse(args);
  return flags;
}

TEST_CASE("add_kube_flags: defaults") {
  const KubeFlags f = parsed({});
  CHECK(f.kubeconfig.empty());
  CHECK(f.context.empty());
  CHECK(f.name_space.empty());
  CHECK(f.request_timeout == "60");
  CHECK_FALSE(f.debug);
}

TEST_CASE("add_kube_flags: every flag") {
  const KubeFlags f = parsed({"--kubeconfig", "/k/config", "--context", "prod", "-n", "ml",
                              "--request-timeout", "5s", "--debug"});
  CHECK(f.kubeconfig == "/k/config");
  CHECK(f.context == "prod");
  CHECK(f.name_space == "ml");
  CHECK(f.request_timeout == "5s");
  CHECK(f.debug);
  CHECK(parsed({"--namespace=team"}).name_space == "team");
}

TEST_CASE("add_kube_flags: a command with its own -n gets none from here") {
  CHECK_THROWS_AS(parsed({"-n", "ml"}, NamespaceFlag::Skip), CLI::ParseError);
  CHECK(parsed({"--context", "x"}, NamespaceFlag::Skip).context == "x");
}

TEST_CASE("add_kube_flags: --request-timeout takes seconds or a duration, as kubectl's") {
  using std::chrono::milliseconds;
  CHECK(request_timeout_of(parsed({})) == milliseconds(60'000));
  CHECK(request_timeout_of(parsed({"--request-timeout", "5"})) == milliseconds(5'000));
  CHECK(request_timeout_of(parsed({"--request-timeout", "1m30s"})) == milliseconds(90'000));
  CHECK(request_timeout_of(parsed({"--request-timeout", "0"})) == milliseconds(0));  // no limit
  for (const char* bad : {"-3", "soon", "5x"}) {
    const KubeFlags f = parsed({"--request-timeout", bad});
    CHECK_THROWS_AS(request_timeout_of(f), Error);
  }
}

/// A kubeconfig with two contexts in a temporary directory, removed at the end.
struct Kubeconfig {
  std::filesystem::path dir;
  std::string path;
  Kubeconfig() {
    dir =
        std::filesystem::temp_directory_path() / ("ejob-kube-flags-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    path = (dir / "config").string();
    std::ofstream(path) << R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:6443", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: secret-token}
contexts:
- name: dev
  context: {cluster: c, user: u, namespace: team}
- name: bare
  context: {cluster: c, user: u}
)";
  }
  ~Kubeconfig() { std::filesystem::remove_all(dir); }
  Kubeconfig(const Kubeconfig&) = delete;
  Kubeconfig& operator=(const Kubeconfig&) = delete;
};

TEST_CASE("open_session: kubeconfig, context and namespace (the override wins)") {
  const Kubeconfig kc;
  KubeFlags flags;
  flags.kubeconfig = kc.path;
  KubeSession s = open_session(flags);
  REQUIRE(s.client);
  CHECK(s.transport->config().context == "dev");
  CHECK(s.transport->config().server == "https://127.0.0.1:6443");
  CHECK(s.client->default_namespace() == "team");
  CHECK(open_session(flags, "other").client->default_namespace() == "other");
  flags.context = "bare";
  CHECK(open_session(flags).client->default_namespace() == "default");
}

TEST_CASE("open_session: a bad kubeconfig or context is an input error") {
  const Kubeconfig kc;
  KubeFlags flags;
  flags.kubeconfig = (kc.dir / "missing").string();
  try {
    open_session(flags);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Input);
    CHECK(e.message() == "kubeconfig " + flags.kubeconfig + " does not exist");
  }
  flags.kubeconfig = kc.path;
  flags.context = "prod";
  try {
    open_session(flags);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Input);
    CHECK(e.message() == "context \"prod\" not found in kubeconfig " + kc.path);
  }
}

}  // namespace
}  // namespace ejob::cli
