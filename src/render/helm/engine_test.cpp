#include "src/render/helm/engine.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::GoType;
using go::Map;
using go::Value;

namespace {

/// Renders c/templates/x.yaml (plus optional helper sources) with `.Values` = values, the way
/// Helm passes its top-level context; returns the output or the Helm error message.
std::string render(std::string_view tmpl, Map values = {}, std::vector<TemplateSource> extra = {}) {
  Engine e;
  extra.push_back({"c/templates/x.yaml", std::string(tmpl)});
  Map top;
  top["Values"] = Value::map(std::move(values), GoType::Values);
  try {
    e.parse(std::move(extra));
    return e.execute("c/templates/x.yaml", Value::map(std::move(top)));
  } catch (const Error& err) {
    return "Error: " + err.message();
  }
}

Map vals(std::initializer_list<std::pair<const std::string, Value>> kv) { return Map(kv); }

}  // namespace

// The expected texts were printed by tests/reference (Go text/template + Sprig + Helm's rules).
TEST_CASE("engine: required and fail read as Helm's execution errors") {
  CHECK(render("{{ required \"need x\" .Values.x }}") ==
        "Error: execution error at (c/templates/x.yaml:1:3): need x");
  CHECK(render("a: {{ fail \"boom\" }}") ==
        "Error: execution error at (c/templates/x.yaml:1:6): boom");
  CHECK(render("a: {{ required \"100% sure\" .Values.q }}") ==
        "Error: execution error at (c/templates/x.yaml:1:6): 100% sure");
  CHECK(render("a: {{ include \"h\" . }}", {},
               {{"c/templates/_h.tpl", "{{ define \"h\" }}{{ fail \"inner\" }}{{ end }}"}}) ==
        "Error: execution error at (c/templates/x.yaml:1:6): inner");
  CHECK(render("{{ required \"r\" 0 }}{{ required \"r\" false }}") == "0false");
}

TEST_CASE("engine: parse errors read as Helm's parse error at (FILE:LINE)") {
  CHECK(render("a\n{{ 1 2 }") ==
        "Error: parse error at (c/templates/x.yaml:2): unexpected \"}\" in operand");
  CHECK(render("{{ 3x }}") == "Error: parse error at (c/templates/x.yaml:1): \"3x\"");
}

TEST_CASE("engine: errors carry the file, line, column and source line") {
  Engine e;
  e.parse({{"c/templates/x.yaml", "a: 1\nb: {{ .Values.x.y }}\n"}});
  Map top;
  top["Values"] = Value::map(Map{}, GoType::Values);
  try {
    (void)e.execute("c/templates/x.yaml", Value::map(std::move(top)));
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.message() ==
          "template: c/templates/x.yaml:2:13: executing \"c/templates/x.yaml\" at "
          "<.Values.x.y>: nil pointer evaluating interface {}.y");
    CHECK(err.where().file == "c/templates/x.yaml");
    CHECK(err.where().line == 2);
    CHECK(err.where().column == 14);
    CHECK(err.where().source_line == "b: {{ .Values.x.y }}");
  }
}

TEST_CASE("engine: include errors nest Go's messages") {
  CHECK(render("a: {{ include \"nope\" . }}") ==
        "Error: template: c/templates/x.yaml:1:6: executing \"c/templates/x.yaml\" at <include "
        "\"nope\" .>: error calling include: template: no template \"nope\" associated with "
        "template \"gotpl\"");
  CHECK(render("a: {{ include \"h\" . }}", {},
               {{"c/templates/_h.tpl", "{{ define \"h\" }}{{ .Values.x.y }}{{ end }}"}}) ==
        "Error: template: c/templates/x.yaml:1:6: executing \"c/templates/x.yaml\" at <include "
        "\"h\" .>: error calling include: template: c/templates/_h.tpl:1:26: executing \"h\" at "
        "<.Values.x.y>: nil pointer evaluating interface {}.y");
}

TEST_CASE("engine: include recursion stops after 1000 nested uses") {
  std::string msg =
      render("a: {{ include \"h\" . }}", {},
             {{"c/templates/_h.tpl", "{{ define \"h\" }}{{ include \"h\" . }}{{ end }}"}});
  CHECK(
      msg.ends_with("error calling include: rendering template has a nested reference name: h: "
                    "unable to execute template"));
  size_t count = 0;
  for (size_t at = msg.find("error calling include"); at != std::string::npos;
       at = msg.find("error calling include", at + 1)) {
    ++count;
  }
  CHECK(count == 1002);
}

