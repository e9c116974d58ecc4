// Values schema compilation and validation (src/render/helm/schema.cpp, schema_set.cpp,
// schema_format.cpp: JSON Schema drafts 4 to 2020-12 as Helm's santhosh-tekuri/jsonschema v6):
// the input is a values.schema.json up to the first NUL and the values, as YAML, after it.
// No document is fetched: a remote `$ref` fails to load, as without a network.
#include "src/render/helm/schema.hpp"
#include "src/render/yaml/load.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // not a structured binding: clang 14 cannot capture one in a lambda
  const auto parts = ejob::fuzz::split_at_nul(ejob::fuzz::as_text(data, size));
  const std::string_view schema = parts.first;
  const std::string_view values_text = parts.second;
  ejob::fuzz::refusals_expected([&] {
    const auto values = ejob::render::yaml::try_load_yaml_map(values_text);
    (void)ejob::render::helm::schema_problems(std::string(schema), values.value);
  });
  return 0;
}
