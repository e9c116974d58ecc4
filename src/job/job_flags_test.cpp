#include "src/job/job_flags.hpp"

#include <catch2/catch.hpp>

#include "src/render/go/json.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using render::go::Map;
using render::go::Value;

/// The values after applying `flags` over `values`, as Go's json.Marshal prints them.
std::string applied(const JobFlags& flags, Map values = {}) {
  apply_job_flags(flags, values);
  return render::go::json::marshal(Value::map(values));
}

/// The whole message of the usage error apply_job_flags throws ("" when none).
std::string usage_error(const JobFlags& flags) {
  Map values;
  try {
    apply_job_flags(flags, values);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    return e.message();
  }
  return "";
}

/// `values` from a JSON text (numbers become float64, as from a values file).
Map values_from(std::string_view json) { return render::go::json::unmarshal(json).value.as_map(); }

TEST_CASE("is_quantity: Kubernetes quantities with binary, decimal and exponent suffixes") {
  for (const char* ok : {"8", "1.5", "500m", "7500m", "16Gi", "512Mi", "1e3", "1E3", "2Ki", "3Ei",
                         "+1", ".5", "1.", "100k", "4M", "2e-3"})
    CHECK(is_quantity(ok));
  for (const char* bad :
       {"", "eight", "-1", "16GiB", "16gi", "1.5.5", "Gi", "1 Gi", "m", "1Ki2", "0x10", "1e"})
    CHECK_FALSE(is_quantity(bad));
}

TEST_CASE("apply_job_flags: no flags leave the values as they are") {
  CHECK(applied({}, values_from(R"({"image":"a","gpus":1})")) == R"({"gpus":1,"image":"a"})");
}

TEST_CASE("apply_job_flags: each flag sets its chart key") {
  JobFlags f;
  f.image = "worker:1";
  f.gpus = "2";
  f.gpu_resource = "amd.com/gpu";
  f.cpu = "7500m";
  f.memory = "32Gi";
  f.shm = "8Gi";
  f.spot = "gke";
  f.spot_mode = "preferred";
  f.nproc = "gpu";
  CHECK(applied(f) == R"({"cpu":"7500m","gpuResource":"amd.com/gpu","gpus":2,"image":"worker:1",)"
                      R"("memory":"32Gi","nprocPerNode":"gpu","shm":"8Gi",)"
                      R"("spot":{"mode":"preferred","provider":"gke"}})");
}

TEST_CASE("apply_job_flags: counts are numbers, as in a values file") {
  JobFlags f;
  f.gpus = "0";
  f.nproc = "4";
  Map values;
  apply_job_flags(f, values);
  CHECK(get_path(values, {"gpus"}) == Value::float64(0));
  CHECK(get_path(values, {"nprocPerNode"}) == Value::float64(4));
  f.nproc = "auto";
  CHECK(applied(f) == R"({"gpus":0,"nprocPerNode":"auto"})");
}

TEST_CASE("apply_job_flags: --workers N or MIN:MAX") {
  JobFlags f;
  f.workers = "4";
  CHECK(applied(f) == R"({"workers":{"max":4,"min":4}})");
  f.workers = "2:8";
  CHECK(applied(f) == R"({"workers":{"max":8,"min":2}})");
  f.workers = "3:3";
  CHECK(applied(f) == R"({"workers":{"max":3,"min":3}})");
}

TEST_CASE("apply_job_flags: bad --workers") {
  const std::string form = " (use N or MIN:MAX with 1 <= MIN <= MAX)";
  JobFlags f;
  f.workers = "4:1";
  CHECK(usage_error(f) == "--workers: \"4:1\" has MIN above MAX" + form);
  for (const char* bad : {"0", "0:2", "-1", "two", "2:", ":3", "1:2:3", "1.5", ""}) {
    f.workers = bad;
    CHECK(usage_error(f) == "--workers: \"" + std::string(bad) + "\" is not a worker count" + form);
  }
}

