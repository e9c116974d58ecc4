// The YAML loader (src/render/yaml: go-yaml v2 resolution over yaml-cpp, the fast path for
// simple documents, sigs.k8s.io/yaml's conversion): values files, Chart.yaml, job files and
// fromYaml all go through it. The input is decoded as any value, as a map and as a list, and
// what decodes is encoded back (toYaml).
#include "src/render/yaml/emit.hpp"
#include "src/render/yaml/load.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace yaml = ejob::render::yaml;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ejob::fuzz::as_text(data, size);
  ejob::fuzz::refusals_expected([&] {
    const yaml::YamlDecoded any = yaml::try_load_yaml(text);
    if (any.error.empty()) (void)yaml::to_yaml(any.value);
    (void)yaml::try_load_yaml_map(text);
    (void)yaml::try_load_yaml_list(text);
    (void)yaml::load_yaml(text, "values.yaml");
  });
  return 0;
}
