#include "src/render/helm/coalesce.hpp"

#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "src/render/go/fmt.hpp"
#include "src/render/go/json.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/helm/chart_metadata.hpp"
#include "src/render/sprig/semver.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoType;
using go::List;
using go::Map;
using go::MapPtr;
using go::Value;
using sprig::SemConstraints;
using sprig::SemverError;
using sprig::SemVersion;
using yaml::load_yaml;

namespace {

bool is_table(const Value& v) { return v.type() == GoType::MapAny; }

std::string concat_prefix(const std::string& a, const std::string& b) {
  return a.empty() ? b : a + "." + b;
}

/// A deep copy of a tree that nobody reads afterwards: a table or list that only the tree
/// holds is taken over (its contents treated alike) instead of copied; one held elsewhere too
/// (by imported tables, another chart, or twice in the tree) is deep-copied. The result shares
/// nothing, as a deep copy, without a second copy of the whole tree alive at once.
void take_or_copy(Value& slot) {
  if (slot.is_map()) {
    if (slot.map_ptr().use_count() > 1) {
      slot = slot.deep_copy();
      return;
    }
    for (auto& [key, child] : slot.mutable_map()) take_or_copy(child);
  } else if (slot.is_list()) {
    if (slot.list_ptr().use_count() > 1) {
      slot = slot.deep_copy();
      return;
    }
    for (Value& item : slot.mutable_list()) take_or_copy(item);
  }
}

/// Helm's coalesce.go as one object holding the warning sink.
class Coalescer {
 public:
  explicit Coalescer(const Warn& warn) : m_warn(warn) {}

  /// From here on the values in `taken` (by chart) are used instead of copies of the charts'.
  void use_up(std::unordered_map<const Chart*, Value> taken) { m_taken = std::move(taken); }

  /// Copy on write from here on: the destination shares its tables with values that must not
  /// change, and each table is copied (shallowly) the first time this coalescing changes it.
  /// `root` is the destination itself, already a copy.
  void copy_on_write(const MapPtr& root) {
    m_copy_on_write = true;
    m_owned.insert(root.get());
  }

  void coalesce(const Chart& c, Map& dest, const std::string& prefix, bool merge) {
    values(c, dest, prefix, merge);
    deps(c, dest, prefix, merge);
  }

  /// coalesceTablesFullKey: `dst` is authoritative, `src` fills in.
  void tables(Map& dst, Map& src, const std::string& prefix, bool merge) {
    // A user null removes a chart default, but a null for a key the chart does not set (or
    // sets to null itself) is kept (Helm >= 3.19).
    std::set<std::string, std::less<>> src_non_nil;
    for (const auto& [key, val] : src)
      if (!val.is_nil()) src_non_nil.insert(key);
    for (const auto& [key, val] : dst)
      if (val.is_nil()) src.insert_or_assign(key, Value());
    for (auto& [key, val] : src) {
      std::string full = concat_prefix(prefix, key);
      auto it = dst.find(key);
      if (it != dst.end() && !merge && it->second.is_nil() && src_non_nil.contains(key)) {
        dst.erase(it);
      } else if (it == dst.end()) {
        dst.emplace(key, val);
      } else if (is_table(val)) {
        if (is_table(it->second))
          tables(own(it->second), own(val), full, merge);
        else
          warn(fmt::format("warning: cannot overwrite table with non table for {} ({})", full,
                           format_v(val)));
      } else if (is_table(it->second) && !val.is_nil()) {
        warn(fmt::format("warning: destination for {} is a table. Ignoring non-table value ({})",
                         full, format_v(val)));
      }
    }
  }

 private:
  void warn(const std::string& msg) const {
    if (m_warn) m_warn(msg);
  }

  static bool is_child_chart(const Chart& c, const std::string& key) {
    for (const auto& sub : c.dependencies)
      if (sub->name() == key) return true;
    return false;
  }

