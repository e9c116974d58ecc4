#include "src/job/engine.hpp"

#include <catch2/catch.hpp>

#include "src/job/engine_choice.hpp"
#include "src/util/error.hpp"

using namespace ejob::job;
using ejob::Error;
using ejob::ErrorCode;
using ejob::kubeapi::Json;

namespace {

const Engine* elastic = &engine(EngineId::ElasticJob);
const Engine* pytorch = &engine(EngineId::PyTorchJob);
const Engine* train = &engine(EngineId::TrainJob);

ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::Internal;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("engines: each kind's resource, selector and name") {
  CHECK(find_engine("pytorchjob") == pytorch);
  CHECK(find_engine("auto") == nullptr);
  CHECK(engine_of(Json{{"apiVersion", "kubeflow.org/v1"}, {"kind", "PyTorchJob"}}) == pytorch);
  CHECK(engine_of(Json{{"apiVersion", "kubeflow.org/v2"}, {"kind", "PyTorchJob"}}) == pytorch);
  CHECK(engine_of(Json{{"apiVersion", "kubeflow.org/v1"}, {"kind", "TFJob"}}) == nullptr);
  CHECK(engine_of(Json{{"apiVersion", "trainer.kubeflow.org/v1alpha1"}, {"kind", "TrainJob"}}) ==
        train);
  CHECK(&job_engine(Json::object()) == elastic);
  CHECK(engine_resource(*train).plural == "trainjobs");
  CHECK(engine_resource(*pytorch).group == "kubeflow.org");
  CHECK(engine_resource(*pytorch).version == "v1");
  CHECK(engine_worker_selector(*pytorch, "bert") == "training.kubeflow.org/job-name=bert");
  CHECK(engine_worker_selector(*train, "bert") == "jobset.sigs.k8s.io/jobset-name=bert");
  CHECK(engine_worker_selector(*elastic, "bert") == "group-name=elastic.pytorch.org,job-name=bert");
  CHECK(job_noun(*train, "bert") == "trainjob \"bert\"");
}

TEST_CASE("engines: worker ranges, and scaling where the engine is elastic") {
  const Json pj = {{"metadata", {{"name", "bert"}}},
                   {"spec",
                    {{"elasticPolicy", {{"minReplicas", 1}, {"maxReplicas", 4}}},
                     {"pytorchReplicaSpecs", {{"Worker", {{"replicas", 2}}}}}}}};
  const WorkerRange r = worker_range(*pytorch, pj);
  CHECK((r.min == 1 && r.max == 4 && r.desired == 2));
  CHECK(scale_patch(*pytorch, pj, 3) ==
        Json{{"spec", {{"pytorchReplicaSpecs", {{"Worker", {{"replicas", 3}}}}}}}});
  CHECK(message_of([&] { scale_patch(*pytorch, pj, 5); }) ==
        "--workers: 5 is outside pytorchjob \"bert\"'s range 1:4 (elasticPolicy)");
  const Json tj = {{"metadata", {{"name", "bert"}}}, {"spec", {{"trainer", {{"numNodes", 2}}}}}};
  CHECK(worker_range(*train, tj).max == 2);
  CHECK(code_of([&] { scale_patch(*train, tj, 3); }) == ErrorCode::Usage);
  CHECK(code_of([&] { scale_patch(*elastic, pj, 2); }) == ErrorCode::Usage);
}

TEST_CASE("engine choice: a named engine must be served; auto picks the first that can run") {
  const WorkerSpan fixed{2, 2};
  const WorkerSpan elastic_range{1, 4};
  CHECK(choose_engine("trainjob", {pytorch, train}, fixed).engine == train);
  CHECK(choose_engine("trainjob", {pytorch, train}, fixed).note.empty());
  CHECK(code_of([&] { choose_engine("trainjob", {elastic}, fixed); }) == ErrorCode::NotFound);
  CHECK(message_of([&] {
          choose_engine("pytorchjob", {elastic}, fixed);
        }).find("it serves elasticjob") != std::string::npos);
  CHECK(code_of([&] { choose_engine("mpijob", {elastic}, fixed); }) == ErrorCode::Usage);
  // auto
  CHECK(choose_engine("auto", {elastic}, elastic_range).engine == elastic);
  CHECK(choose_engine("auto", {elastic}, elastic_range).note.empty());
  const EngineChoice both = choose_engine("auto", {pytorch, elastic}, fixed);
  CHECK(both.engine == pytorch);
  CHECK(both.note.find("serves pytorchjob, elasticjob") != std::string::npos);
  CHECK(choose_engine("auto", {train, elastic}, elastic_range).engine == elastic);
  CHECK(choose_engine("auto", {train, elastic}, fixed).engine == train);
  CHECK(code_of([&] { choose_engine("auto", {train}, elastic_range); }) == ErrorCode::Input);
  const std::string none = message_of([&] { choose_engine("auto", {}, fixed); });
  for (const char* name : {"elasticjob", "pytorchjob", "trainjob", "ejob install-crds"})
    CHECK(none.find(name) != std::string::npos);
}
