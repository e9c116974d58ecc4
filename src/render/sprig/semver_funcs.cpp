// Sprig's semver and semverCompare (semver.go). `semver` returns a *semver.Version object whose
// methods templates can call: Major, Minor, Patch, Prerelease, Metadata, Original, String,
// IncMajor, IncMinor, IncPatch, Compare, LessThan, GreaterThan, Equal.
#include <algorithm>
#include <memory>
#include <string>

#include "src/render/sprig/semver.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

/// *semver.Version (pointer = true) or semver.Version (the value Inc* returns).
class SemverObject : public Object {
 public:
  SemverObject(SemVersion v, bool pointer) : m_v(std::move(v)), m_pointer(pointer) {}
  [[nodiscard]] std::string type_name() const override {
    return m_pointer ? "*semver.Version" : "semver.Version";
  }
  [[nodiscard]] GoKind kind() const override { return m_pointer ? GoKind::Ptr : GoKind::Struct; }
  [[nodiscard]] bool has_method(std::string_view name) const override {
    static const std::vector<std::string_view> k_methods = {
        "Major",    "Minor",    "Patch",    "Prerelease", "Metadata", "String",      "IncMajor",
        "IncMinor", "IncPatch", "Original", "Compare",    "LessThan", "GreaterThan", "Equal"};
    if (!m_pointer && (name == "Original" || name == "Compare" || name == "LessThan" ||
                       name == "GreaterThan" || name == "Equal")) {
      return false;  // pointer-receiver methods are not in the value's method set
    }
    return std::find(k_methods.begin(), k_methods.end(), name) != k_methods.end();
  }
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> args) const override;
  bool field(std::string_view /*name*/, Value& /*out*/) const override { return false; }
  [[nodiscard]] std::string format_v() const override { return m_v.str(); }
  [[nodiscard]] const SemVersion& version() const { return m_v; }

 private:
  SemVersion m_v;
  bool m_pointer;
};

Value version_value(SemVersion v, bool pointer) {
  return Value::object(std::make_shared<SemverObject>(std::move(v), pointer));
}

/// Semver's Inc* rules: metadata and prerelease are dropped; IncPatch of a prerelease keeps
/// the patch number; otherwise the segment increments and lower ones reset.
SemVersion increment(const SemVersion& v, std::string_view which) {
  SemVersion out = v;
  out.metadata.clear();
  if (which == "IncPatch") {
    if (v.pre.empty()) ++out.patch;
    out.pre.clear();
  } else if (which == "IncMinor") {
    out.pre.clear();
    ++out.minor;
    out.patch = 0;
  } else {
    out.pre.clear();
    ++out.major;
    out.minor = 0;
    out.patch = 0;
  }
  std::string prefix = !v.original.empty() && v.original[0] == 'v' ? "v" : "";
  out.original = prefix + out.str();
  return out;
}

Value SemverObject::call(std::string_view name, std::span<const Value> args) const {
  if (name == "Major") return Value::uint64(m_v.major);
  if (name == "Minor") return Value::uint64(m_v.minor);
  if (name == "Patch") return Value::uint64(m_v.patch);
  if (name == "Prerelease") return Value::string(m_v.pre);
  if (name == "Metadata") return Value::string(m_v.metadata);
  if (name == "String") return Value::string(m_v.str());
  if (name == "Original") return Value::string(m_v.original);
  if (name.starts_with("Inc")) return version_value(increment(m_v, name), false);
  const auto* other = args.empty() || !args[0].is_object()
                          ? nullptr
                          : dynamic_cast<const SemverObject*>(&args[0].as_object());
  if (other == nullptr || !other->m_pointer) {
    std::string got = args.empty() ? "<nil>" : args[0].type_name();
    throw FuncError{"wrong type for value; expected *semver.Version; got " + got};
  }
  int c = m_v.compare(other->version());
  if (name == "Compare") return Value::integer(c);
  if (name == "LessThan") return Value::boolean(c < 0);
  if (name == "GreaterThan") return Value::boolean(c > 0);
  return Value::boolean(c == 0);  // Equal
}

}  // namespace

void register_sprig_semver(FuncMap& map) {
  map.add("semver", fn(
                        {P::String},
                        [](const FuncArgs& a) {
                          try {
                            return version_value(SemVersion::parse(a[0].as_string()), true);
                          } catch (const SemverError& e) {
                            throw FuncError{e.what};
                          }
                        },
                        Ret::ValueError));
  map.add("semverCompare",
          fn(
              {P::String, P::String},
              [](const FuncArgs& a) {
                try {
                  SemConstraints c = SemConstraints::parse(a[0].as_string());
                  return Value::boolean(c.check(SemVersion::parse(a[1].as_string())));
                } catch (const SemverError& e) {
                  throw FuncError{e.what};
                }
              },
              Ret::ValueError));
}

}  // namespace ejob::render::sprig