TEST_CASE("engine: tpl parses as gotpl, sees all defines, strips <no value>") {
  CHECK(render("{{ tpl \"{{ .x }\" . }}") ==
        "Error: template: c/templates/x.yaml:1:3: executing \"c/templates/x.yaml\" at <tpl \"{{ "
        ".x }\" .>: error calling tpl: cannot parse template \"{{ .x }\": template: gotpl:1: "
        "unexpected \"}\" in operand");
  CHECK(render("a: {{ tpl \"{{ .Values.a.b.c }}\" . }}", vals({{"a", Value::float64(1)}})) ==
        "Error: template: c/templates/x.yaml:1:6: executing \"c/templates/x.yaml\" at <tpl \"{{ "
        ".Values.a.b.c }}\" .>: error calling tpl: error during tpl function execution for \"{{ "
        ".Values.a.b.c }}\": template: gotpl:1:10: executing \"gotpl\" at <.Values.a.b.c>: can't "
        "evaluate field b in type interface {}");
  CHECK(render("a: {{ tpl \"{{ define \\\"q\\\" }}Q{{ end }}{{ include \\\"q\\\" . }}-{{ .Values.a "
               "}}\" . }}",
               vals({{"a", Value::float64(1)}})) == "a: Q-1");
  CHECK(render("{{ tpl \"{{ include \\\"h\\\" . }}{{ .Values.m }}\" . }}", {},
               {{"c/templates/_h.tpl", "{{ define \"h\" }}H{{ end }}"}}) == "H");
  CHECK(render("{{ tpl \"\" . }}|") == "|");
  // A define inside tpl lives in tpl's clone of the set only.
  CHECK(render("{{ tpl \"{{ define \\\"q\\\" }}Q{{ end }}\" . }}{{ include \"q\" . }}") ==
        "Error: template: c/templates/x.yaml:1:45: executing \"c/templates/x.yaml\" at <include "
        "\"q\" .>: error calling include: template: no template \"q\" associated with template "
        "\"gotpl\"");
  CHECK(render("{{ tpl \"{{ include \\\"h\\\" . }}\" . }}|{{ tpl \"{{ define \\\"h\\\" }}T{{ end "
               "}}{{ include \\\"h\\\" . }}\" . }}|{{ include \"h\" . }}",
               {}, {{"c/templates/_h.tpl", "{{ define \"h\" }}H{{ end }}"}}) == "H|T|H");
}

TEST_CASE("engine: <no value> is removed from the output, literal text included") {
  CHECK(render("a: \"{{ .Values.missing }}<no value>\"") == "a: \"\"");
}

TEST_CASE("engine: chartutil.Values methods win over keys") {
  Map t = vals({{"x", Value::float64(1)}});
  Map v = vals({{"t", Value::map(t)}, {"Table", Value::string("key")}});
  CHECK(render("{{ .Values.Table \"t\" }} {{ .Values.PathValue \"t.x\" }} {{ .Values.AsMap }}",
               v) == "map[x:1] 1 map[Table:key t:map[x:1]]");
  CHECK(render("{{ .Values.Table \"q\" }}", v) ==
        "Error: template: c/templates/x.yaml:1:10: executing \"c/templates/x.yaml\" at "
        "<.Values.Table>: error calling Table: no table named \"q\"");
  CHECK(render("{{ .Values.PathValue \"t\" }}", v) ==
        "Error: template: c/templates/x.yaml:1:10: executing \"c/templates/x.yaml\" at "
        "<.Values.PathValue>: error calling PathValue: \"t\" is not a value");
  CHECK(render("{{ .Values.Table }}", v) ==
        "Error: template: c/templates/x.yaml:1:10: executing \"c/templates/x.yaml\" at "
        "<.Values.Table>: wrong number of args for Table: want 1 got 0");
  CHECK(render("{{ .Values.t 1 }}", v) ==
        "Error: template: c/templates/x.yaml:1:10: executing \"c/templates/x.yaml\" at "
        "<.Values.t>: t is not a method but has arguments");
}

TEST_CASE("engine: the last parsed define wins; Helm's parse order decides") {
  // Deeper paths first, then reverse byte order: _helpers.tpl is parsed after _z_helpers.tpl,
  // and the parent chart after its subchart.
  CHECK(render("{{ include \"h\" . }}", {},
               {{"c/templates/_helpers.tpl", "{{ define \"h\" }}helpers{{ end }}"},
                {"c/templates/_z_helpers.tpl", "{{ define \"h\" }}z{{ end }}"}}) == "helpers");
  CHECK(render("{{ include \"h\" . }}", {},
               {{"c/templates/_h.tpl", "{{ define \"h\" }}parent{{ end }}"},
                {"c/charts/sub/templates/_h.tpl", "{{ define \"h\" }}sub{{ end }}"}}) == "parent");
  CHECK(render("{{ include \"h\" . }}", {},
               {{"c/templates/_a.tpl", "{{ define \"h\" }}{{ end }}"},
                {"c/templates/_b.tpl", "{{ define \"h\" }}kept{{ end }}"}}) == "kept");
}

TEST_CASE("engine: lookup is an empty map and getHostByName is empty") {
  CHECK(render("{{ lookup \"v1\" \"Pod\" \"ns\" \"n\" }}|{{ getHostByName \"x\" }}|") == "map[]||");
}

}  // namespace ejob::render::helm
