#include "src/render/helm/chart.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <random>

#include "src/render/helm/temp_chart.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {
namespace {

namespace fs = std::filesystem;

std::string load_error(const TempChart& t) {
  try {
    load_chart(t.dir());
  } catch (const Error& e) {
    return e.message();
  }
  return "no error";
}

std::vector<std::string> names(const std::vector<ChartFile>& files) {
  std::vector<std::string> out;
  for (const ChartFile& f : files) out.push_back(f.name);
  return out;
}

TEST_CASE("render: a chart's other files are read when first asked for, and then stay") {
  TempChart t("ejob-chart-test-");
  t.write("Chart.yaml", "apiVersion: v2\nname: demo\nversion: 1.0\n");
  t.write("files/read.txt", "kept");
  t.write("files/gone.txt", "never read");
  ChartPtr c = load_chart(t.dir());
  REQUIRE(names(*c->files) == std::vector<std::string>{"files/gone.txt", "files/read.txt"});
  CHECK((*c->files)[1].text() == "kept");
  fs::remove(t.dir() / "files/read.txt");
  fs::remove(t.dir() / "files/gone.txt");
  CHECK((*c->files)[1].text() == "kept");  // read once, held
  // a file gone before anything read it is the loader's error, where it would have been
  CHECK_THROWS_WITH((*c->files)[0].text(),
                    "open " + (t.dir() / "files/gone.txt").string() + ": cannot read file");
}

TEST_CASE("render: the walk follows links within the chart and refuses what is no file") {
  TempChart t("ejob-chart-test-");
  t.write("Chart.yaml", "apiVersion: v2\nname: demo\nversion: 1.0\n");
  t.write("files/data.txt", "data");
  fs::create_directory_symlink("files", t.dir() / "linked");
  fs::create_symlink("data.txt", t.dir() / "files/alias.txt");
  ChartPtr c = load_chart(t.dir());
  CHECK(names(*c->files) == std::vector<std::string>{"files/alias.txt", "files/data.txt",
                                                     "linked/alias.txt", "linked/data.txt"});
  CHECK((*c->files)[2].text() == "data");
  fs::create_symlink("missing.txt", t.dir() / "files/broken.txt");
  CHECK(load_error(t) ==
        "stat " + (t.dir() / "files/broken.txt").string() + ": No such file or directory");
  fs::remove(t.dir() / "files/broken.txt");
  REQUIRE(::mkfifo((t.dir() / "files/pipe").c_str(), 0600) == 0);
  CHECK(load_error(t) == "cannot load irregular file " + (t.dir() / "files/pipe").string() +
                             " as it has file mode type bits set");
}

TEST_CASE("render: a chart directory is classified into metadata, values, templates, files") {
  TempChart t("ejob-chart-test-");
  t.write("Chart.yaml",
          "apiVersion: v2\nname: demo\nversion: 1.0\nappVersion: 1.10\n"
          "annotations:\n  num: 5\nkeywords: [a, 2]\n");
  t.write("values.yaml", "replicas: 3\n");
  t.write("values.schema.json", "{}");
  t.write("templates/a.yaml", "kind: A");
  t.write("templates/.hidden.yaml", "x");
  t.write("templates/sub/b.tpl", "y");
  t.write("files/conf.txt", "\xEF\xBB\xBFwith bom");
  t.write("ignored.bak", "z");
  t.write(".helmignore", "# comment\n*.bak\n");
  t.write("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n");
  t.write("charts/sub/templates/s.yaml", "kind: S");
  t.write("charts/_skipped/Chart.yaml", "not: loaded");
  ChartPtr c = load_chart(t.dir());
  CHECK(c->name() == "demo");
  CHECK(c->metadata.version == "1");
  CHECK(c->metadata.app_version == "1.1");
  CHECK(c->metadata.annotations.at("num") == "5");
  CHECK(c->metadata.keywords == std::vector<std::string>{"a", "2"});
  CHECK(c->values.as_map().at("replicas").as_float() == 3.0);
  CHECK(*c->schema == "{}");
  CHECK(names(*c->templates) ==
        std::vector<std::string>{"templates/a.yaml", "templates/sub/b.tpl"});
  CHECK(names(*c->files) == std::vector<std::string>{".helmignore", "files/conf.txt"});
  CHECK((*c->files)[1].text() == "with bom");
  REQUIRE(c->dependencies.size() == 1);
  CHECK(c->dependencies[0]->full_path() == "demo/charts/sub");
  CHECK(names(*c->dependencies[0]->templates) == std::vector<std::string>{"templates/s.yaml"});
}

TEST_CASE("render: chart loading errors use Helm's words") {
  TempChart t("ejob-chart-test-");
  CHECK(load_error(t) == "Chart.yaml file is missing");
  t.write("Chart.yaml", "apiVersion: v2\nversion: 1.0.0\n");
  CHECK(load_error(t) == "validation: chart.metadata.name is required");
  t.write("Chart.yaml", "apiVersion: v2\nname: x\nversion: one\n");
  CHECK(load_error(t) == R"(validation: chart.metadata.version "one" is invalid)");
  t.write("Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: plugin\n");
  CHECK(load_error(t) == "validation: chart.metadata.type must be application or library");
  t.write("Chart.yaml", "apiVersion: v2\nname: [x]\nversion: 1.0.0\n");
  CHECK(load_error(t) ==
        "cannot load Chart.yaml: error unmarshaling JSON: while decoding JSON: json: cannot "
        "unmarshal array into Go struct field Metadata.name of type string");
  t.write("Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\n");
  t.write("charts/broken/values.yaml", "a: 1\n");
  CHECK(load_error(t) == "error unpacking subchart broken in x: Chart.yaml file is missing");
}

TEST_CASE("render: .helmignore negation, directories and anchors") {
  IgnoreRules r = IgnoreRules::parse("/top.txt\nlogs/\ndocs/*.md\n");
  r.add_defaults();
  CHECK(r.ignore("top.txt", false));
  CHECK_FALSE(r.ignore("sub/top.txt", false));
  CHECK(r.ignore("logs", true));
  CHECK_FALSE(r.ignore("logs", false));
  CHECK(r.ignore("docs/a.md", false));
  CHECK(r.ignore("templates/.x", false));
  CHECK_FALSE(r.ignore("templates/x", false));
  IgnoreRules neg = IgnoreRules::parse("!keep.txt\n");
  CHECK(neg.ignore("other.txt", false));
  CHECK_FALSE(neg.ignore("keep.txt", false));
  try {
    IgnoreRules::parse("a/**/b\n");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "double-star (**) syntax is not supported");
  }
}

}  // namespace
}  // namespace ejob::render::helm
