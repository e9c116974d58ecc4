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

/// go-yaml's reader check of the input bytes: `invalid leading UTF-8 octet`, `incomplete
/// UTF-8 octet sequence`, `invalid trailing UTF-8 octet`, `invalid length of a UTF-8
/// sequence`, `invalid Unicode character`, `control characters are not allowed` (anything but
/// tab, LF, CR, printable ASCII, U+0085 and U+00A0 up, minus surrogates, U+FFFE and U+FFFF).
/// Empty when the text is clean (or UTF-16, which go-yaml detects by its BOM); `offset` is the
/// byte where the problem starts.
std::string go_reader_error(std::string_view text, size_t& offset);

/// A document whose first token is `,`, `]` or `}` (`did not find expected node content`), or
/// a directive go-yaml's scanner rejects: a `%` at the start of a line (outside quoted and
/// block scalars) whose name is missing (`could not find expected directive name`), followed
/// by a non-blank (`found unexpected non-alphabetical character`) or neither YAML nor TAG
/// (`found unknown directive name`). Returns the message with its line prefix and sets
/// `line0` to the directive's 0-based line; empty when there is none. yaml-cpp ignores such
/// directives. Only text without quotes or block scalars before the `%` line is checked.
std::string go_directive_error(std::string_view text, int& line0);

}  // namespace ejob::render::yaml