  /// coalesceValues: chart defaults into `v`.
  void values(const Chart& c, Map& v, const std::string& prefix, bool merge) {
    std::string sub_prefix = concat_prefix(prefix, c.name());
    Value defaults = chart_defaults(c);
    for (auto& [key, val] : defaults.mutable_map()) {
      auto it = v.find(key);
      if (it == v.end()) {
        v.emplace(key, val);
      } else if (it->second.is_nil() && !merge) {
        v.erase(it);
      } else if (is_table(it->second)) {
        if (!is_table(val)) {
          if (!val.is_nil())
            warn(fmt::format("warning: skipped value for {}.{}: Not a table.", sub_prefix, key));
        } else {
          bool child_merge = merge || is_child_chart(c, key);
          tables(own(it->second), val.mutable_map(), concat_prefix(sub_prefix, key), child_merge);
        }
      }
    }
  }

  void deps(const Chart& c, Map& dest, const std::string& prefix, bool merge) {
    for (const auto& sub : c.dependencies) {
      auto it = dest.find(sub->name());
      if (it == dest.end()) {
        it = dest.emplace(sub->name(), Value::map()).first;
      } else if (!is_table(it->second)) {
        std::vector<Value> args{Value::string(sub->name()), it->second};
        throw Error(ErrorCode::Input, sprintf("type mismatch on %s: %t", args));
      }
      own(it->second);
      Value table = it->second;
      std::string sub_prefix = concat_prefix(prefix, c.name());
      globals(table.mutable_map(), dest, sub_prefix);
      coalesce(*sub, table.mutable_map(), sub_prefix, merge);
    }
  }

  /// coalesceGlobals: the parent's `global` into the subchart's (parent wins).
  void globals(Map& dest, Map& src, const std::string& prefix) {
    Value dg = Value::map();
    if (auto it = dest.find("global"); it != dest.end()) {
      if (!is_table(it->second)) {
        warn("warning: skipping globals because destination global is not a table.");
        return;
      }
      own(it->second);
      dg = it->second;
    }
    Value sg = Value::map();
    if (auto it = src.find("global"); it != src.end()) {
      if (!is_table(it->second)) {
        warn("warning: skipping globals because source global is not a table.");
        return;
      }
      sg = it->second;
    }
    Map& d = dg.mutable_map();
    for (const auto& [key, val] : sg.as_map()) {
      auto it = d.find(key);
      if (is_table(val)) {
        Value copy = Value::map(val.as_map());  // shallow, as Helm's copyMap
        if (it == d.end()) {
          d.emplace(key, copy);
        } else if (!is_table(it->second)) {
          warn(fmt::format("Conflict: cannot merge map onto non-map for {}. Skipping.",
                           go_quote(key)));
        } else {
          tables(copy.mutable_map(), own(it->second), concat_prefix(prefix, key), true);
          it->second = copy;
        }
      } else if (it != d.end() && is_table(it->second)) {
        warn(fmt::format("key {} is table. Skipping", key));
      } else {
        d.insert_or_assign(key, val);
      }
    }
    dest.insert_or_assign("global", dg);
  }

  /// A copy of the chart's values (copystructure.Copy), or the values taken out of it before
  /// (use_up), made a copy's equal by take_or_copy.
  Value chart_defaults(const Chart& c) {
    auto it = m_taken.find(&c);
    if (it == m_taken.end()) return c.values.deep_copy();
    Value taken = std::move(it->second);
    m_taken.erase(it);
    take_or_copy(taken);
    return taken;
  }

  /// The table in `slot`, to be changed: under copy on write, a table this coalescing did not
  /// copy yet is copied into the slot first (kept alive, so no other table takes its address).
  Map& own(Value& slot) {
    if (m_copy_on_write && !m_owned.contains(&slot.as_map())) {
      slot = Value::map(slot.as_map(), slot.type());
      m_owned.insert(&slot.as_map());
      m_keep.push_back(slot.map_ptr());
    }
    return slot.mutable_map();
  }

  const Warn& m_warn;
  std::unordered_map<const Chart*, Value> m_taken;
  bool m_copy_on_write = false;
  std::unordered_set<const Map*> m_owned;
  std::vector<MapPtr> m_keep;
};

/// Values.Table(path): the map at a dotted path; nullptr (and the missing key) otherwise.
const Value* table_at(const Map& root, const std::string& path, std::string& missing) {
  const Map* table = &root;
  const Value* found = nullptr;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
    auto it = table->find(key);
    if (it == table->end() || !it->second.is_map()) {
      missing = key;
      return nullptr;
    }
    found = &it->second;
    table = &it->second.as_map();
    if (dot == std::string::npos) return found;
    start = dot + 1;
  }
}

