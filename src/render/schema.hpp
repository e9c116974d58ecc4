#pragma once
/// values.schema.json checks (Helm's ValidateAgainstSchema): every chart with a schema has its
/// coalesced values validated (JSON Schema draft 7 through valijson), subcharts against their
/// own table. All failures are reported at once:
///
///   values don't meet the specifications of the schema(s) in the following chart(s):
///   CHART:
///   - at '/replicas': Value type not permitted by 'type' constraint.
///
/// Each line names the failing value by its JSON pointer path.

#include "ejob/render/chart.hpp"
#include "ejob/render/value.hpp"

namespace ejob::render {

/// The problems of `values` against one schema text, one `- at 'PATH': MESSAGE` line each;
/// empty when valid. Throws ejob::Error(Input) when the schema is not valid JSON or not a
/// usable schema (`file` names it).
std::string schema_problems(const std::string& schema, const Value& values,
                            const std::string& file);

/// ValidateAgainstSchema over the chart tree; throws ejob::Error(Input) with the message above.
void validate_values(const Chart& chart, const Map& values);

}  // namespace ejob::render
