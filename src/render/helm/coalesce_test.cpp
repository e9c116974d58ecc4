#include "src/render/helm/coalesce.hpp"

#include <catch2/catch.hpp>

#include "src/render/go/json.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::Map;
using go::Value;

namespace {

Map from_json(std::string_view text) { return go::json::unmarshal(text).value.as_map(); }
std::string to_json(const Map& m) { return go::json::marshal(Value::map(m)); }

ChartPtr chart(std::string name, std::string_view values) {
  auto c = std::make_shared<Chart>();
  c->metadata.name = std::move(name);
  c->metadata.version = "1.0.0";
  c->values = Value::map(from_json(values));
  return c;
}

ChartPtr add_sub(const ChartPtr& parent, ChartPtr sub) {
  sub->parent = parent.get();
  parent->dependencies.push_back(sub);
  return sub;
}

struct Warnings {
  std::vector<std::string> lines;
  Warn sink() {
    return [this](const std::string& s) { lines.push_back(s); };
  }
};

TEST_CASE("render: user values win, null deletes, chart defaults fill in") {
  auto c = chart("top", R"({"a":1,"b":{"x":1,"y":2},"c":null,"d":"keep"})");
  Warnings w;
  Map out =
      coalesce_values(*c, from_json(R"({"a":2,"b":{"y":null,"z":3,"n":null},"d":null})"), w.sink());
  // A null for a key the chart does not set survives (Helm >= 3.19).
  CHECK(to_json(out) == R"({"a":2,"b":{"n":null,"x":1,"z":3},"c":null})");
  CHECK(w.lines.empty());
}

TEST_CASE("render: type clashes keep the user value and warn as Helm does") {
  auto c = chart("top", R"({"m":{"x":1},"s":"str","n":{"x":{"y":1}}})");
  Warnings w;
  Map out = coalesce_values(*c, from_json(R"({"m":"scalar","s":{"k":1},"n":{"x":5}})"), w.sink());
  CHECK(to_json(out) == R"({"m":"scalar","n":{"x":5},"s":{"k":1}})");
  REQUIRE(w.lines.size() == 2);
  CHECK(w.lines[0] == "warning: cannot overwrite table with non table for top.n.x (map[y:1])");
  CHECK(w.lines[1] == "warning: skipped value for top.s: Not a table.");
}

TEST_CASE("render: subcharts get their table and the parent's globals") {
  auto top = chart("top", R"({"global":{"g":1,"t":{"a":1}},"sub":{"v":2}})");
  add_sub(top, chart("sub", R"({"v":1,"w":1,"global":{"g":0,"t":{"b":2},"own":true}})"));
  Warnings w;
  Map out = coalesce_values(*top, from_json(R"({"global":{"u":"x"}})"), w.sink());
  CHECK(
      to_json(out) ==
      R"({"global":{"g":1,"t":{"a":1},"u":"x"},"sub":{"global":{"g":1,"own":true,"t":{"a":1,"b":2},"u":"x"},"v":2,"w":1}})");
}

TEST_CASE("render: a subchart key holding a scalar is a type mismatch") {
  auto top = chart("top", "{}");
  add_sub(top, chart("sub", "{}"));
  try {
    coalesce_values(*top, from_json(R"({"sub":"x"})"), {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "type mismatch on sub: %!t(string=x)");
  }
}

TEST_CASE("render: -f maps merge deeply; --set kinds apply in Helm's fixed order") {
  std::map<std::string, std::string> disk = {{"a.yaml", "x:\n  p: 1\n  q: 2\nl: [1]\n"},
                                             {"b.yaml", "x:\n  q: 3\nl: [2]\n"},
                                             {"f.txt", "file body"}};
  ReadFile read = [&](const std::string& p) { return disk.at(p); };
  ValueSources s;
  s.files = {"a.yaml", "b.yaml"};
  s.set = {"a=20", "n=1"};
  s.set_string = {"a=10"};
  s.set_json = {R"(j={"k":[1]})", R"({"obj":{"o":true}})"};
  s.set_file = {"body=f.txt"};
  s.set_literal = {"lit=a,b=c"};
  Map m = merge_user_values(s, read);
  CHECK(
      to_json(m) ==
      R"({"a":"10","body":"file body","j":{"k":[1]},"l":[2],"lit":"a,b=c","n":1,"obj":{"o":true},"x":{"p":1,"q":3}})");
}

TEST_CASE("render: value flag errors carry Helm's prefixes") {
  ReadFile read = [](const std::string& p) -> std::string {
    throw Error(ErrorCode::Io, "open " + p + ": no such file or directory");
  };
  auto error_of = [&](ValueSources s) {
    try {
      merge_user_values(s, read);
    } catch (const Error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  ValueSources a;
  a.set = {"a=1,b"};
  CHECK(error_of(a) == R"(failed parsing --set data: key "b" has no value)");
  ValueSources b;
  b.set_json = {"a=nope"};
  CHECK(error_of(b) == "failed parsing --set-json data a=nope");
  ValueSources c;
  c.set_json = {"{bad"};
  CHECK(error_of(c) == "failed parsing --set-json data JSON: {bad");
  ValueSources d;
  d.set_file = {"k=missing.txt"};
  CHECK(error_of(d) ==
        "failed parsing --set-file data: open missing.txt: no such file or directory");
  ValueSources e;
  e.files = {"missing.yaml"};
  CHECK(error_of(e) == "open missing.yaml: no such file or directory");
}

TEST_CASE("render: conditions and tags disable subcharts; aliases rename copies") {
  auto top = chart("top", R"({"a":{"enabled":false},"tags":{"front":false}})");
  top->metadata.has_dependencies = true;
  Dependency da;
  da.name = "a";
  da.condition = "a.enabled";
  Dependency db;
  db.name = "b";
  db.tags = {"front"};
  Dependency dc;
  dc.name = "a";
  dc.alias = "a2";
  top->metadata.dependencies = {da, db, dc};
  add_sub(top, chart("a", R"({"x":1})"));
  add_sub(top, chart("b", "{}"));
  process_dependencies(*top, {}, {});
  REQUIRE(top->dependencies.size() == 1);
  CHECK(top->dependencies[0]->name() == "a2");
  CHECK(top->dependencies[0]->full_path() == "top/charts/a2");
  Map out = coalesce_values(*top, {}, {});
  CHECK(to_json(out.at("a2").as_map()) == R"({"global":{},"x":1})");
}

TEST_CASE("render: import-values copy child exports under the parent, parent wins") {
  auto top = chart("top", R"({"data":{"keep":"parent"}})");
  top->metadata.has_dependencies = true;
  Dependency d;
  d.name = "sub";
  d.import_values = {Value::string("data"), Value::map({{"child", Value::string("inner")},
                                                        {"parent", Value::string("copied")}})};
  top->metadata.dependencies = {d};
  add_sub(top, chart("sub",
                     R"({"exports":{"data":{"data":{"keep":"child","more":1}}},"inner":{"i":1}})"));
  process_dependencies(*top, {}, {});
  Map out = coalesce_values(*top, {}, {});
  CHECK(to_json(out.at("data").as_map()) == R"({"keep":"parent","more":1})");
  CHECK(to_json(out.at("copied").as_map()) == R"({"i":1})");
}

TEST_CASE("render: version ranges follow Masterminds semver") {
  CHECK(is_compatible_range("^1.2.0", "1.4.0"));
  CHECK_FALSE(is_compatible_range(">=2.0.0", "1.9.9"));
  CHECK(is_compatible_range("", "0.1.0"));
  CHECK_FALSE(is_compatible_range("1.x", "not-a-version"));
}

}  // namespace
}  // namespace ejob::render::helm
