#pragma once
/// values.schema.json checks (Helm's ValidateAgainstSchema): every chart with a schema has its
/// coalesced values validated, subcharts against their own table, by our own validator that
/// follows github.com/xeipuuv/gojsonschema (Helm 3 before 3.18): the same keywords (draft 4-7:
/// type, required, enum, const, properties, additionalProperties, patternProperties,
/// propertyNames, items/additionalItems, contains, min/max(Items, Length, Properties),
/// minimum/maximum and their exclusive forms, multipleOf, pattern, uniqueItems, anyOf/oneOf/
/// allOf/not, if/then/else, dependencies, local $ref), the same traversal order and wording:
///
///   values don't meet the specifications of the schema(s) in the following chart(s):
///   CHART:
///   - replicas: Invalid type. Expected: integer, given: string
///   - (root): image is required
///
/// `format` is checked as gojsonschema checks it (schema_format.hpp), but, as jsonschema v6
/// (Helm >= 3.18) decides, only under drafts 4-7 (`$schema`): without `$schema` (2020-12 then)
/// and under 2019-09 or 2020-12 it is an annotation.
/// Where gojsonschema walks Go maps (sibling properties, extra keys, patternProperties) its
/// order is random; ours is sorted by name.

#include "ejob/go/value.hpp"
#include "ejob/helm/chart.hpp"

namespace ejob::render {

/// The problems of `values` against one schema text, one `- FIELD: DESCRIPTION` line each;
/// empty when valid. Throws ejob::Error(Input) when the schema is not valid JSON, has an
/// invalid pattern or a $ref that does not resolve (`file` names it).
std::string schema_problems(const std::string& schema, const Value& values,
                            const std::string& file);

/// ValidateAgainstSchema over the chart tree; throws ejob::Error(Input) with the message above.
void validate_values(const Chart& chart, const Map& values);

}  // namespace ejob::render