/// Values.PathValue: a non-table leaf at a dotted path.
const Value* path_value(const Map& root, const std::string& path) {
  size_t dot = path.rfind('.');
  const Map* table = &root;
  std::string missing;
  if (dot != std::string::npos) {
    const Value* t = table_at(root, path.substr(0, dot), missing);
    if (t == nullptr) return nullptr;
    table = &t->as_map();
  }
  auto it = table->find(path.substr(dot == std::string::npos ? 0 : dot + 1));
  if (it == table->end() || is_table(it->second)) return nullptr;
  return &it->second;
}

/// coalesce_values for values that are only read, then dropped: processDependencyEnabled's
/// `cvals`, which Helm makes as a deep copy of the parent's at every level of the chart tree,
/// all of them alive down the recursion (4 whole copies of the big chart's values at once,
/// its peak). The result is the same map, but shares with `user` every table the chart's
/// values leave alone; so nothing may change it.
Map coalesce_values_to_read(const Chart& chart, const Map& user, const Warn& warn) {
  Value dest = Value::map(user);
  Coalescer coalescer(warn);
  coalescer.copy_on_write(dest.map_ptr());
  coalescer.coalesce(chart, dest.mutable_map(), "", false);
  return dest.as_map();
}

/// processDependencyEnabled and processImportValues.
class DependencyProcessor {
 public:
  explicit DependencyProcessor(const Warn& warn) : m_warn(warn) {}

  void enable(Chart& c, const Map& v, const std::string& path) {
    ChartMetadata& md = c.metadata;
    if (!md.has_dependencies) return;
    std::vector<ChartPtr> chosen;
    for (const ChartPtr& existing : c.dependencies) {
      bool declared = false;
      for (const Dependency& req : md.dependencies)
        declared = declared || (existing->name() == req.name &&
                                is_compatible_range(req.version, existing->metadata.version));
      if (!declared) chosen.push_back(existing);
    }
    for (Dependency& req : md.dependencies) {
      if (ChartPtr copy = alias_copy(c.dependencies, req)) chosen.push_back(copy);
      if (!req.alias.empty()) req.name = req.alias;
    }
    c.replaced.insert(c.replaced.end(), c.dependencies.begin(), c.dependencies.end());
    set_dependencies(c, chosen);
    for (Dependency& req : md.dependencies) req.enabled = true;
    Map cvals = coalesce_values_to_read(c, v, m_warn);
    tags(md.dependencies, cvals);
    conditions(md.dependencies, cvals, path);
    std::set<std::string> removed;
    for (const Dependency& req : md.dependencies)
      if (!req.enabled) removed.insert(req.name);
    for (const ChartPtr& d : c.dependencies)
      if (removed.contains(d->name())) c.replaced.push_back(d);
    std::erase_if(c.dependencies, [&](const ChartPtr& d) { return removed.contains(d->name()); });
    std::erase_if(md.dependencies, [&](const Dependency& d) { return removed.contains(d.name); });
    for (const ChartPtr& sub : c.dependencies) enable(*sub, cvals, path + sub->name() + ".");
    set_dependencies(c, c.dependencies);  // Helm's last SetDependencies, after the recursion
  }

  void import_all(Chart& c) {
    for (const ChartPtr& sub : c.dependencies) import_all(*sub);
    import_values(c);
  }

 private:
  void warn(const std::string& msg) const {
    if (m_warn) m_warn(msg);
  }

  /// Chart.SetDependencies: the list, each member's parent set to `c` (shared subcharts
  /// take the parent that set them last, as in Go).
  static void set_dependencies(Chart& c, std::vector<ChartPtr> deps) {
    for (const ChartPtr& d : deps) d->parent = &c;
    c.dependencies = std::move(deps);
  }

  static ChartPtr alias_copy(const std::vector<ChartPtr>& charts, const Dependency& dep) {
    for (const ChartPtr& c : charts) {
      if (!c || c->name() != dep.name) continue;
      if (!is_compatible_range(dep.version, c->metadata.version)) continue;
      auto copy = std::make_shared<Chart>(*c);  // shallow: subcharts shared, as Go's `*c`
      if (!dep.alias.empty()) copy->metadata.name = dep.alias;
      return copy;
    }
    return nullptr;
  }

