#include "src/render/helm/render_chart.hpp"

#include <re2/re2.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "src/render/helm/temp_chart.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::Value;

namespace {

namespace fs = std::filesystem;

struct Run {
  std::string out;
  std::vector<std::string> warnings;
};

Run render(const TempChart& t, RenderOptions o = {}) {
  Run run;
  o.chart_dir = t.dir();
  RenderIo io;
  io.read = [](const std::string& p) -> std::string {
    throw Error(ErrorCode::Io, "open " + p + ": no such file or directory");
  };
  io.warn = [&](const std::string& w) { run.warnings.push_back(w); };
  run.out = render_chart(o, io);
  return run;
}

std::string render_error(const TempChart& t, RenderOptions o = {}) {
  try {
    render(t, std::move(o));
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

void write_demo(const TempChart& t) {
  t.write("Chart.yaml", "apiVersion: v2\nname: demo\nversion: 0.1.0\nappVersion: 1.10\n");
  t.write("values.yaml", "replicas: 1000000\nname: web\nsub:\n  greeting: hi\n");
  t.write("templates/_helpers.tpl",
          "{{- define \"demo.name\" -}}{{ .Chart.Name }}-{{ .Values.name }}{{- end }}\n");
  t.write(
      "templates/deploy.yaml",
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ include \"demo.name\" . }}\n"
      "  namespace: {{ .Release.Namespace }}\nspec:\n  replicas: {{ .Values.replicas }}\n"
      "  template: {{ .Template.Name }} {{ .Template.BasePath }}\n"
      "  app: {{ .Chart.AppVersion }} {{ .Capabilities.KubeVersion.Version }}\n");
  t.write("templates/svc.yaml", "kind: Service\nmetadata:\n  name: {{ .Release.Name }}\n---\n");
  t.write("templates/cm.yaml",
          "kind: ConfigMap\ndata:\n  conf: {{ .Files.Get \"files/a.conf\" | quote }}\n"
          "  missing: {{ .Values.nothing }}\n");
  t.write("templates/NOTES.txt", "Thanks {{ .Release.Name }}\n");
  t.write("files/a.conf", "x=1");
  t.write("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.2.0\n");
  t.write("charts/sub/values.yaml", "greeting: hello\nother: 1\n");
  t.write("charts/sub/templates/job.yaml",
          "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: post-install\n"
          "data: {{ .Values.greeting }} {{ .Values.other }} {{ .Chart.IsRoot }}\n");
}

TEST_CASE("render: a chart renders to helm template's exact text") {
  TempChart t("ejob-render-test-");
  write_demo(t);
  RenderOptions o;
  o.release_name = "rel";
  o.ns = "ns1";
  o.values.set = {"replicas=3"};
  CHECK(
      render(t, o).out ==
      "---\n# Source: demo/templates/cm.yaml\nkind: ConfigMap\ndata:\n  conf: \"x=1\"\n  missing:\n"
      "---\n# Source: demo/templates/svc.yaml\nkind: Service\nmetadata:\n  name: rel\n"
      "---\n# Source: demo/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\n"
      "metadata:\n  name: demo-web\n  namespace: ns1\nspec:\n  replicas: 3\n"
      "  template: demo/templates/deploy.yaml demo/templates\n  app: 1.1 v1.36.0\n"
      "---\n# Source: demo/charts/sub/templates/job.yaml\nkind: Job\nmetadata:\n  annotations:\n"
      "    helm.sh/hook: post-install\ndata: hi 1 false\n");
}

TEST_CASE("render: manifest_objects hands the rendered documents over as values, in order") {
  TempChart t("ejob-render-test-");
  write_demo(t);
  RenderOptions o;
  o.chart_dir = t.dir();
  o.release_name = "rel";
  RenderIo io;
  io.warn = [](const std::string&) {};
  const std::vector<Value> objects = manifest_objects(render_manifests(o, io));
  REQUIRE(objects.size() == 4);
  std::vector<std::string> kinds;
  for (const Value& v : objects) kinds.push_back(v.as_map().at("kind").as_string());
  CHECK(kinds == std::vector<std::string>{"ConfigMap", "Service", "Deployment", "Job"});
  CHECK(objects[2].as_map().at("metadata").as_map().at("name").as_string() == "demo-web");
  SortedManifests bad;
  bad.manifests.push_back({"demo/templates/x.yaml", "- a list", "List"});
  CHECK_THROWS_WITH(manifest_objects(bad),
                    "demo/templates/x.yaml: a document is not a Kubernetes object");
}

TEST_CASE("render: values-file numbers print as Go floats; --kube-version reaches Capabilities") {
  TempChart t("ejob-render-test-");
  write_demo(t);
  RenderOptions o;
  o.kube_version = "1.30";
  o.show_only = {"templates/deploy.yaml"};
  std::string out = render(t, o).out;
  CHECK(out.find("replicas: 1e+06\n") != std::string::npos);
  CHECK(out.find("app: 1.1 v1.30.0\n") != std::string::npos);
  CHECK(out.starts_with("---\n# Source: demo/templates/deploy.yaml\n"));
}

TEST_CASE("render: pipeline errors carry Helm's messages") {
  TempChart t("ejob-render-test-");
  write_demo(t);
  RenderOptions bad_name;
  bad_name.release_name = "Bad_Name";
  CHECK(render_error(t, bad_name) ==
        "release name \"Bad_Name\": invalid release name, must match regex "
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$ and the length must "
        "not be longer than 53");
  t.write("values.schema.json", R"({"properties":{"replicas":{"type":"string"}}})");
  CHECK(render_error(t).starts_with(
      "values don't meet the specifications of the schema(s) in the following chart(s):\n"
      "demo:\n- at '/replicas': got number, want string"));
  t.write("values.schema.json", "{}");
  t.write("Chart.yaml", "apiVersion: v2\nname: demo\nversion: 0.1.0\nkubeVersion: '>=1.40'\n");
  CHECK(render_error(t) ==
        "chart requires kubeVersion: >=1.40 which is incompatible with Kubernetes v1.36.0");
  t.write("Chart.yaml", "apiVersion: v2\nname: demo\nversion: 0.1.0\ntype: library\n");
  CHECK(render_error(t) == "library charts are not installable");
  t.write("Chart.yaml",
          "apiVersion: v2\nname: demo\nversion: 0.1.0\ndependencies:\n- name: gone\n  version: "
          "1.0.0\n");
  CHECK(render_error(t) ==
        "An error occurred while checking for chart dependencies. You may need to run `helm "
        "dependency build` to fetch missing dependencies: found in Chart.yaml, but missing in "
        "charts/ directory: gone");
}

TEST_CASE("render: a disabled subchart renders nothing") {
  TempChart t("ejob-render-test-");
  write_demo(t);
  t.write("Chart.yaml",
          "apiVersion: v2\nname: demo\nversion: 0.1.0\ndependencies:\n"
          "- name: sub\n  version: 0.x\n  condition: sub.enabled\n");
  RenderOptions o;
  o.values.set = {"sub.enabled=false"};
  CHECK(render(t, o).out.find("charts/sub") == std::string::npos);
}

TEST_CASE("render: release names are checked as Helm's regexp checks them") {
  static const RE2 k_name(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
  const std::string alphabet = "a0-.A_";
  int checked = 0;
  for (size_t len = 1; len <= 6; ++len) {
    std::vector<size_t> digits(len, 0);
    while (true) {
      std::string s;
      for (size_t d : digits) s += alphabet[d];
      bool valid = true;
      try {
        validate_release_name(s);
      } catch (const Error&) {
        valid = false;
      }
      if (valid != RE2::FullMatch(s, k_name)) {
        INFO(s);
        CHECK(valid == RE2::FullMatch(s, k_name));
      }
      ++checked;
      size_t i = 0;
      while (i < len && ++digits[i] == alphabet.size()) digits[i++] = 0;
      if (i == len) break;
    }
  }
  CHECK(checked > 50000);
}

}  // namespace
}  // namespace ejob::render::helm
