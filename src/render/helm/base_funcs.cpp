// The base function map, built by group on first use (base_funcs.hpp).

#include "src/render/helm/base_funcs.hpp"

#include <algorithm>
#include <array>

#include "src/render/sprig/support.hpp"
#include "src/util/once.hpp"

namespace ejob::render::helm {

using text_template::Env;
using text_template::FuncMap;
using text_template::FuncSource;
using text_template::Function;

namespace {

using G = FuncGroup;

/// Every base function and its group, sorted by name.
// One entry per line, so the table reads as one.
// clang-format off
constexpr BaseFuncName k_names[] = {
    {"abbrev", G::Strings},
    {"abbrevboth", G::Strings},
    {"add", G::Math},
    {"add1", G::Math},
    {"add1f", G::Math},
    {"addf", G::Math},
    {"adler32sum", G::Crypto},
    {"ago", G::Dates},
    {"all", G::Defaults},
    {"and", G::Builtins},
    {"any", G::Defaults},
    {"append", G::Lists},
    {"atoi", G::Math},
    {"b32dec", G::Encoding},
    {"b32enc", G::Encoding},
    {"b64dec", G::Encoding},
    {"b64enc", G::Encoding},
    {"base", G::Paths},
    {"bcrypt", G::Crypto},
    {"biggest", G::Math},
    {"buildCustomCert", G::Certs},
    {"call", G::Builtins},
    {"camelcase", G::Text},
    {"cat", G::Strings},
    {"ceil", G::Math},
    {"chunk", G::Lists},
    {"clean", G::Paths},
    {"coalesce", G::Defaults},
    {"compact", G::Lists},
    {"concat", G::Lists},
    {"contains", G::Strings},
    {"date", G::Dates},
    {"dateInZone", G::Dates},
    {"dateModify", G::Dates},
    {"date_in_zone", G::Dates},
    {"date_modify", G::Dates},
    {"decryptAES", G::Crypto},
    {"deepCopy", G::Defaults},
    {"deepEqual", G::Reflect},
    {"default", G::Defaults},
    {"derivePassword", G::Crypto},
    {"dict", G::Dicts},
    {"dig", G::Dicts},
    {"dir", G::Paths},
    {"div", G::Math},
    {"divf", G::Math},
    {"duration", G::Dates},
    {"durationRound", G::Dates},
    {"empty", G::Defaults},
    {"encryptAES", G::Crypto},
    {"eq", G::Builtins},
    {"ext", G::Paths},
    {"fail", G::Paths},
    {"first", G::Lists},
    {"float64", G::Math},
    {"floor", G::Math},
    {"fromJson", G::Serialization},
    {"fromJsonArray", G::Serialization},
    {"fromToml", G::Serialization},
    {"fromYaml", G::Serialization},
    {"fromYamlArray", G::Serialization},
    {"ge", G::Builtins},
    {"genCA", G::Certs},
    {"genCAWithKey", G::Certs},
    {"genPrivateKey", G::Certs},
    {"genSelfSignedCert", G::Certs},
    {"genSelfSignedCertWithKey", G::Certs},
    {"genSignedCert", G::Certs},
    {"genSignedCertWithKey", G::Certs},
    {"get", G::Dicts},
    {"getHostByName", G::Paths},
    {"gt", G::Builtins},
    {"has", G::Lists},
    {"hasKey", G::Dicts},
    {"hasPrefix", G::Strings},
    {"hasSuffix", G::Strings},
    {"hello", G::Strings},
    {"html", G::Builtins},
    {"htmlDate", G::Dates},
    {"htmlDateInZone", G::Dates},
    {"htpasswd", G::Crypto},
    {"indent", G::Strings},
    {"index", G::Builtins},
    {"initial", G::Lists},
    {"initials", G::Text},
    {"int", G::Math},
    {"int64", G::Math},
    {"isAbs", G::Paths},
    {"join", G::Strings},
    {"js", G::Builtins},
    {"kebabcase", G::Text},
    {"keys", G::Dicts},
    {"kindIs", G::Reflect},
    {"kindOf", G::Reflect},
    {"last", G::Lists},
    {"le", G::Builtins},
    {"len", G::Builtins},
    {"list", G::Lists},
    {"lower", G::Text},
    {"lt", G::Builtins},
    {"max", G::Math},
    {"maxf", G::Math},
    {"merge", G::Dicts},
    {"mergeOverwrite", G::Dicts},
    {"min", G::Math},
    {"minf", G::Math},
    {"mod", G::Math},
    {"mul", G::Math},
    {"mulf", G::Math},
    {"mustAppend", G::Lists},
    {"mustChunk", G::Lists},
    {"mustCompact", G::Lists},
    {"mustDateModify", G::Dates},
    {"mustDeepCopy", G::Defaults},
    {"mustFirst", G::Lists},
    {"mustFromJson", G::Json},
    {"mustHas", G::Lists},
    {"mustInitial", G::Lists},
    {"mustLast", G::Lists},
    {"mustMerge", G::Dicts},
    {"mustMergeOverwrite", G::Dicts},
    {"mustPrepend", G::Lists},
    {"mustPush", G::Lists},
    {"mustRegexFind", G::Regex},
    {"mustRegexFindAll", G::Regex},
    {"mustRegexMatch", G::Regex},
    {"mustRegexReplaceAll", G::Regex},
    {"mustRegexReplaceAllLiteral", G::Regex},
    {"mustRegexSplit", G::Regex},
    {"mustRest", G::Lists},
    {"mustReverse", G::Lists},
    {"mustSlice", G::Lists},
    {"mustToDate", G::Dates},
    {"mustToJson", G::Json},
    {"mustToPrettyJson", G::Json},
    {"mustToRawJson", G::Json},
    {"mustUniq", G::Lists},
    {"mustWithout", G::Lists},
    {"must_date_modify", G::Dates},
    {"ne", G::Builtins},
    {"nindent", G::Strings},
    {"nospace", G::Text},
    {"not", G::Builtins},
    {"now", G::Dates},
    {"omit", G::Dicts},
    {"or", G::Builtins},
    {"osBase", G::Paths},
    {"osClean", G::Paths},
    {"osDir", G::Paths},
    {"osExt", G::Paths},
    {"osIsAbs", G::Paths},
    {"pick", G::Dicts},
    {"pluck", G::Dicts},
    {"plural", G::Strings},
    {"prepend", G::Lists},
    {"print", G::Builtins},
    {"printf", G::Builtins},
    {"println", G::Builtins},
    {"push", G::Lists},
    {"quote", G::Strings},
    {"randAlpha", G::Text},
    {"randAlphaNum", G::Text},
    {"randAscii", G::Text},
    {"randBytes", G::Crypto},
    {"randInt", G::Text},
    {"randNumeric", G::Text},
    {"regexFind", G::Regex},
    {"regexFindAll", G::Regex},
    {"regexMatch", G::Regex},
    {"regexQuoteMeta", G::Regex},
    {"regexReplaceAll", G::Regex},
    {"regexReplaceAllLiteral", G::Regex},
    {"regexSplit", G::Regex},
    {"repeat", G::Strings},
    {"replace", G::Strings},
    {"rest", G::Lists},
    {"reverse", G::Lists},
    {"round", G::Math},
    {"semver", G::Semver},
    {"semverCompare", G::Semver},
    {"seq", G::Math},
    {"set", G::Dicts},
    {"sha1sum", G::Crypto},
    {"sha256sum", G::Crypto},
    {"sha512sum", G::Crypto},
    {"shuffle", G::Text},
    {"slice", G::Lists},
    {"snakecase", G::Text},
    {"sortAlpha", G::Lists},
    {"split", G::Strings},
    {"splitList", G::Strings},
    {"splitn", G::Strings},
    {"squote", G::Strings},
    {"sub", G::Math},
    {"subf", G::Math},
    {"substr", G::Strings},
    {"swapcase", G::Text},
    {"ternary", G::Defaults},
    {"title", G::Text},
    {"toDate", G::Dates},
    {"toDecimal", G::Math},
    {"toJson", G::Serialization},
    {"toPrettyJson", G::Json},
    {"toRawJson", G::Json},
    {"toString", G::Strings},
    {"toStrings", G::Strings},
    {"toToml", G::Serialization},
    {"toYaml", G::Serialization},
    {"toYamlPretty", G::Serialization},
    {"trim", G::Text},
    {"trimAll", G::Strings},
    {"trimPrefix", G::Strings},
    {"trimSuffix", G::Strings},
    {"trimall", G::Strings},
    {"trunc", G::Strings},
    {"tuple", G::Lists},
    {"typeIs", G::Reflect},
    {"typeIsLike", G::Reflect},
    {"typeOf", G::Reflect},
    {"uniq", G::Lists},
    {"unixEpoch", G::Dates},
    {"unset", G::Dicts},
    {"until", G::Math},
    {"untilStep", G::Math},
    {"untitle", G::Text},
    {"upper", G::Text},
    {"urlJoin", G::Paths},
    {"urlParse", G::Paths},
    {"urlquery", G::Builtins},
    {"uuidv4", G::Crypto},
    {"values", G::Dicts},
    {"without", G::Lists},
    {"wrap", G::Strings},
    {"wrapWith", G::Strings},
};
// clang-format on

static_assert(std::is_sorted(std::begin(k_names), std::end(k_names),
                             [](const BaseFuncName& a, const BaseFuncName& b) {
                               return a.name < b.name;
                             }));

const BaseFuncName* lookup(std::string_view name) {
  const auto* it =
      std::lower_bound(std::begin(k_names), std::end(k_names), name,
                       [](const BaseFuncName& e, std::string_view n) { return e.name < n; });
  return it != std::end(k_names) && it->name == name ? it : nullptr;
}

/// The base functions: a group's functions are registered on the first find() of one of its
/// names; only the names whose registration stands (k_names) are visible.
class BaseFuncs final : public FuncSource {
 public:
  explicit BaseFuncs(std::shared_ptr<const Env> env) : m_env(std::move(env)) {}

