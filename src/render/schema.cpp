#include "ejob/render/schema.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include "ejob/util/error.hpp"

namespace ejob::render {
namespace {

/// A value as JSON; integral float64s become JSON integers so that `type: integer` accepts
/// `replicas: 3` from a YAML file (JSON has one number type).
nlohmann::json to_json(const Value& v) {
  switch (v.kind()) {
    case GoKind::Invalid: return nullptr;
    case GoKind::Bool: return v.as_bool();
    case GoKind::Int: return v.as_int();
    case GoKind::Uint: return v.as_uint();
    case GoKind::Float: {
      double f = v.as_float();
      if (f == std::floor(f) && std::fabs(f) < 9.2e18) return static_cast<int64_t>(f);
      return f;
    }
    case GoKind::String: return v.as_string();
    case GoKind::Slice: {
      nlohmann::json out = nlohmann::json::array();
      if (v.is_list())
        for (const Value& item : v.as_list()) out.push_back(to_json(item));
      return out;
    }
    case GoKind::Map: {
      nlohmann::json out = nlohmann::json::object();
      if (v.is_map())
        for (const auto& [k, item] : v.as_map()) out[k] = to_json(item);
      return out;
    }
    default: return nullptr;
  }
}

/// valijson's context (`<root>`, `[replicas]`, `[0]`) as a JSON pointer (`/replicas/0`).
std::string pointer(const std::vector<std::string>& context) {
  std::string out;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    std::string key = part;
    if (key.size() >= 2 && key.front() == '[' && key.back() == ']')
      key = key.substr(1, key.size() - 2);
    if (key.size() >= 2 && key.front() == '"' && key.back() == '"')
      key = key.substr(1, key.size() - 2);
    out += "/" + key;
  }
  return out;
}

void validate_tree(const Chart& chart, const Map& values, std::string& report) {
  if (!chart.schema.empty()) {
    std::string problems =
        schema_problems(chart.schema, Value::map(values), chart.source_dir + "/values.schema.json");
    if (!problems.empty()) report += chart.name() + ":\n" + problems;
  }
  for (const ChartPtr& sub : chart.dependencies) {
    auto it = values.find(sub->name());
    Map empty;
    validate_tree(*sub, it != values.end() && it->second.is_map() ? it->second.as_map() : empty,
                  report);
  }
}

}  // namespace

std::string schema_problems(const std::string& schema_text, const Value& values,
                            const std::string& file) {
  nlohmann::json schema_doc;
  try {
    schema_doc = nlohmann::json::parse(schema_text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::Input, std::string("values.schema.json is not valid JSON: ") + e.what(),
                {file});
  }
  valijson::Schema schema;
  try {
    valijson::SchemaParser parser;
    valijson::adapters::NlohmannJsonAdapter schema_adapter(schema_doc);
    parser.populateSchema(schema_adapter, schema);
  } catch (const std::exception& e) {
    throw Error(ErrorCode::Input,
                std::string("values.schema.json is not a usable schema: ") + e.what(), {file});
  }
  nlohmann::json target = to_json(values);
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter target_adapter(target);
  if (validator.validate(schema, target_adapter, &results)) return "";
  std::string out;
  std::set<std::string> seen;
  valijson::ValidationResults::Error error;
  while (results.popError(error)) {
    std::string path = pointer(error.context);
    std::string line =
        "- at '" + (path.empty() ? std::string("") : path) + "': " + error.description + "\n";
    if (seen.insert(line).second) out += line;
  }
  return out;
}

void validate_values(const Chart& chart, const Map& values) {
  std::string report;
  validate_tree(chart, values, report);
  if (report.ends_with('\n')) report.pop_back();
  if (!report.empty())
    throw Error(ErrorCode::Input,
                "values don't meet the specifications of the schema(s) in the following "
                "chart(s):\n" +
                    report);
}

}  // namespace ejob::render
