#pragma once
/// The functions every engine starts from: Go's builtins, Sprig without env/expandenv, and
/// Helm's serialization functions (which replace Sprig's of the same name). They are registered
/// group by group — one group per register_* function — on the first lookup of one of the
/// group's names, so a render builds only the groups its templates name (the starter chart
/// needs 5 of 17; building all ~230 functions and freeing them at exit was ~6% of `ejob
/// template`'s instructions).

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "src/render/text_template/funcs.hpp"

namespace ejob::render::helm {

/// Registers Helm's serialization functions: toYaml, toYamlPretty, fromYaml, fromYamlArray,
/// toJson, fromJson, fromJsonArray, toToml, fromToml (Helm's versions, which override Sprig's).
/// Defined in serialization.cpp.
void register_helm_serialization(text_template::FuncMap& map);

/// The base functions, reading time and randomness from `env`. Safe to share between threads.
std::shared_ptr<const text_template::FuncSource> make_base_funcs(
    std::shared_ptr<const text_template::Env> env);

/// The groups, in the order their registrations apply (a later group's function replaces an
/// earlier one of the same name).
enum class FuncGroup : uint8_t {
  Builtins,
  Strings,
  Text,
  Lists,
  Dicts,
  Math,
  Defaults,
  Reflect,
  Encoding,
  Regex,
  Semver,
  Crypto,
  Certs,
  Dates,
  Paths,
  Json,
  Serialization,
};

/// Number of FuncGroup values.
inline constexpr size_t k_func_groups = static_cast<size_t>(FuncGroup::Serialization) + 1;

/// One base function name and the group whose registration of it stands.
struct BaseFuncName {
  std::string_view name;
  FuncGroup group;
};

/// Every base function name, sorted by name (base_funcs_test.cpp checks it against the
/// registrations themselves).
std::span<const BaseFuncName> base_func_names();

/// Runs the registration of `group` into `map`.
void register_func_group(FuncGroup group, text_template::FuncMap& map,
                         const std::shared_ptr<const text_template::Env>& env);

}  // namespace ejob::render::helm
