#include "src/job/value_locator.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <regex>
#include <string_view>
#include <utility>

namespace ejob::job {

namespace {

/// One `key=value` of a --set* argument: its key path and where the key and the value start.
struct SetExpression {
  ValuePath path;
  std::size_t key_at = 0;
  std::size_t value_at = 0;
};

std::string line_of(std::string_view text, int line) {
  std::size_t start = 0;
  for (int l = 0; l < line && start != std::string_view::npos; ++l) {
    start = text.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos) return {};
  std::size_t end = text.find('\n', start);
  return std::string(text.substr(start, end == std::string_view::npos ? end : end - start));
}

/// Appends `name` and its `[i]` suffixes (`a[0][1]`) as steps.
void add_steps(std::string name, ValuePath& path) {
  std::size_t bracket = name.find('[');
  std::string base = name.substr(0, bracket);
  if (!base.empty()) path.push_back({base, std::nullopt});
  while (bracket != std::string::npos) {
    std::size_t close = name.find(']', bracket);
    if (close == std::string::npos) return;
    std::string digits = name.substr(bracket + 1, close - bracket - 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return;
    path.push_back({{}, std::stoul(digits)});
    bracket = name.find('[', close);
  }
}

/// The end of a JSON value starting at `at` (brackets and strings balanced), for --set-json.
std::size_t skip_json(std::string_view arg, std::size_t at) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = at; i < arg.size(); ++i) {
    char c = arg[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 0) {
      return i;
    }
  }
  return arg.size();
}

/// The end of a plain value: the next comma not escaped with a backslash.
std::size_t skip_plain(std::string_view arg, std::size_t at) {
  for (std::size_t i = at; i < arg.size(); ++i) {
    if (arg[i] == '\\')
      ++i;
    else if (arg[i] == ',')
      return i;
  }
  return arg.size();
}

/// The expressions of one argument as Helm's strvals reads them (`a.b=1,c[0]=x`; a literal is
/// one expression whatever it holds).
std::vector<SetExpression> set_expressions(std::string_view arg, bool json, bool literal) {
  std::vector<SetExpression> out;
  std::size_t at = 0;
  while (at < arg.size()) {
    SetExpression e;
    e.key_at = at;
    std::string name;
    std::size_t i = at;
    for (; i < arg.size() && arg[i] != '=' && arg[i] != ','; ++i) {
      if (arg[i] == '\\' && i + 1 < arg.size())
        name += arg[++i];
      else if (arg[i] == '.')
        add_steps(std::exchange(name, {}), e.path);
      else
        name += arg[i];
    }
    add_steps(name, e.path);
    e.value_at = i < arg.size() && arg[i] == '=' ? i + 1 : i;
    at = literal ? arg.size() : json ? skip_json(arg, e.value_at) : skip_plain(arg, e.value_at);
    out.push_back(std::move(e));
    ++at;
  }
  return out;
}

bool same_step(const PathStep& a, const PathStep& b) {
  return a.key == b.key && a.index == b.index;
}

/// Whether `prefix` is `path` or leads to it.
bool leads_to(const ValuePath& prefix, const ValuePath& path) {
  if (prefix.empty() || prefix.size() > path.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (!same_step(prefix[i], path[i])) return false;
  return true;
}

/// The node a step leads to, with the mark of its key (or list item); false when absent.
bool descend(YAML::Node& node, const PathStep& step, YAML::Mark& key_mark) {
  if (step.index) {
    if (!node.IsSequence() || *step.index >= node.size()) return false;
    node = node[*step.index];
    key_mark = node.Mark();
    return true;
  }
  if (!node.IsMap()) return false;
  bool found = false;
  YAML::Node value;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == step.key) {  // the last one wins
      key_mark = it->first.Mark();
      value = it->second;
      found = true;
    }
  }
  if (found) node = value;
  return found;
}

std::optional<Location> find_in_yaml(const std::string& file, const std::string& text,
                                     const ValuePath& path, Part part) {
  YAML::Node node;
  try {
    node = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
  YAML::Mark key_mark;
  for (const PathStep& step : path)
    if (!descend(node, step, key_mark)) return std::nullopt;
  YAML::Mark mark = part == Part::Value && !node.Mark().is_null() && node.Mark().line >= 0
                        ? node.Mark()
                        : key_mark;
  if (mark.is_null() || mark.line < 0) return std::nullopt;
  return Location{file, mark.line + 1, mark.column + 1, line_of(text, mark.line)};
}

}  // namespace

std::string path_text(const ValuePath& path) {
  std::string out;
  for (const PathStep& step : path) {
    if (step.index)
      out += "[" + std::to_string(*step.index) + "]";
    else
      out += (out.empty() ? "" : ".") + step.key;
  }
  return out;
}

