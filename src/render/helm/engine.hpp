#pragma once
/// The template engine: Go's text/template as Helm uses it (helm-template.md §1–3, §5 steps
/// 4–5). All templates of a chart and its subcharts are parsed into one set (so `define`s are
/// shared, the last parsed wins), then each non-partial template is executed with its chart's
/// context, with missingkey=zero, and `<no value>` is removed from the output.
///
/// Errors are thrown as ejob::Error(ErrorCode::Input) whose message is Helm's text
/// (`parse error at (chart/templates/x.yaml:3): unexpected "}" in operand`,
/// `template: chart/templates/x.yaml:3:9: executing "chart/templates/x.yaml" at <.x>: …`,
/// `execution error at (chart/templates/x.yaml:3:9): MSG`) and whose Location points at the
/// file, line and column with the source line for the caret display.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/text_template/funcs.hpp"

namespace ejob::render::helm {

/// One template source: its Helm name (`chart/templates/x.yaml`, `chart/charts/sub/templates/…`)
/// and its text.
struct TemplateSource {
  std::string name;
  std::string text;
};

/// Parses and executes templates. Thread-compatible: one Engine per render.
class Engine {
 public:
  /// An engine with Helm's function map (Go builtins, Sprig minus env/expandenv, Helm's
  /// serialization functions, include, tpl, required, fail, lookup → empty map,
  /// getHostByName → ""), reading time and randomness from `env`.
  explicit Engine(std::shared_ptr<const text_template::Env> env = nullptr);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Parses every source in Helm's order (more `/` first; same depth, reverse byte order —
  /// the caller passes them in any order). A later `define` replaces an earlier one unless
  /// its body is empty. Throws ejob::Error on the first parse error.
  void parse(std::vector<TemplateSource> sources);

  /// Executes the named template with `dot` as data and returns its output with every
  /// `<no value>` removed. Throws ejob::Error on an execution error.
  [[nodiscard]] std::string execute(std::string_view name, const go::Value& dot);

  /// Names of the parsed sources, in parse order.
  [[nodiscard]] std::vector<std::string> names() const;

  /// The function map in use (tests add functions here).
  text_template::FuncMap& funcs();

 private:
  struct Impl;  // function map, parsed templates, include counters (engine.cpp)
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ejob::render::helm
