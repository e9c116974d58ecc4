#include "ejob/render/manifests.hpp"

#include <catch2/catch.hpp>

#include "ejob/util/error.hpp"

namespace ejob::render {
namespace {

using Docs = std::vector<std::string>;

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
  s.manifests = {{"c/templates/a.yaml", "kind: A", "A"}, {"c/templates/a.yaml", "kind: B", "B"}};
  s.hooks = {{"c/templates/h.yaml", "kind: Job", "Job"}};
  std::vector<std::string> writes;
  std::string out = write_output_dir(
      s, "out",
      [&](const std::string& p, const std::string& c, bool append) {
        writes.push_back(p + (append ? " +" : " =") + c);
      },
      [](const std::string&) { return false; });
  CHECK(out ==
        "wrote out/c/templates/a.yaml\nwrote out/c/templates/a.yaml\n"
        "wrote out/c/templates/h.yaml\n\n");
  CHECK(writes == std::vector<std::string>{
                      "out/c/templates/a.yaml =---\n# Source: c/templates/a.yaml\nkind: A\n",
                      "out/c/templates/a.yaml +---\n# Source: c/templates/a.yaml\nkind: B\n",
                      "out/c/templates/h.yaml =---\n# Source: c/templates/h.yaml\nkind: Job\n"});
}

}  // namespace
}  // namespace ejob::render