TEST_CASE("apply_job_flags: bad counts name the flag and the accepted form") {
  JobFlags gpus;
  gpus.gpus = "-1";
  CHECK(usage_error(gpus) == "--gpus: \"-1\" is not a GPU count (use a whole number >= 0)");
  gpus.gpus = "two";
  CHECK(usage_error(gpus) == "--gpus: \"two\" is not a GPU count (use a whole number >= 0)");
  JobFlags nproc;
  nproc.nproc = "0";
  CHECK(usage_error(nproc) ==
        "--nproc-per-node: \"0\" is not a process count (use a whole number >= 1, gpu or auto)");
  nproc.nproc = "GPU";
  CHECK(usage_error(nproc) ==
        "--nproc-per-node: \"GPU\" is not a process count (use a whole number >= 1, gpu or auto)");
}

TEST_CASE("apply_job_flags: quantities (docs/job-file.md's example message)") {
  const std::string form = " is not a Kubernetes quantity (e.g. 8, 500m, 1.5, 16Gi, 512Mi)";
  JobFlags shm;
  shm.shm = "eight";
  CHECK(usage_error(shm) == "--shm: \"eight\"" + form);
  JobFlags cpu;
  cpu.cpu = "-2";
  CHECK(usage_error(cpu) == "--cpu: \"-2\"" + form);
  JobFlags memory;
  memory.memory = "16GB";
  CHECK(usage_error(memory) == "--memory: \"16GB\"" + form);
}

TEST_CASE("apply_job_flags: --gpu-resource is a resource name") {
  JobFlags f;
  f.gpu_resource = "nvidia.com/gpu";
  CHECK(applied(f) == R"({"gpuResource":"nvidia.com/gpu"})");
  for (const char* bad : {"amd.com/", "/gpu", "a b", "amd.com/gpu/x"}) {
    f.gpu_resource = bad;
    CHECK(usage_error(f) == "--gpu-resource: \"" + std::string(bad) +
                                "\" is not a resource name (e.g. nvidia.com/gpu, amd.com/gpu)");
  }
}

TEST_CASE("apply_job_flags: --spot and --spot-mode") {
  JobFlags f;
  f.spot = "aws";
  CHECK(usage_error(f) ==
        "--spot: \"aws\" is not a spot provider (use azure, gke, eks, "
        "karpenter or any)");
  JobFlags mode;
  mode.spot_mode = "sometimes";
  CHECK(usage_error(mode) ==
        "--spot-mode: \"sometimes\" is not a spot mode (use required or preferred)");
  JobFlags any;
  any.spot = "any";
  CHECK(applied(any) == R"({"spot":{"provider":"any"}})");
}

TEST_CASE("apply_job_flags: --blob mounts at /mnt/CONTAINER unless a path is given") {
  JobFlags f;
  f.blobs = {"mldatasets/imagenet", "acct/checkpoints:/ckpt"};
  CHECK(
      applied(f) ==
      R"({"storage":{"checkpoints":{"blob":{"account":"acct","container":"checkpoints"},)"
      R"("mountPath":"/ckpt"},"imagenet":{"blob":{"account":"mldatasets","container":"imagenet"},)"
      R"("mountPath":"/mnt/imagenet"}}})");
}

TEST_CASE("apply_job_flags: flag volumes never replace a volume of the same name") {
  JobFlags f;
  f.blobs = {"acct/data", "other/data"};
  f.pvcs = {"data:/claim"};
  const std::string out = applied(f, values_from(R"({"storage":{"data":{"mountPath":"/d"}}})"));
  CHECK(out ==
        R"({"storage":{"data":{"mountPath":"/d"},)"
        R"("data-2":{"blob":{"account":"acct","container":"data"},"mountPath":"/mnt/data"},)"
        R"("data-3":{"blob":{"account":"other","container":"data"},"mountPath":"/mnt/data"},)"
        R"("data-4":{"existingClaim":"data","mountPath":"/claim"}}})");
}

TEST_CASE("apply_job_flags: bad --blob") {
  const std::string form = "ACCOUNT/CONTAINER[:MOUNTPATH]";
  JobFlags f;
  for (const char* bad : {"ab/container", "Acct/container", "acct", "acct/c", "acct/-cont",
                          "acct/cont-", "acct/Cont"}) {
    f.blobs = {bad};
    CHECK(usage_error(f) == "--blob: \"" + std::string(bad) + "\" is not " + form +
                                " (account: 3-24 lower-case letters and digits; container: a DNS "
                                "label of 3-63 characters)");
  }
  f.blobs = {"acct/cont:data"};
  CHECK(usage_error(f) ==
        "--blob: \"acct/cont:data\" needs an absolute MOUNTPATH (use " + form + ")");
  f.blobs = {"acct/cont:"};
  CHECK(usage_error(f) == "--blob: \"acct/cont:\" needs an absolute MOUNTPATH (use " + form + ")");
}

