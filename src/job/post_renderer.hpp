#pragma once
/// Helm 3's --post-renderer for `ejob template`: an executable that gets the rendered
/// manifests (CRDs and manifests, not hooks) on stdin and prints the manifests to use instead
/// (Helm's pkg/postrender exec.go).

#include <string>
#include <vector>

namespace ejob::job {

/// Helm's getFullPath: a name without `/` is looked up in $PATH, a path must name an
/// executable file; either way made absolute. Throws ejob::Error(Usage) with Helm's flag
/// error (`invalid argument "X" for "--post-renderer" flag: unable to find binary at X: …`).
std::string find_post_renderer(const std::string& name);

/// Runs `binary args...` with `manifests` on stdin and returns its stdout. Throws
/// ejob::Error(Input) `error while running post render on files: error while running command
/// BINARY. error output:\nSTDERR: exit status N` when it fails, as Helm says it.
std::string run_post_renderer(const std::string& binary, const std::vector<std::string>& args,
                              const std::string& manifests);

}  // namespace ejob::job