  [[nodiscard]] const Function* find(std::string_view name) const override {
    const BaseFuncName* e = lookup(name);
    if (e == nullptr) return nullptr;
    auto g = static_cast<size_t>(e->group);
    m_loaded[g].run([&] { register_func_group(e->group, m_groups[g], m_env); });
    return m_groups[g].find(name);
  }
  [[nodiscard]] bool contains(std::string_view name) const override {
    return lookup(name) != nullptr;
  }
  [[nodiscard]] size_t size() const override { return std::size(k_names); }

 private:
  std::shared_ptr<const Env> m_env;
  mutable std::array<Once, k_func_groups> m_loaded;
  mutable std::array<FuncMap, k_func_groups> m_groups;
};

}  // namespace

std::shared_ptr<const FuncSource> make_base_funcs(std::shared_ptr<const Env> env) {
  return std::make_shared<const BaseFuncs>(std::move(env));
}

std::span<const BaseFuncName> base_func_names() { return k_names; }

void register_func_group(FuncGroup group, FuncMap& map, const std::shared_ptr<const Env>& env) {
  using namespace sprig;
  switch (group) {
    case G::Builtins: register_builtins(map); return;
    case G::Strings: register_sprig_strings(map, env); return;
    case G::Text: register_sprig_text(map, env); return;
    case G::Lists: register_sprig_lists(map); return;
    case G::Dicts: register_sprig_dicts(map); return;
    case G::Math: register_sprig_math(map, env); return;
    case G::Defaults: register_sprig_defaults(map); return;
    case G::Reflect: register_sprig_reflect(map); return;
    case G::Encoding: register_sprig_encoding(map); return;
    case G::Regex: register_sprig_regex(map); return;
    case G::Semver: register_sprig_semver(map); return;
    case G::Crypto: register_sprig_crypto(map, env); return;
    case G::Certs: register_sprig_certs(map, env); return;
    case G::Dates: register_sprig_dates(map, env); return;
    case G::Paths: register_sprig_paths(map, env); return;
    case G::Json: register_sprig_json(map); return;
    case G::Serialization: register_helm_serialization(map); return;
  }
}

}  // namespace ejob::render::helm
