#pragma once
/// From rendered template outputs to `helm template`'s text (Helm's pkg/releaseutil and the
/// printing in cmd/helm/template.go, helm-template.md §5 steps 6–8):
///
/// 1. files sorted by path; partials (`_*`) and white-space-only outputs skipped;
/// 2. each file TrimSpace'd and split on the regex `(?:^|\s*\n)---\s*` (Go's Regexp.Split),
///    empty pieces dropped, each piece TrimSpace'd;
/// 3. each document's head (`apiVersion`, `kind`, `metadata.name`, `metadata.annotations`)
///    read as YAML — a document that is not a mapping fails the render;
/// 4. documents with a `helm.sh/hook` annotation become hooks (an unknown hook event drops the
///    document with an `info: skipping unknown hook` warning);
/// 5. manifests and hooks each stable-sorted by kind in Helm v3's InstallOrder (unknown kinds
///    last, alphabetically);
/// 6. printed as `---\n# Source: PATH\nDOC\n`, the manifests TrimSpace'd with one newline, then
///    the hooks. `--show-only` re-splits that text and keeps documents whose path after the
///    chart name matches a filepath.Match glob; `--output-dir` writes files instead.

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ejob::render {

/// One YAML document of a rendered file.
struct Manifest {
  std::string path;     ///< template name, `chart/templates/x.yaml`
  std::string content;  ///< the TrimSpace'd document
  std::string kind;     ///< its `kind` ("" when absent)
};

/// Manifests and hooks in output order.
struct SortedManifests {
  std::vector<Manifest> manifests;
  std::vector<Manifest> hooks;
};

/// Helm's SplitManifests: the documents of one file, in order.
std::vector<std::string> split_manifests(std::string_view file);

/// SortManifests over rendered files (name → text). `warn` receives Helm's log lines. Throws
/// ejob::Error(Input) `YAML parse error on PATH: …` for a document whose head cannot be read.
SortedManifests sort_manifests(const std::map<std::string, std::string>& files,
                               const std::function<void(const std::string&)>& warn);

/// The text `helm template` prints without --show-only/--output-dir.
std::string format_manifests(const SortedManifests& sorted);

/// `--show-only` filtering of formatted output: every document whose `# Source:` path after
/// the chart name matches one of `patterns`. Throws ejob::Error(Input) `could not find
/// template P in chart` when a pattern matches nothing.
std::string show_only(const std::string& output, const std::vector<std::string>& patterns);

/// A file writer for --output-dir: (path, content, append).
using WriteFile =
    std::function<void(const std::string& path, const std::string& content, bool append)>;
/// True when a file exists (hooks append to existing files, as Helm does).
using FileExists = std::function<bool(const std::string& path)>;

/// `--output-dir DIR`: writes each manifest and hook to DIR/PATH (appending further documents
/// of the same path) and returns what Helm prints: a `wrote DIR/PATH` line per write, then
/// an empty line.
std::string write_output_dir(const SortedManifests& sorted, const std::string& dir,
                             const WriteFile& write, const FileExists& exists);

}  // namespace ejob::render
