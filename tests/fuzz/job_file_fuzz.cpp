// The job file (`ejob template JOBFILE`, `ejob submit JOBFILE`: src/job/job_request.cpp): the
// input is the file, read as the elasticjob chart's values — unknown keys with did-you-mean,
// spot presets, the job name within its budget — and, when it is accepted, rendered with the
// chart (values schema, templates) into the objects `ejob submit` sends.
#include <string>

#include "src/job/job_request.hpp"
#include "src/render/helm/chart.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace helm = ejob::render::helm;

helm::ChartPtr elasticjob_chart() {
  static const helm::ChartPtr chart = helm::load_chart(EJOB_SOURCE_DIR "/charts/elasticjob");
  return chart;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(ejob::fuzz::as_text(data, size));
  const helm::ReadFile read = [&](const std::string& path) {
    if (path != "job.yaml")
      throw ejob::Error(ejob::ErrorCode::Io, "open " + path + ": no such file or directory");
    return text;
  };
  ejob::fuzz::refusals_expected([&] {
    ejob::job::JobRequest request;
    request.job_file = "job.yaml";
    request.reproducible_name = true;
    const ejob::job::Job job = ejob::job::resolve_job(request, read, elasticjob_chart);
    helm::RenderIo io;
    io.read = read;
    (void)ejob::job::render_job_objects(job, io);
  });
  return 0;
}
