// Helm's engine (pkg/engine/engine.go, funcs.go) on top of our text/template: the function map,
// the parse order of chart templates, include/tpl/required/fail/lookup, and Helm's rewriting of
// Go's error texts.

#include "src/render/helm/engine.hpp"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <tuple>
#include <unordered_map>

#include "src/render/go/fmt.hpp"
#include "src/render/helm/base_funcs.hpp"
#include "src/render/text_template/exec.hpp"
#include "src/render/text_template/parse.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::FuncError;
using go::go_quote;
using go::GoType;
using go::Map;
using go::Value;
using text_template::Env;
using text_template::ExecFailure;
using text_template::Executor;
using text_template::FuncArgs;
using text_template::FuncMap;
using text_template::FuncSource;
using text_template::Function;
using text_template::Param;
using text_template::ParseError;
using text_template::Source;
using text_template::TemplateSet;
using text_template::Tree;
using text_template::TreePtr;

namespace {

/// Everything an Engine owns (Engine::Impl is this; the helpers below take it by this name).
struct EngineState {
  std::shared_ptr<const Env> env;
  FuncMap funcs;
  TemplateSet set;
  std::vector<std::string> names;
  std::unordered_map<std::string, int> included;  ///< Helm's includedNames counters
  /// Parsed tpl texts, keyed by the text their trees' Source holds (one copy of each).
  struct ParsedText {
    std::shared_ptr<const Source> source;
    std::map<std::string, TreePtr, std::less<>> trees;
  };
  std::unordered_map<std::string_view, ParsedText> tpl_cache;
};

constexpr int k_recursion_max = 1000;  // Helm's recursionMaxNums
constexpr std::string_view k_no_value = "<no value>";
constexpr std::string_view k_root_name = "gotpl";  // Helm's root template
constexpr std::string_view k_warn_start = "HELM_ERR_START";
constexpr std::string_view k_warn_end = "HELM_ERR_END";

void strip_no_value(std::string& s) {
  size_t at = s.find(k_no_value);
  if (at == std::string::npos) return;
  std::string out;
  out.reserve(s.size());
  size_t from = 0;
  while (at != std::string::npos) {
    out.append(s, from, at - from);
    from = at + k_no_value.size();
    at = s.find(k_no_value, from);
  }
  out.append(s, from);
  s = std::move(out);
}

/// Helm's sortTemplates: more '/' first; the same depth in reverse byte order.
void sort_sources(std::vector<TemplateSource>& sources) {
  std::sort(sources.begin(), sources.end(), [](const TemplateSource& a, const TemplateSource& b) {
    auto ca = std::count(a.name.begin(), a.name.end(), '/');
    auto cb = std::count(b.name.begin(), b.name.end(), '/');
    if (ca != cb) return ca > cb;
    return a.name > b.name;
  });
}

/// Splits s on every ": " (strings.Split).
std::vector<std::string_view> split_colon(std::string_view s, size_t max_parts) {
  std::vector<std::string_view> parts;
  size_t from = 0;
  while (parts.size() + 1 < max_parts) {
    size_t at = s.find(": ", from);
    if (at == std::string_view::npos) break;
    parts.push_back(s.substr(from, at - from));
    from = at + 2;
  }
  parts.push_back(s.substr(from));
  return parts;
}

Location source_location(const std::string& file, const std::string& text, size_t pos, int line) {
  pos = std::min(pos, text.size());
  size_t start = pos == 0 ? 0 : text.rfind('\n', pos - 1);
  start = (start == std::string::npos || pos == 0) ? 0 : start + 1;
  size_t end = text.find('\n', start);
  return Location{file, line, static_cast<int>(pos - start) + 1,
                  text.substr(start, end == std::string::npos ? std::string::npos : end - start)};
}

/// Helm's cleanupParseError: `parse error at (FILE:LINE): LAST-PART`.
Error parse_error(const Source& src, const ParseError& e) {
  std::vector<std::string_view> tokens = split_colon(e.message, SIZE_MAX);
  std::string msg;
  if (tokens.size() == 1) {
    msg = "parse error in (" + src.name + "): " + e.message;
  } else {
    msg = "parse error at (" + std::string(tokens[1]) + "): " + std::string(tokens.back());
  }
  return Error(ErrorCode::Input, msg, source_location(src.name, src.text, e.pos, e.line));
}

/// Helm's reformatExecErrorMsg: required/fail messages become
/// `execution error at (FILE:LINE:COL): MSG`; other errors keep Go's text.
Error exec_error(std::string_view filename, const ExecFailure& f) {
  Location where{f.file, f.line, f.col + 1, f.source_line};
  std::vector<std::string_view> tokens = split_colon(f.message, 3);
  if (tokens.size() != 3) {
    return Error(ErrorCode::Input,
                 "execution error in (" + std::string(filename) + "): " + f.message, where);
  }
  size_t start = tokens[2].find(k_warn_start);
  size_t end = tokens[2].rfind(k_warn_end);
  if (start != std::string_view::npos && end != std::string_view::npos &&
      end >= start + k_warn_start.size()) {
    size_t from = start + k_warn_start.size();
    return Error(ErrorCode::Input,
                 "execution error at (" + std::string(tokens[1]) +
                     "): " + std::string(tokens[2].substr(from, end - from)),
                 where);
  }
  return Error(ErrorCode::Input, f.message, where);
}

std::string no_template(std::string_view name) {
  return "template: no template " + go_quote(name) + " associated with template " +
         go_quote(k_root_name);
}

/// Executes `name` of `set` into a string (Go's ExecuteTemplate). Throws FuncError with Go's
/// error text.
std::string execute_named(const TemplateSet& set, std::string_view name, const Value& data) {
  const Tree* t = set.find(name);
  if (t == nullptr) throw FuncError{no_template(name)};
  std::string out;
  try {
    Executor(set, *t, out).run(data);
  } catch (const ExecFailure& f) {
    throw FuncError{f.message};
  }
  return out;
}

Value include(EngineState& impl, const FuncArgs& a) {
  const std::string& name = a[0].as_string();
  auto it = impl.included.find(name);
  if (it != impl.included.end()) {
    if (it->second > k_recursion_max) {
      throw FuncError{"rendering template has a nested reference name: " + name +
                      ": unable to execute template"};
    }
    ++it->second;
  } else {
    impl.included.emplace(name, 1);
  }
  struct Decrement {
    EngineState& impl;
    const std::string& name;
    ~Decrement() { --impl.included[name]; }
  } decrement{impl, name};
  return Value::string(execute_named(a.ctx->exec->set(), name, a[1]));
}

/// The trees of a tpl text, parsed once per engine (parsing is deterministic).
const std::map<std::string, TreePtr, std::less<>>& tpl_trees(EngineState& impl,
                                                             const std::string& text) {
  auto it = impl.tpl_cache.find(text);
  if (it != impl.tpl_cache.end()) return it->second.trees;
  auto src = std::make_shared<Source>(Source{std::string(k_root_name), text});
  try {
    auto trees = parse_source(src, impl.funcs);
    const std::string_view key = src->text;
    return impl.tpl_cache.emplace(key, EngineState::ParsedText{std::move(src), std::move(trees)})
        .first->second.trees;
  } catch (const ParseError& e) {
    throw FuncError{"cannot parse template " + go_quote(text) + ": " + e.message};
  }
}

Value tpl(EngineState& impl, const FuncArgs& a) {
  const std::string& text = a[0].as_string();
  const auto& trees = tpl_trees(impl, text);
  TemplateSet clone(&a.ctx->exec->set());
  for (const auto& [name, tree] : trees) clone.associate(tree);
  std::string out;
  try {
    Executor(clone, *trees.at(std::string(k_root_name)), out).run(a[1]);
  } catch (const ExecFailure& f) {
    throw FuncError{"error during tpl function execution for " + go_quote(text) + ": " + f.message};
  }
  strip_no_value(out);
  return Value::string(std::move(out));
}

Value required(const FuncArgs& a) {
  const Value& v = a[1];
  if (v.is_nil() || (v.is_string() && v.as_string().empty())) {
    throw FuncError{std::string(k_warn_start) + a[0].as_string() + std::string(k_warn_end)};
  }
  return v;
}

void register_helm_functions(EngineState& impl) {
  using P = Param;
  FuncMap& m = impl.funcs;
  m.add("include", Function{{P::String, P::Any}, false, true, [&impl](const FuncArgs& a) {
                              return include(impl, a);
                            }});
  m.add("tpl", Function{{P::String, P::Any}, false, true, [&impl](const FuncArgs& a) {
                          return tpl(impl, a);
                        }});
  m.add("required", Function{{P::String, P::Any}, false, true, required});
  m.add("fail", Function{{P::String}, false, true, [](const FuncArgs& a) -> Value {
                           throw FuncError{std::string(k_warn_start) + a[0].as_string() +
                                           std::string(k_warn_end)};
                         }});
  m.add("lookup",
        Function{{P::String, P::String, P::String, P::String}, false, true, [](const FuncArgs&) {
                   return Value::map(Map{}, GoType::MapAny);
                 }});
  m.add("getHostByName",
        Function{{P::String}, false, false, [](const FuncArgs&) { return Value::string(""); }});
  m.remove("env");
  m.remove("expandenv");
}

}  // namespace

