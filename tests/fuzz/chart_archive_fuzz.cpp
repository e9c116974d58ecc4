// Packaged charts (src/render/helm/archive.cpp: gzip, tar, Helm's size limits and path
// checks), as `--chart x.tgz` and `charts/*.tgz` subcharts are read: the input is the .tgz;
// what unpacks is loaded as a chart (Chart.yaml, values, templates, .helmignore).
#include <utility>

#include "src/render/helm/archive.hpp"
#include "src/render/helm/chart.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ejob::fuzz::refusals_expected([&] {
    auto files = ejob::render::helm::load_archive_files(ejob::fuzz::as_text(data, size));
    (void)ejob::render::helm::load_chart_files(std::move(files), "fuzz.tgz");
  });
  return 0;
}
