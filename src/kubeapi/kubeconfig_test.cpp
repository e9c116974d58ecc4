#include "src/kubeapi/kubeconfig.hpp"

#include <catch2/catch.hpp>
#include <filesystem>

#include "src/util/error.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using ejob::testing::write_file;

namespace {

/// A temporary directory removed at scope exit.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/ejob-kcfg-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

const char* k_first = R"(apiVersion: v1
kind: Config
current-context: one
clusters:
- name: c1
  cluster: {server: "https://first.example:6443/", insecure-skip-tls-verify: true}
users:
- name: u1
  user: {token: first-token}
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: team-a}
- name: shared
  context: {cluster: c1, user: u1}
)";

const char* k_second = R"(apiVersion: v1
kind: Config
current-context: two
clusters:
- name: c2
  cluster: {server: "https://second.example", certificate-authority: ca.pem, tls-server-name: api.internal, proxy-url: "http://proxy:3128"}
users:
- name: u2
  user: {client-certificate-data: Y2VydA==, client-key-data: a2V5, username: bob, password: pw}
- name: u3
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token, --x]
      env: [{name: A, value: "1"}]
      interactiveMode: Never
      provideClusterInfo: true
contexts:
- name: two
  context: {cluster: c2, user: u2}
- name: three
  context: {cluster: c2, user: u3}
- name: shared
  context: {cluster: c2, user: u2}
)";

Environment env_with(std::map<std::string, std::string> vars) {
  Environment env;
  env.vars = std::move(vars);
  return env;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("kubeconfig: KUBECONFIG files merge in order, first definition and current-context win") {
  TempDir d;
  write_file(d.path + "/a", k_first);
  write_file(d.path + "/b", k_second);
  write_file(d.path + "/ca.pem", "CA-PEM");
  auto env = env_with({{"KUBECONFIG", d.path + "/missing:" + d.path + "/a:" + d.path + "/b"}});
  RestConfig cfg = load_config({}, env);
  CHECK(cfg.context == "one");
  CHECK(cfg.server == "https://first.example:6443");
  CHECK(cfg.insecure);
  CHECK(cfg.token == "first-token");
  CHECK(cfg.namespace_name == "team-a");
  // "shared" is defined by both files: the first file's wins.
  CHECK(load_config({"", "shared", ""}, env).server == "https://first.example:6443");
  // A context only the second file has still resolves, with paths relative to that file.
  RestConfig two = load_config({"", "two", ""}, env);
  CHECK(two.ca_pem == "CA-PEM");
  CHECK(two.tls_server_name == "api.internal");
  CHECK(two.proxy_url == "http://proxy:3128");
  CHECK(two.client_cert_pem == "cert");
  CHECK(two.client_key_pem == "key");
  CHECK(two.username == "bob");
  CHECK(two.password == "pw");
  CHECK(two.namespace_name == "default");
  CHECK(load_config({"", "two", "ns-flag"}, env).namespace_name == "ns-flag");
}

TEST_CASE("kubeconfig: exec plugin settings are read and its relative command resolved") {
  TempDir d;
  write_file(d.path + "/b", k_second);
  write_file(d.path + "/ca.pem", "CA");
  RestConfig cfg = load_config({d.path + "/b", "three", ""}, Environment{});
  REQUIRE(cfg.exec);
  CHECK(cfg.exec->api_version == "client.authentication.k8s.io/v1");
  CHECK(cfg.exec->command == d.path + "/bin/plugin");
  CHECK(cfg.exec->args == std::vector<std::string>{"get-token", "--x"});
  CHECK(cfg.exec->env == std::vector<std::pair<std::string, std::string>>{{"A", "1"}});
  CHECK(cfg.exec->interactive_mode == "Never");
  CHECK(cfg.exec->provide_cluster_info);
}

TEST_CASE("kubeconfig: --kubeconfig wins over KUBECONFIG and must exist") {
  TempDir d;
  write_file(d.path + "/a", k_first);
  write_file(d.path + "/b", k_second);
  write_file(d.path + "/ca.pem", "CA");
  auto env = env_with({{"KUBECONFIG", d.path + "/a"}});
  CHECK(load_config({d.path + "/b", "", ""}, env).context == "two");
  CHECK(message_of([&] {
          load_config({d.path + "/nope", "", ""}, env);
        }) == "kubeconfig " + d.path + "/nope does not exist");
}

TEST_CASE("kubeconfig: errors name what is missing") {
  TempDir d;
  write_file(d.path + "/a", k_first);
  auto env = env_with({{"KUBECONFIG", d.path + "/a"}});
  CHECK(message_of([&] {
          load_config({"", "nope", ""}, env);
        }) == "context \"nope\" not found in kubeconfig " + d.path + "/a");
  write_file(d.path + "/bad",
             "clusters:\n- name: x\n  cluster: {server: https://x, insecure-skip-tls-verify: true, "
             "certificate-authority-data: Q0E=}\n"
             "contexts:\n- name: x\n  context: {cluster: x}\ncurrent-context: x\n");
  CHECK(message_of([&] {
          load_config({d.path + "/bad", "", ""}, env);
        }) ==
        "kubeconfig: specifying a root certificates file with the insecure flag is not allowed");
  write_file(d.path + "/b64",
             "clusters:\n- name: x\n  cluster:\n    server: https://x\n"
             "    certificate-authority-data: Q0E$\n"
             "contexts:\n- name: x\n  context: {cluster: x}\ncurrent-context: x\n");
  try {
    load_config({d.path + "/b64", "", ""}, env);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "kubeconfig " + d.path +
                             "/b64: certificate-authority-data is not valid base64 (illegal base64 "
                             "data at input byte 3)");
    CHECK(e.where().file == d.path + "/b64");
    CHECK(std::make_pair(e.where().line, e.where().column) == std::make_pair(5, 33));
  }
  write_file(d.path + "/nocur", "clusters: []\n");
  CHECK(message_of([&] {
          load_config({d.path + "/nocur", "", ""}, env);
        }) == "no context chosen: kubeconfig " + d.path +
                  "/nocur has no current-context; pass --context");
  CHECK(message_of([&] {
          load_config({}, env_with({{"HOME", d.path}}));
        }) ==
        "no Kubernetes configuration: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config");
}

