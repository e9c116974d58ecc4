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
/// 6. printed as `---\n# Source: PATH\nDOC\n`: with --include-crds first each file of the
///    charts' crds/ folders as it is, then the manifests, the whole passed through the
///    post-renderer when there is one and TrimSpace'd with one newline, then the hooks (none
///    with --no-hooks, no test hooks with --skip-tests). `--show-only` re-splits that text and
///    keeps documents whose path after the chart name matches a filepath.Match glob;
///    `--output-dir` writes files instead (Helm's action.renderResources and
///    cmd/helm/template.go).

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ejob::render::helm {

/// One YAML document of a rendered file.
struct Manifest {
  std::string path;        ///< template name, `chart/templates/x.yaml`
  std::string content;     ///< the TrimSpace'd document
  std::string kind;        ///< its `kind` ("" when absent)
  bool test_hook = false;  ///< a hook with the `test` (or `test-success`) event
};

/// Manifests and hooks in output order.
struct SortedManifests {
  std::vector<Manifest> crds;  ///< --include-crds: crds/ files, unsplit and untrimmed
  std::vector<Manifest> manifests;
  std::vector<Manifest> hooks;
};

/// Helm's SplitManifests: the documents of one file, in order.
std::vector<std::string> split_manifests(std::string_view file);

/// SortManifests over rendered files (name → text), each dropped once split, so that the
/// rendered text is not held twice. `warn` receives Helm's log lines. Throws ejob::Error(Input)
/// `YAML parse error on PATH: …` for a document whose head cannot be read.
SortedManifests sort_manifests(std::map<std::string, std::string> files,
                               const std::function<void(const std::string&)>& warn);

/// Helm's post-renderer: the manifests' text in, the text to use instead out.
using PostRender = std::function<std::string(const std::string& manifests)>;

/// The text `helm template` prints without --show-only/--output-dir: CRDs and manifests
/// (through `post` when set), then the hooks.
std::string format_manifests(const SortedManifests& sorted, const PostRender& post = {});

/// `--show-only` filtering of formatted output: every document whose `# Source:` path after
/// the chart name matches one of `patterns`. Throws ejob::Error(Input) `could not find
/// template P in chart` when a pattern matches nothing.
std::string show_only(const std::string& output, const std::vector<std::string>& patterns);

/// A file writer for --output-dir: (path, content, append).
using WriteFile =
    std::function<void(const std::string& path, const std::string& content, bool append)>;
/// True when a file exists (hooks append to existing files, as Helm does).
using FileExists = std::function<bool(const std::string& path)>;

/// Where --output-dir writes: CRDs under `dir`, manifests and hooks under `release_dir` (`dir`,
/// or `dir/RELEASE` cleaned with --release-name).
struct OutputDir {
  std::string dir;
  std::string release_dir;
};

/// `--output-dir`: writes each CRD, manifest and hook to DIR/PATH (appending further
/// documents of the same path; a hook appends to any file already there) and returns the
/// `wrote DIR/PATH` line of each write. (Helm then prints the manifest text, empty here.)
std::string write_output_dir(const SortedManifests& sorted, const OutputDir& dir,
                             const WriteFile& write, const FileExists& exists);

}  // namespace ejob::render::helm