  void tags(std::vector<Dependency>& reqs, const Map& cvals) const {
    auto it = cvals.find("tags");
    if (it == cvals.end() || !it->second.is_map()) return;
    const Map& vt = it->second.as_map();
    for (Dependency& r : reqs) {
      bool has_true = false;
      bool has_false = false;
      for (const std::string& k : r.tags) {
        auto t = vt.find(k);
        if (t == vt.end()) continue;
        if (t->second.is_bool())
          (t->second.as_bool() ? has_true : has_false) = true;
        else
          warn(fmt::format("Warning: Tag '{}' for chart {} returned non-bool value", k, r.name));
      }
      if (!has_true && has_false)
        r.enabled = false;
      else if (has_true || !has_false)
        r.enabled = true;
    }
  }

  void conditions(std::vector<Dependency>& reqs, const Map& cvals, const std::string& path) const {
    for (Dependency& r : reqs) {
      std::string all = go::unicode::trim_space(r.condition);
      size_t start = 0;
      while (start <= all.size()) {
        size_t comma = all.find(',', start);
        std::string c = all.substr(start, comma == std::string::npos ? comma : comma - start);
        start = comma == std::string::npos ? all.size() + 1 : comma + 1;
        if (c.empty()) continue;
        const Value* v = path_value(cvals, path + c);
        if (v == nullptr) continue;
        if (v->is_bool()) {
          r.enabled = v->as_bool();
          break;
        }
        warn(fmt::format("Warning: Condition path '{}' for chart {} returned non-bool value", c,
                         r.name));
      }
    }
  }

  void import_values(Chart& c) {
    if (!c.metadata.has_dependencies) return;
    Map cvals = coalesce_values(c, {}, m_warn, true);
    Map b;
    Coalescer merger(m_warn);
    for (Dependency& r : c.metadata.dependencies) {
      List out;
      for (const Value& riv : r.import_values) {
        std::string child;
        std::string parent = ".";
        if (is_table(riv)) {
          child = string_at(riv, "child");
          parent = string_at(riv, "parent");
          out.push_back(
              Value::map({{"child", Value::string(child)}, {"parent", Value::string(parent)}},
                         GoType::MapString));
        } else if (riv.is_string()) {
          child = "exports." + riv.as_string();
          out.push_back(
              Value::map({{"child", Value::string(child)}, {"parent", Value::string(".")}},
                         GoType::MapString));
        } else {
          continue;
        }
        std::string missing;
        const Value* table = table_at(cvals, r.name + "." + child, missing);
        if (table == nullptr) {
          warn(is_table(riv) ? fmt::format("Warning: ImportValues missing table from chart {}: "
                                           "{} is not a table",
                                           r.name, go_quote(missing))
                             : fmt::format("Warning: ImportValues missing table: {} is not a table",
                                           go_quote(missing)));
          continue;
        }
        Value imported = path_to_map(parent, *table);
        merger.tables(b, imported.mutable_map(), "", true);
      }
      r.import_values = std::move(out);
    }
    c.values = Value();  // read into cvals already; dropped before the copy below
    Value copy = Value::map(std::move(cvals));
    take_or_copy(copy);  // Helm's deepCopyMap(cvals): b must not share tables with it
    merger.tables(copy.mutable_map(), b, "", true);
    c.values = copy;
  }

  static std::string string_at(const Value& m, const std::string& key) {
    auto it = m.as_map().find(key);
    return it != m.as_map().end() && it->second.is_string() ? it->second.as_string() : "";
  }

  /// pathToMap: `a.b` + data → {a: {b: data}}; `.` → data itself.
  static Value path_to_map(const std::string& path, const Value& data) {
    if (path == ".") return data;
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
      size_t dot = path.find('.', start);
      parts.push_back(path.substr(start, dot == std::string::npos ? dot : dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    Value cur = data;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) cur = Value::map({{*it, cur}});
    return cur;
  }

  const Warn& m_warn;
};

}  // namespace

