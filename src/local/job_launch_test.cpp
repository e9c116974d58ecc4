#include "src/local/job_launch.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "src/util/error.hpp"

namespace ejob::local {
namespace {

Json elastic_job(const Json& container) {
  Json job = {{"apiVersion", "elastic.pytorch.org/v1alpha1"}, {"kind", "ElasticJob"}};
  job["metadata"]["name"] = "digits-x7k2p";
  job["spec"]["minReplicas"] = 1;
  job["spec"]["maxReplicas"] = 3;
  Json& worker = job["spec"]["replicaSpecs"]["Worker"];
  worker["replicas"] = 2;
  worker["template"]["spec"]["containers"] = Json::array({container});
  return job;
}

Json worker_container() {
  return {{"name", "worker"},
          {"image", "train:1"},
          {"args", {"--nproc_per_node=2", "train.py", "--lr", "0.1"}},
          {"env",
           {{{"name", "NCCL_DEBUG"}, {"value", "WARN"}},
            {{"name", "EJOB_TEST_SECRET"}, {"valueFrom", {{"secretKeyRef", {{"name", "s"}}}}}}}},
          {"resources", {{"limits", {{"nvidia.com/gpu", 2}}}}}};
}

Machine machine(int gpus) {
  return {"/opt/ejob-agent", "/usr/bin/etcd", "/usr/bin/python3", "/work", gpus};
}

TEST_CASE("launch_from_objects: the worker container as the controller starts it") {
  ::unsetenv("EJOB_TEST_SECRET");
  std::vector<std::string> notes;
  const LaunchSpec s = launch_from_objects({{{"kind", "Service"}}, elastic_job(worker_container())},
                                           machine(0), notes);
  CHECK(s.name == "digits-x7k2p");
  CHECK(s.args == std::vector<std::string>{"--nproc_per_node=2", "train.py", "--lr", "0.1"});
  CHECK(s.min_nodes == 1);
  CHECK(s.max_nodes == 3);
  CHECK(s.initial_nodes == 2);
  CHECK(s.gpus_per_node == 2);
  CHECK(s.env.at("NCCL_DEBUG") == "WARN");
  CHECK(s.env.at("PYTHON_EXEC") == "/usr/bin/python3");
  CHECK(s.env.count("EJOB_TEST_SECRET") == 0);
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].find("EJOB_TEST_SECRET") != std::string::npos);
  CHECK(notes[1].find("train:1 is not used") != std::string::npos);
  CHECK(notes[2].find("2 GPUs per node; this machine has none") != std::string::npos);
  CHECK(node_arguments(s, "127.0.0.1:2379") ==
        std::vector<std::string>{"/opt/ejob-agent", "--rdzv_backend=etcd",
                                 "--rdzv_endpoint=127.0.0.1:2379", "--rdzv_id=digits-x7k2p",
                                 "--nnodes=1:3", "--local_addr=127.0.0.1", "--nproc_per_node=2",
                                 "train.py", "--lr", "0.1"});
}

TEST_CASE("launch_from_objects: a secret's variable comes from this environment when set") {
  ::setenv("EJOB_TEST_SECRET", "s3cret", 1);
  std::vector<std::string> notes;
  const LaunchSpec s = launch_from_objects({elastic_job(worker_container())}, machine(4), notes);
  ::unsetenv("EJOB_TEST_SECRET");
  CHECK(s.env.at("EJOB_TEST_SECRET") == "s3cret");
  CHECK(notes.size() == 1);  // only the image
}

TEST_CASE("node_environment: each node gets its share of the GPUs") {
  std::vector<std::string> notes;
  LaunchSpec s = launch_from_objects({elastic_job(worker_container())}, machine(4), notes);
  CHECK(node_environment(s, 0, "").at("CUDA_VISIBLE_DEVICES") == "0,1");
  CHECK(node_environment(s, 1, "").at("CUDA_VISIBLE_DEVICES") == "2,3");
  CHECK(node_environment(s, 2, "").at("CUDA_VISIBLE_DEVICES") == "0,1");  // more nodes than GPUs
  s.gpus_here = 0;
  CHECK(node_environment(s, 0, "").count("CUDA_VISIBLE_DEVICES") == 0);
}

