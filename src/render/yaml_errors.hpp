#pragma once
// go-yaml v2's syntax-error texts for yaml-cpp's parser errors.

#include <string>
#include <string_view>

namespace ejob::render::yaml {

/// Rewrites a yaml-cpp parser error (`msg` at byte `pos`, 0-based `line0`) on `text` into
/// go-yaml v2's words with its line prefix, e.g. `line 1: did not find expected node content`
/// (without the leading `yaml: `). Scanner errors name the 1-based line, parser errors the
/// 0-based one, and a 0 line is left out, as go-yaml does. Unknown messages pass through.
std::string go_syntax_message(std::string_view text, const std::string& msg, int line0, int pos);

}  // namespace ejob::render::yaml
