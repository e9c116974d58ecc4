#pragma once
/// One-line checks of a job's values against the chart's values.schema.json, source by source
/// (job file, each -f file, --set*), so that a mistake is reported with where it was made, the
/// key path and the accepted form:
///
///   job.yaml:4:3: unknown key workers.mn (did you mean workers.min?)
///   job.yaml:2:7: gpus: "two" is not an integer >= 0
///   --set: imagePullPolicy: "Sometimes" is not one of "Always", "IfNotPresent", "Never"
///   --set imagePullPolicy=Sometimes
///                         ^
///
/// Understood keywords: properties, additionalProperties (false or a schema), items, type,
/// enum, minimum, pattern (RE2) and anyOf; anything else is left to the render pipeline's full
/// schema validation of the merged values, which runs afterwards.

#include <functional>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "src/job/value_locator.hpp"
#include "src/render/go/value.hpp"

namespace ejob::job {

/// Where a key or its value is written in the source being checked (an empty Location when
/// it cannot be told).
using LocateValue = std::function<Location(const ValuePath&, Part)>;

/// Checks one source's values. Throws ejob::Error(Input) with the first problem, located by
/// `locate` (the source line and a caret) or else prefixed with `origin`.
void check_job_values(const render::go::Map& layer, const nlohmann::json& schema,
                      std::string_view origin, const LocateValue& locate = {});

}  // namespace ejob::job
