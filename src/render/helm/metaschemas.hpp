#pragma once
/// The metaschemas of JSON Schema drafts 4, 6, 7, 2019-09 and 2020-12 as json-schema.org
/// publishes them (the files under src/render/helm/metaschemas/, compiled in by
/// cmake/EjobEmbed.cmake): jsonschema v6 (Helm's validator) embeds the same documents, so a
/// `$schema` or `$ref` naming one is read from here and never fetched.

#include <cstddef>
#include <optional>
#include <string_view>

namespace ejob::render::helm::metaschemas {

/// One embedded file: its path relative to src/render/helm and its bytes.
struct EmbeddedFile {
  std::string_view path;
  std::string_view data;
};

/// The table the build generates (sorted by path).
extern const EmbeddedFile k_embedded[];
extern const std::size_t k_embedded_count;

/// The text of the metaschema at `url` (http or https://json-schema.org/PATH, no fragment;
/// `schema` alone is the latest draft, 2020-12), or nullopt when it is not one of them.
std::optional<std::string_view> metaschema_text(std::string_view url);

}  // namespace ejob::render::helm::metaschemas
