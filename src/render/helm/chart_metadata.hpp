#pragma once
/// Chart.yaml (and requirements.yaml) into ChartMetadata, the way Helm reads them: sigs.k8s.io
/// yaml into a Go struct with json tags (keys matched case-insensitively, scalars converted to
/// the field's string type: `1.10` → `1.1`, `1` → `1`, `true` → `true`), then Helm's
/// Metadata.Validate (sanitizing strings, required fields, semver, chart type, aliases).

#include <string>
#include <string_view>

#include "src/render/helm/chart.hpp"

namespace ejob::render::helm {

/// Parses YAML `text` into `md` (fields not present keep their values, as json.Unmarshal
/// does). `file` locates errors; `label` is `Chart.yaml` or `requirements.yaml` for the
/// message `cannot load LABEL: …`. Throws ejob::Error(Input).
void read_metadata(std::string_view text, const std::string& file, std::string_view label,
                   ChartMetadata& md);

/// Helm's Metadata.Validate: `validation: chart.metadata.name is required` etc. Sanitizes the
/// string fields in place (white space → space, non-printables dropped).
void validate_metadata(ChartMetadata& md, const std::string& file);

/// Masterminds semver.NewVersion's leniency: `1`, `1.2`, `v1.2.3-rc.1+meta` are versions.
bool is_valid_semver(std::string_view version);

/// encoding/json's name for the JSON kind of a value in unmarshal errors (`array`, `object`,
/// `string`, `number`, `bool`).
std::string json_kind_name(const go::Value& v);

}  // namespace ejob::render::helm
