#include "src/render/helm/manifests.hpp"

#include <re2/re2.h>

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::render::helm {
namespace {

using Docs = std::vector<std::string>;

/// Go's Regexp.Split(TrimSpace(s), -1) with Helm's separator, through RE2, then Helm's
/// TrimSpace of each non-empty piece (what split_manifests does without a regexp). The test
/// texts are ASCII, for which TrimSpace is trimming " \t\n\v\f\r".
Docs split_by_regexp(std::string_view file) {
  static const RE2 k_sep(R"((?:^|\s*\n)---\s*)");
  auto trim = [](std::string_view t) {
    size_t b = t.find_first_not_of(" \t\n\v\f\r");
    if (b == std::string_view::npos) return std::string();
    return std::string(t.substr(b, t.find_last_not_of(" \t\n\v\f\r") - b + 1));
  };
  std::string text = trim(file);
  Docs pieces;
  re2::StringPiece input(text);
  re2::StringPiece match;
  size_t beg = 0;
  size_t end = 0;
  size_t pos = 0;
  while (pos <= text.size() && k_sep.Match(input, pos, text.size(), RE2::UNANCHORED, &match, 1)) {
    size_t mstart = static_cast<size_t>(match.data() - text.data());
    size_t mend = mstart + match.size();
    end = mstart;
    if (mend != 0) pieces.push_back(text.substr(beg, end - beg));
    beg = mend;
    pos = mend > mstart ? mend : mend + 1;
  }
  if (end != text.size()) pieces.push_back(text.substr(beg));
  Docs docs;
  for (const std::string& p : pieces)
    if (!p.empty()) docs.push_back(trim(p));
  return docs;
}

TEST_CASE("render: split_manifests is Helm's regexp split on every short text") {
  const std::string alphabet = "a-\n \t";
  int checked = 0;
  for (size_t len = 0; len <= 7; ++len) {
    std::vector<size_t> digits(len, 0);
    while (true) {
      std::string s;
      for (size_t d : digits) s += alphabet[d];
      if (split_manifests(s) != split_by_regexp(s)) {
        INFO(s);
        CHECK(split_manifests(s) == split_by_regexp(s));
      }
      ++checked;
      size_t i = 0;
      while (i < len && ++digits[i] == alphabet.size()) digits[i++] = 0;
      if (i == len) break;
    }
  }
  CHECK(checked > 90000);
}

TEST_CASE("render: SplitManifests splits on --- lines with Helm's quirks") {
  CHECK(split_manifests("a: 1\n---\nb: 2\n") == Docs{"a: 1", "b: 2"});
  CHECK(split_manifests("---\na: 1\n---   \n\n") == Docs{"a: 1"});
  CHECK(split_manifests("--- # comment\na: 1") == Docs{"# comment\na: 1"});
  CHECK(split_manifests("a: 1\n---\n\n---\nb: 2") == Docs{"a: 1", "---\nb: 2"});
  CHECK(split_manifests("a: x---y") == Docs{"a: x---y"});
  CHECK(split_manifests("  \n") == Docs{});
}

TEST_CASE("render: manifests sort by install order, unknown kinds last, hooks apart") {
  std::map<std::string, std::string> files = {
      {"c/templates/a.yaml", "kind: Deployment\n---\nkind: Zeta\n---\nkind: Alpha\n"},
      {"c/templates/b.yaml", "kind: Service\n---\n# only a comment\n"},
      {"c/templates/_helpers.tpl", "kind: Secret"},
      {"c/templates/empty.yaml", " \n\n"},
      {"c/templates/hook.yaml",
       "kind: Job\nmetadata:\n  annotations:\n    helm.sh/hook: pre-install, post-upgrade\n"},
      {"c/templates/bad-hook.yaml",
       "kind: Pod\nmetadata:\n  annotations:\n    helm.sh/hook: sometime\n"},
      {"c/templates/ns.yaml", "kind: Namespace"},
  };
  std::vector<std::string> warnings;
  SortedManifests s = sort_manifests(files, [&](const std::string& w) { warnings.push_back(w); });
  std::vector<std::string> order;
  for (const Manifest& m : s.manifests) order.push_back(m.path + ":" + m.kind);
  CHECK(order == std::vector<std::string>{
                     "c/templates/ns.yaml:Namespace", "c/templates/b.yaml:Service",
                     "c/templates/a.yaml:Deployment",
                     "c/templates/b.yaml:", "c/templates/a.yaml:Alpha", "c/templates/a.yaml:Zeta"});
  REQUIRE(s.hooks.size() == 1);
  CHECK(s.hooks[0].path == "c/templates/hook.yaml");
  CHECK(warnings == std::vector<std::string>{R"(info: skipping unknown hook: "sometime")"});
  CHECK(
      format_manifests(s).starts_with("---\n# Source: c/templates/ns.yaml\nkind: Namespace\n"
                                      "---\n# Source: c/templates/b.yaml\nkind: Service\n"));
  CHECK(format_manifests(s).ends_with(
      "kind: Zeta\n---\n# Source: c/templates/hook.yaml\nkind: Job\nmetadata:\n  annotations:\n"
      "    helm.sh/hook: pre-install, post-upgrade\n"));
}

TEST_CASE("render: a document that is not a mapping fails with the file name") {
  try {
    sort_manifests({{"c/templates/x.yaml", "2"}}, {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() ==
          "YAML parse error on c/templates/x.yaml: error unmarshaling JSON: while decoding JSON: "
          "json: cannot unmarshal number into Go value of type releaseutil.SimpleHead");
  }
}

TEST_CASE("render: nothing rendered prints one empty line") { CHECK(format_manifests({}) == "\n"); }

TEST_CASE("render: --show-only keeps matching documents and rejects unknown ones") {
  std::string out =
      "---\n# Source: c/templates/a.yaml\nkind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n";
  CHECK(show_only(out, {"templates/b.yaml"}) == "---\n# Source: c/templates/b.yaml\nkind: B\n");
  CHECK(show_only(out, {"templates/*"}) == out);
  try {
    show_only(out, {"templates/none.yaml"});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.message() == "could not find template templates/none.yaml in chart");
  }
}

TEST_CASE("render: --output-dir writes each path once and appends further documents") {
  SortedManifests s;
  s.crds = {{"c/crds/x.yaml", "kind: CustomResourceDefinition\n", ""}};
  s.manifests = {{"c/templates/a.yaml", "kind: A", "A"}, {"c/templates/a.yaml", "kind: B", "B"}};
  s.hooks = {{"c/templates/h.yaml", "kind: Job", "Job"}};
  std::vector<std::string> writes;
  std::string out = write_output_dir(
      s, {"out", "out/rel"},
      [&](const std::string& p, const std::string& c, bool append) {
        writes.push_back(p + (append ? " +" : " =") + c);
      },
      [](const std::string& p) { return p == "out/rel/c/templates/h.yaml"; });
  CHECK(out ==
        "wrote out/c/crds/x.yaml\nwrote out/rel/c/templates/a.yaml\n"
        "wrote out/rel/c/templates/a.yaml\nwrote out/rel/c/templates/h.yaml\n");
  CHECK(writes ==
        std::vector<std::string>{
            "out/c/crds/x.yaml =---\n# Source: c/crds/x.yaml\nkind: CustomResourceDefinition\n\n",
            "out/rel/c/templates/a.yaml =---\n# Source: c/templates/a.yaml\nkind: A\n",
            "out/rel/c/templates/a.yaml +---\n# Source: c/templates/a.yaml\nkind: B\n",
            "out/rel/c/templates/h.yaml +---\n# Source: c/templates/h.yaml\nkind: Job\n"});
}

TEST_CASE("render: CRDs come first, the post-renderer sees them and the manifests, hooks last") {
  SortedManifests s;
  s.crds = {{"c/crds/x.yaml", "kind: CustomResourceDefinition\n", ""}};
  s.manifests = {{"c/templates/a.yaml", "kind: A", "A"}};
  s.hooks = {{"c/templates/h.yaml", "kind: Job", "Job"}};
  std::string seen;
  std::string out = format_manifests(s, [&](const std::string& text) {
    seen = text;
    return "  post\n\n";
  });
  CHECK(seen ==
        "---\n# Source: c/crds/x.yaml\nkind: CustomResourceDefinition\n\n"
        "---\n# Source: c/templates/a.yaml\nkind: A\n");
  CHECK(out == "post\n---\n# Source: c/templates/h.yaml\nkind: Job\n");
}

}  // namespace
}  // namespace ejob::render::helm
