#pragma once
/// values.schema.json checks (Helm's ValidateAgainstSchema): every chart with a schema has its
/// coalesced values validated, subcharts against their own table, by our own validator that
/// follows github.com/santhosh-tekuri/jsonschema v6 (Helm >= 3.18): its keywords per draft
/// ($schema; none is 2020-12), its order of checks and its messages, framed as Helm prints them:
///
///   values don't meet the specifications of the schema(s) in the following chart(s):
///   CHART:
///   - at '/replicas': got string, want integer
///   - at '': missing property 'image'
///   - at '/ports': allOf failed
///     - at '/ports': minItems: got 0, want 1
///
/// Where v6 walks a Go map (the value's keys, patternProperties, dependencies) its order is
/// random; ours is sorted by name. `format` is asserted under drafts 4-7 only, with v6's own
/// checkers and the reason it prints after `is not valid FORMAT:` (schema_format.hpp). What v6
/// does before validating — documents loaded, references resolved, the metaschema check — is
/// schema_set.hpp; numbers in messages are x/text's English forms (`65,535`, go/printer_en.hpp).

#include <functional>
#include <string>

#include "src/render/go/value.hpp"
#include "src/render/helm/chart.hpp"
#include "src/render/helm/coalesce.hpp"

namespace ejob::render::helm {

/// Fetches an http(s) document that a values.schema.json names (`$ref`, `$schema`), as Helm's
/// HTTPURLLoader does (GET, 15 s timeout, proxies from the environment, redirects followed):
/// the body of a 200 answer. Any other outcome throws std::runtime_error with Helm's text:
/// `HTTP request to URL returned status 404 (Not Found)` or `HTTP request failed for URL: WHY`.
/// The render layers never touch the network themselves: the command supplies this.
using FetchUrl = std::function<std::string(const std::string& url)>;

/// What schema validation may do besides computing: fetch http(s) documents, and print
/// Helm's log lines (the unresolved-URN warning).
struct SchemaIo {
  FetchUrl fetch;  ///< none: an http(s) document fails to load
  Warn warn;       ///< none: warnings dropped
};

/// ValidateAgainstSingleSchema's error text for one schema: the problems of `values` as
/// JSONSchemaValidationError.Error() prints them (`- at '/PATH': TEXT` lines, causes indented
/// under them, a final "\n"), or what v6 reports before validating (the schema is not JSON, a
/// `$ref` does not resolve, a document does not load, the metaschema refuses the schema) as it
/// is, without "\n"; empty when valid.
std::string schema_problems(const std::string& schema, const go::Value& values,
                            const SchemaIo& io = {});

/// ValidateAgainstSchema over the chart tree; throws ejob::Error(Input) with the message above.
void validate_values(const Chart& chart, const go::Map& values, const SchemaIo& io = {});

}  // namespace ejob::render::helm