TEST_CASE("node_environment: each engine's operator's variables") {
  std::vector<std::string> notes;
  Json pj = {
      {"kind", "PyTorchJob"},
      {"metadata", {{"name", "pj"}}},
      {"spec",
       {{"elasticPolicy", {{"minReplicas", 1}, {"maxReplicas", 3}}},
        {"pytorchReplicaSpecs",
         {{"Worker",
           {{"replicas", 2},
            {"template",
             {{"spec",
               {{"containers",
                 {{{"name", "pytorch"},
                   {"args", {"t.py"}},
                   {"env", {{{"name", "PET_RDZV_CONF"}, {"value", "timeout=9"}}}}}}}}}}}}}}}}}};
  LaunchSpec s = launch_from_objects({pj}, machine(0), notes);
  CHECK((s.engine == "pytorchjob" && s.min_nodes == 1 && s.max_nodes == 3 && s.initial_nodes == 2));
  CHECK(node_arguments(s, "127.0.0.1:5").size() == 3);  // agent, --local_addr, t.py: PET_* only
  auto env0 = node_environment(s, 0, "127.0.0.1:5");
  CHECK(env0.at("PET_RDZV_ENDPOINT") == "127.0.0.1:5");
  CHECK(env0.at("PET_NNODES") == "1:3");
  CHECK(env0.at("PET_RDZV_CONF") == "timeout=9,is_host=1");
  CHECK(node_environment(s, 1, "127.0.0.1:5").at("PET_RDZV_CONF") == "timeout=9,is_host=0");
  Json tj = {{"kind", "TrainJob"},
             {"metadata", {{"name", "tj"}}},
             {"spec", {{"trainer", {{"numNodes", 2}, {"args", {"t.py"}}}}}}};
  s = launch_from_objects({tj}, machine(0), notes);
  auto env1 = node_environment(s, 1, "127.0.0.1:7");
  CHECK((env1.at("PET_NODE_RANK") == "1" && env1.at("PET_NNODES") == "2"));
  CHECK((env1.at("PET_MASTER_ADDR") == "127.0.0.1" && env1.at("PET_MASTER_PORT") == "7"));
}

TEST_CASE("launch_from_objects: what cannot run here is refused") {
  std::vector<std::string> notes;
  CHECK_THROWS_WITH(launch_from_objects({{{"kind", "Service"}}}, machine(0), notes),
                    Catch::Contains("no ElasticJob"));
  Json c = worker_container();
  c["command"] = {"bash", "-c", "run.sh"};
  CHECK_THROWS_WITH(launch_from_objects({elastic_job(c)}, machine(0), notes),
                    Catch::Contains("\"bash\" is not torchrun or ejob-agent"));
  c["command"] = {"/usr/local/bin/torchrun", "--max_restarts=3"};
  const LaunchSpec s = launch_from_objects({elastic_job(c)}, machine(0), notes);
  CHECK(s.args.front() == "--max_restarts=3");
  CHECK(s.args.size() == 5);
}

TEST_CASE("check_script: the first .py word must exist in the working folder") {
  LaunchSpec s;
  s.workdir = EJOB_SOURCE_DIR;
  s.args = {"--nproc_per_node", "2", "examples/digits/train.py"};
  CHECK_NOTHROW(check_script(s));
  s.args = {"--nproc_per_node=2", "examples/nope.py"};
  CHECK_THROWS_WITH(check_script(s), Catch::Contains("examples/nope.py does not exist in"));
  s.args = {"-m", "pkg.train"};
  CHECK_NOTHROW(check_script(s));
}

}  // namespace
}  // namespace ejob::local