struct Engine::Impl : EngineState {};

namespace {

/// The system environment and its base functions, made once per process.
const std::pair<std::shared_ptr<const Env>, std::shared_ptr<const FuncSource>>& system_funcs() {
  static const auto k_system = [] {
    auto env = std::make_shared<const Env>(Env::system());
    return std::make_pair(env, make_base_funcs(env));
  }();
  return k_system;
}

}  // namespace

Engine::Engine(std::shared_ptr<const Env> env) : m_impl(std::make_unique<Impl>()) {
  std::shared_ptr<const FuncSource> base;
  if (env) {
    base = make_base_funcs(env);
  } else {
    std::tie(env, base) = system_funcs();
  }
  m_impl->env = std::move(env);
  m_impl->funcs = FuncMap(std::move(base));
  register_helm_functions(*m_impl);
  m_impl->set.set_funcs(&m_impl->funcs);
}

Engine::~Engine() = default;

void Engine::parse(std::vector<TemplateSource> sources) {
  sort_sources(sources);
  for (TemplateSource& s : sources) {
    auto src = std::make_shared<Source>(Source{std::move(s.name), std::move(s.text)});
    std::map<std::string, TreePtr, std::less<>> trees;
    try {
      trees = parse_source(src, m_impl->funcs);
    } catch (const ParseError& e) {
      throw parse_error(*src, e);
    }
    for (auto& [name, tree] : trees) m_impl->set.associate(tree);
    m_impl->names.push_back(src->name);
  }
}

std::string Engine::execute(std::string_view name, const Value& dot) {
  const Tree* t = m_impl->set.find(name);
  if (t == nullptr) throw Error(ErrorCode::Input, no_template(name));
  std::string out;
  try {
    Executor(m_impl->set, *t, out).run(dot);
  } catch (const ExecFailure& f) {
    throw exec_error(name, f);
  }
  strip_no_value(out);
  return out;
}

std::vector<std::string> Engine::names() const { return m_impl->names; }

FuncMap& Engine::funcs() { return m_impl->funcs; }

}  // namespace ejob::render::helm