ValueLocator::ValueLocator(render::helm::ValueSources sources, render::helm::ReadFile read)
    : m_sources(std::move(sources)), m_read(std::move(read)) {}

std::optional<Location> ValueLocator::find(const std::string& file, const ValuePath& path,
                                           Part part) const {
  try {
    return find_in_yaml(file, m_read(file), path, part);
  } catch (const Error&) {  // unreadable: the error being reported names the file anyway
    return std::nullopt;
  }
}

Location ValueLocator::in_file(const std::string& file, const ValuePath& path, Part part) const {
  return find(file, path, part).value_or(Location{file});
}

Location ValueLocator::in_flags(const ValuePath& path, Part part) const {
  // Helm applies the kinds in this order, so the last match of the last kind is in effect.
  const std::pair<const std::vector<std::string>*, std::string_view> kinds[] = {
      {&m_sources.set_json, "--set-json"},
      {&m_sources.set, "--set"},
      {&m_sources.set_string, "--set-string"},
      {&m_sources.set_file, "--set-file"},
      {&m_sources.set_literal, "--set-literal"}};
  for (auto kind = std::rbegin(kinds); kind != std::rend(kinds); ++kind) {
    const auto& [args, flag] = *kind;
    for (auto arg = args->rbegin(); arg != args->rend(); ++arg) {
      auto expressions = set_expressions(*arg, flag == "--set-json", flag == "--set-literal");
      for (auto e = expressions.rbegin(); e != expressions.rend(); ++e) {
        if (!leads_to(e->path, path)) continue;
        std::size_t at = part == Part::Key ? e->key_at : e->value_at;
        int column = static_cast<int>(flag.size() + 1 + at) + 1;
        return Location{std::string(flag), 0, column, std::string(flag) + " " + *arg};
      }
    }
  }
  return {};
}

Location ValueLocator::in_effect(const ValuePath& path, Part part) const {
  if (Location flags = in_flags(path, part); !flags.empty()) return flags;
  for (auto file = m_sources.files.rbegin(); file != m_sources.files.rend(); ++file)
    if (auto found = find(*file, path, part)) return *found;
  return {};
}

namespace {

constexpr std::string_view k_schema_report =
    "values don't meet the specifications of the schema(s) in the following chart(s):";

/// `/storage/data/blob` as steps; a number is a list index where the values have a list.
std::vector<std::string> pointer_segments(const std::string& pointer) {
  std::vector<std::string> out;
  for (size_t at = 1; at <= pointer.size() && !pointer.empty();) {
    size_t slash = pointer.find('/', at);
    std::string s = pointer.substr(at, slash == std::string::npos ? slash : slash - at);
    for (size_t i; (i = s.find("~1")) != std::string::npos;) s.replace(i, 2, "/");
    for (size_t i; (i = s.find("~0")) != std::string::npos;) s.replace(i, 2, "~");
    out.push_back(std::move(s));
    if (slash == std::string::npos) break;
    at = slash + 1;
  }
  return out;
}

/// Where the value at `segments` was written; each all-digit segment tried as an index, then
/// as a key.
std::optional<std::pair<ValuePath, Location>> find_pointer(const ValueLocator& locator,
                                                           const std::vector<std::string>& segs,
                                                           ValuePath path = {}) {
  if (path.size() == segs.size()) {
    Location where = locator.in_effect(path, Part::Key);
    if (where.empty()) return std::nullopt;
    return std::make_pair(path, where);
  }
  const std::string& s = segs[path.size()];
  const bool digits = !s.empty() && s.size() < 7 &&
                      std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    ValuePath as_index = path;
    as_index.push_back({"", std::stoul(s)});
    if (auto found = find_pointer(locator, segs, as_index)) return found;
  }
  path.push_back({s, std::nullopt});
  return find_pointer(locator, segs, path);
}

}  // namespace

std::optional<Error> locate_schema_error(const Error& e, const ValueLocator& locator) {
  const std::string& report = e.message();
  if (report.rfind(k_schema_report, 0) != 0) return std::nullopt;
  static const std::regex problem("\\n- at '(/[^']*)': ([^\\n]*)");
  std::smatch m;
  if (!std::regex_search(report, m, problem)) return std::nullopt;
  const auto found = find_pointer(locator, pointer_segments(m[1].str()));
  if (!found) return std::nullopt;
  static const std::regex any_problem("\\n *- at '");
  const auto problems = std::distance(
      std::sregex_iterator(report.begin(), report.end(), any_problem), std::sregex_iterator());
  std::string message =
      path_text(found->first) + ": " + m[2].str() + " (the chart's values.schema.json";
  if (problems > 1) message += "; and " + std::to_string(problems - 1) + " more problems";
  return Error(e.code(), message + ")", found->second);
}

}  // namespace ejob::job
