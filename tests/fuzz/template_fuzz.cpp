// The template engine as `ejob template` runs it (src/render/text_template's lexer, parser and
// executor, with Sprig's and Helm's functions, src/render/helm/engine.cpp): the input is a
// chart's template up to the first NUL and its `_helpers.tpl` after it, rendered with a small
// fixed chart (values, Release, Capabilities). Parse and execution errors are Helm's
// messages; ejob's own recursion limits (Go's, Helm's) must stop every runaway.
#include <string>
#include <vector>

#include "src/render/helm/chart.hpp"
#include "src/render/helm/context.hpp"
#include "src/render/helm/render_chart.hpp"
#include "src/render/sprig/limits.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace helm = ejob::render::helm;

constexpr std::string_view k_chart_yaml = "apiVersion: v2\nname: fuzz\nversion: 0.1.0\n";
constexpr std::string_view k_values_yaml =
    "name: web\nreplicas: 3\nenabled: true\nratio: 0.5\nlist: [a, b, c]\n"
    "map: {x: 1, y: [2, 3], z: {deep: value}}\nempty: {}\nnothing: null\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The machine's memory is the limit of a string by default; the fuzzer's is 2 GiB in all.
  ejob::render::sprig::set_max_string_bytes(std::int64_t{256} << 20);
  // not a structured binding: clang 14 cannot capture one in a lambda
  const auto parts = ejob::fuzz::split_at_nul(ejob::fuzz::as_text(data, size));
  const std::string_view main_text = parts.first;
  const std::string_view helpers = parts.second;
  ejob::fuzz::refusals_expected([&] {
    std::vector<helm::ChartFile> files = {
        {"Chart.yaml", std::string(k_chart_yaml)},
        {"values.yaml", std::string(k_values_yaml)},
        {"templates/main.yaml", std::string(main_text)},
        {"templates/_helpers.tpl", std::string(helpers)},
        {"files/config.txt", "a file\n"},
    };
    const helm::ChartPtr chart = helm::load_chart_files(std::move(files), "fuzz");
    const auto kube = helm::parse_kube_version(helm::k_default_kube_version);
    (void)helm::render_templates(*chart, chart->values.as_map(),
                                 helm::make_release("release", "default"),
                                 helm::make_capabilities(kube));
  });
  return 0;
}