TEST_CASE("apply_job_flags: --pvc CLAIM:MOUNTPATH, the volume named after the claim") {
  JobFlags f;
  f.pvcs = {"team.checkpoints:/checkpoints"};
  CHECK(applied(f) == R"({"storage":{"team-checkpoints":{"existingClaim":"team.checkpoints",)"
                      R"("mountPath":"/checkpoints"}}})");
  f.pvcs = {"claim"};
  CHECK(usage_error(f) == "--pvc: \"claim\" is not CLAIM:MOUNTPATH (CLAIM: a claim's name)");
  f.pvcs = {"Claim:/x"};
  CHECK(usage_error(f) == "--pvc: \"Claim:/x\" is not CLAIM:MOUNTPATH (CLAIM: a claim's name)");
  f.pvcs = {"claim:x"};
  CHECK(usage_error(f) == "--pvc: \"claim:x\" needs an absolute MOUNTPATH (use CLAIM:MOUNTPATH)");
}

TEST_CASE("apply_job_flags: --env NAME=VALUE adds to the env map") {
  JobFlags f;
  f.envs = {"LR=0.1", "EMPTY=", "A.B-c_d=x=y"};
  CHECK(applied(f, values_from(R"({"env":{"KEEP":"1","LR":"0.5"}})")) ==
        R"({"env":{"A.B-c_d":"x=y","EMPTY":"","KEEP":"1","LR":"0.1"}})");
  for (const char* bad : {"LR", "=1", "1A=2", "A B=1"}) {
    f.envs = {bad};
    CHECK(usage_error(f) == "--env: \"" + std::string(bad) +
                                "\" is not NAME=VALUE (NAME: letters, digits, '_', '-', '.')");
  }
}

TEST_CASE("apply_job_flags: -- SCRIPT ARGS sets script and scriptArgs") {
  JobFlags f;
  f.command = {"train.py", "--lr", "0.1"};
  CHECK(applied(f) == R"({"script":"train.py","scriptArgs":["--lr","0.1"]})");
  f.command = {"train.py"};
  CHECK(applied(f, values_from(R"({"scriptArgs":["--old"]})")) ==
        R"({"script":"train.py","scriptArgs":[]})");
}

TEST_CASE("apply_job_flags: flags win over the values below them, maps merge") {
  JobFlags f;
  f.image = "flag:2";
  f.workers = "2:4";
  const Map file =
      values_from(R"({"image":"file:1","workers":{"min":1,"max":1,"replicas":3},"gpus":8})");
  CHECK(applied(f, file) ==
        R"({"gpus":8,"image":"flag:2","workers":{"max":4,"min":2,"replicas":3}})");
}

TEST_CASE("apply_job_flags: the first bad flag is reported, nothing after it") {
  JobFlags f;
  f.gpus = "x";
  f.workers = "0";
  CHECK(usage_error(f) == "--gpus: \"x\" is not a GPU count (use a whole number >= 0)");
}

TEST_CASE("set_path creates maps on the way and replaces non-maps") {
  Map values = values_from(R"({"a":1,"b":{"c":2}})");
  set_path(values, {"a", "x"}, Value::string("new"));
  set_path(values, {"b", "d"}, Value::boolean(true));
  set_path(values, {"e", "f", "g"}, Value::float64(1));
  CHECK(render::go::json::marshal(Value::map(values)) ==
        R"({"a":{"x":"new"},"b":{"c":2,"d":true},"e":{"f":{"g":1}}})");
}

TEST_CASE("get_path: nil when a step is missing or not a map") {
  const Map values = values_from(R"({"a":{"b":{"c":"x"}},"s":"str"})");
  CHECK(get_path(values, {"a", "b", "c"}) == Value::string("x"));
  CHECK(render::go::json::marshal(get_path(values, {"a", "b"})) == R"({"c":"x"})");
  CHECK(get_path(values, {"a", "z"}).is_nil());
  CHECK(get_path(values, {"s", "x"}).is_nil());
  CHECK(get_path(values, {"missing"}).is_nil());
}

}  // namespace
}  // namespace ejob::job