Map merge_maps(const Map& a, const Map& b) {
  Map out = a;
  for (const auto& [k, v] : b) {
    auto it = out.find(k);
    if (is_table(v) && it != out.end() && is_table(it->second))
      it->second = Value::map(merge_maps(it->second.as_map(), v.as_map()));
    else
      out.insert_or_assign(k, v);
  }
  return out;
}

Map merge_user_values(const ValueSources& sources, const ReadFile& read) {
  Map base;
  for (const std::string& path : sources.files) {
    Value doc;
    try {
      doc = load_yaml(read(path), path);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Io) throw;
      throw Error(e.code(), "failed to parse " + path + ": " + e.message(), e.where());
    }
    if (doc.is_nil()) continue;
    if (!is_table(doc))
      throw Error(ErrorCode::Input,
                  "failed to parse " + path +
                      ": error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " +
                      json_kind_name(doc) + " into Go value of type map[string]interface {}",
                  {path});
    base = merge_maps(base, doc.as_map());
  }
  for (const std::string& arg : sources.set_json) {
    std::string trimmed = go::unicode::trim_space(arg);
    if (!trimmed.empty() && trimmed[0] == '{') {
      go::json::Decoded d = go::json::unmarshal(trimmed, go::json::Target::Map);
      if (!d.error.empty() || !is_table(d.value))
        throw Error(ErrorCode::Usage, "failed parsing --set-json data JSON: " + arg);
      base = merge_maps(base, d.value.as_map());
      continue;
    }
    try {
      parse_set_into(arg, base, SetFlag::SetJson);
    } catch (const Error&) {
      throw Error(ErrorCode::Usage, "failed parsing --set-json data " + arg);
    }
  }
  auto apply = [&](const std::vector<std::string>& args, SetFlag flag, std::string_view name) {
    for (const std::string& arg : args) {
      try {
        parse_set_into(arg, base, flag, read);
      } catch (const Error& e) {
        throw Error(e.code(), fmt::format("failed parsing {} data: {}", name, e.message()));
      }
    }
  };
  apply(sources.set, SetFlag::Set, "--set");
  apply(sources.set_string, SetFlag::SetString, "--set-string");
  apply(sources.set_file, SetFlag::SetFile, "--set-file");
  apply(sources.set_literal, SetFlag::SetLiteral, "--set-literal");
  return base;
}

Map coalesce_values(const Chart& chart, const Map& user, const Warn& warn, bool merge) {
  Value dest = Value::map(user).deep_copy();
  Coalescer(warn).coalesce(chart, dest.mutable_map(), "", merge);
  return dest.as_map();
}

namespace {

/// The charts of the tree reached once from its root (not through two alias copies).
void count_visits(const Chart& c, std::unordered_map<const Chart*, int>& visits) {
  ++visits[&c];
  for (const ChartPtr& sub : c.dependencies) count_visits(*sub, visits);
}

/// Takes the values out of every chart of the tree reached once.
void take_values(Chart& c, const std::unordered_map<const Chart*, int>& visits,
                 std::unordered_map<const Chart*, Value>& taken) {
  if (visits.at(&c) == 1) taken.emplace(&c, std::exchange(c.values, Value()));
  for (const ChartPtr& sub : c.dependencies) take_values(*sub, visits, taken);
}

}  // namespace

Map coalesce_release_values(Chart& chart, const Map& user, const Warn& warn) {
  std::unordered_map<const Chart*, int> visits;
  count_visits(chart, visits);
  std::unordered_map<const Chart*, Value> taken;
  take_values(chart, visits, taken);
  Value dest = Value::map(user).deep_copy();
  Coalescer coalescer(warn);
  coalescer.use_up(std::move(taken));
  coalescer.coalesce(chart, dest.mutable_map(), "", false);
  return dest.as_map();
}

void process_dependencies(Chart& chart, const Map& user, const Warn& warn) {
  DependencyProcessor p(warn);
  p.enable(chart, user, "");
  p.import_all(chart);
}

bool is_compatible_range(std::string_view constraint, std::string_view version) {
  try {
    SemVersion v = SemVersion::parse(version);
    // Masterminds treats an empty constraint as `*` (>= 0.0.0, no prereleases).
    return SemConstraints::parse(constraint.empty() ? "*" : constraint).check(v);
  } catch (const SemverError&) {
    return false;
  }
}

}  // namespace ejob::render::helm
