#pragma once
/// Go's `error` return, as the ports below templates raise it: a function with a Go signature
/// `(value, error)` throws FuncError when error != nil. text/template reports it as
/// `error calling NAME: MESSAGE` (src/render/text_template/funcs.hpp); encoding/json, the YAML
/// emitter and TOML throw it for the errors their Go originals return.

#include <string>

namespace ejob::render::go {

/// Thrown for Go's non-nil `error` return; `message` is the error's Error() text.
struct FuncError {
  std::string message;
};

}  // namespace ejob::render::go