TEST_CASE("kubeconfig: in-cluster configuration from the environment and service-account files") {
  TempDir d;
  write_file(d.path + "/token", "sa-token\n");
  write_file(d.path + "/ca.crt", "CA");
  write_file(d.path + "/namespace", "ci-jobs\n");
  auto env = env_with({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                       {"KUBERNETES_SERVICE_PORT", "443"},
                       {"HOME", d.path}});
  env.service_account_dir = d.path;
  RestConfig cfg = load_config({}, env);
  CHECK(cfg.context == "in-cluster");
  CHECK(cfg.server == "https://10.0.0.1:443");
  CHECK(cfg.token_file == d.path + "/token");
  CHECK(cfg.ca_pem == "CA");
  CHECK(cfg.namespace_name == "ci-jobs");
  env.vars["KUBERNETES_SERVICE_HOST"] = "fd00::1";
  CHECK(load_in_cluster(env).server == "https://[fd00::1]:443");
}

// Found by tests/fuzz/kubeconfig_fuzz.cpp: yaml-cpp's InvalidNode and BadConversion escaped
// (a context entry without `context:`, a list item that is a string, `insecure: maybe`).
TEST_CASE("kubeconfig: entries of unexpected shapes are read or refused, never thrown past") {
  TempDir d;
  write_file(d.path + "/config", R"(apiVersion: v1
clusters: [just-a-string, {name: c, cluster: {server: "https://c.example"}}]
users: [{name: u}]
contexts: [{name: bare}, {name: odd, context: [1, 2]}]
current-context: bare
)");
  ConfigFlags flags{d.path + "/config", "", ""};
  CHECK(message_of([&] { load_config(flags, {}); }) ==
        "cluster \"\" not found in kubeconfig " + d.path + "/config");
  CHECK(list_contexts(flags, {}).size() == 2);
  write_file(
      d.path + "/bad-bool",
      R"(clusters: [{name: c, cluster: {server: "https://c", insecure-skip-tls-verify: maybe}}]
contexts: [{name: x, context: {cluster: c}}]
current-context: x
)");
  CHECK(message_of([&] {
          load_config({d.path + "/bad-bool", "", ""}, {});
        }) == "kubeconfig: insecure-skip-tls-verify is not true or false");
}
