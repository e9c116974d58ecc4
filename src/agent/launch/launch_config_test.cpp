#include "src/agent/launch/launch_config.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "src/util/error.hpp"

using namespace ejob::agent;

namespace {

LaunchConfig config(std::vector<std::string> args, Environment env = {}, HostInfo host = {4, 0}) {
  return make_launch_config(parse_launch_options(args, env), env, host);
}

std::string config_error(std::vector<std::string> args, HostInfo host = {4, 0}) {
  try {
    config(args, {}, host);
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Usage);
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("launch config: the controller's etcd command line") {
  LaunchConfig c = config({"--rdzv_backend=etcd", "--rdzv_endpoint=job-etcd-service:2379",
                           "--rdzv_id=job", "--nnodes=1:2", "--nproc_per_node=2",
                           "--rdzv_conf=last_call_timeout=3", "main.py", "--lr=${local_rank}"});
  CHECK(c.backend == Backend::Etcd);
  CHECK(c.min_nodes == 1);
  CHECK(c.max_nodes == 2);
  CHECK(c.nproc_per_node == 2);
  CHECK(c.endpoint.host == "job-etcd-service");
  CHECK(c.endpoint.port == 2379);
  CHECK(c.etcd.last_call_timeout_s == 3);
  CHECK(c.etcd.timeout_s == 900);
  CHECK(c.run_id == "job");
  CHECK(c.command == std::vector<std::string>{"python3", "-u", "main.py", "--lr=${local_rank}"});
  CHECK(worker_argv(c, 1) == std::vector<std::string>{"python3", "-u", "main.py", "--lr=1"});
  CHECK(c.entrypoint_name == "main.py");
}

TEST_CASE("launch config: worker command: PYTHON_EXEC, -m, --no_python, substitution") {
  CHECK(config({"-m", "pkg.train"}, {{"PYTHON_EXEC", "/opt/py"}}).command ==
        std::vector<std::string>{"/opt/py", "-u", "-m", "pkg.train"});
  LaunchConfig c = config({"--no_python", "./run.sh", "$local_rank", "$local_ranks", "$$x", "$y"});
  CHECK(c.entrypoint_name == "./run.sh");
  CHECK(config({"-m", "pkg.train", "x"}).entrypoint_name == "pkg.train");
  CHECK(worker_argv(c, 3) == std::vector<std::string>{"./run.sh", "3", "$local_ranks", "$x", "$y"});
  CHECK(config_error({"--no_python", "-m", "x"}) ==
        "Don't use both the '--no_python' flag and the '--module' flag at the same time.");
}

TEST_CASE("launch config: nproc_per_node cpu, gpu, auto") {
  CHECK(config({"--nproc_per_node=cpu", "t.py"}, {}, {6, 2}).nproc_per_node == 6);
  CHECK(config({"--nproc_per_node=gpu", "t.py"}, {}, {6, 2}).nproc_per_node == 2);
  CHECK(config({"--nproc_per_node=auto", "t.py"}, {}, {6, 2}).nproc_per_node == 2);
  CHECK(config({"--nproc_per_node=auto", "t.py"}, {}, {6, 0}).nproc_per_node == 6);
  CHECK(config_error({"--nproc_per_node=gpu", "t.py"}) ==
        "--nproc_per_node=gpu: Cuda is not available (no GPU in /proc/driver/nvidia/gpus or "
        "CUDA_VISIBLE_DEVICES)");
  CHECK(config_error({"--nproc_per_node=tpu", "t.py"}) == "Unsupported nproc_per_node value: tpu");
}

TEST_CASE("launch config: GPUs counted from procfs and CUDA_VISIBLE_DEVICES") {
  auto dir = std::filesystem::temp_directory_path() / "ejob-gpus-test";
  std::filesystem::remove_all(dir);
  for (const char* bus : {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0"})
    std::filesystem::create_directories(dir / bus);
  CHECK(detect_host({}, dir.string()).gpu_count == 3);
  CHECK(detect_host({{"CUDA_VISIBLE_DEVICES", "1,2"}}, dir.string()).gpu_count == 2);
  CHECK(detect_host({{"CUDA_VISIBLE_DEVICES", "0,-1,2"}}, dir.string()).gpu_count == 1);
  CHECK(detect_host({{"CUDA_VISIBLE_DEVICES", ""}}, dir.string()).gpu_count == 0);
  CHECK(detect_host({{"CUDA_VISIBLE_DEVICES", "0"}}, (dir / "none").string()).gpu_count == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("launch config: backends, standalone and static") {
  LaunchConfig c10d = config({"--rdzv_backend=c10d", "--nnodes=2:3", "--rdzv_id=j",
                              "--rdzv_conf=is_host=no,join_timeout=7", "t.py"});
  CHECK(c10d.backend == Backend::C10d);
  CHECK(c10d.endpoint.host == "localhost");
  CHECK(c10d.endpoint.port == 29400);
  CHECK(c10d.dynamic.is_host == false);
  CHECK(c10d.dynamic.join_timeout_s == 7);
  CHECK(c10d.dynamic.last_call_timeout_s == 30);
  CHECK(config_error({"--rdzv_backend=c10d", "--rdzv_conf=is_host=maybe", "t.py"}) ==
        "The rendezvous configuration option 'is_host' does not represent a valid boolean "
        "value.");
  LaunchConfig v2 = config({"--rdzv_backend=etcd-v2", "--rdzv_endpoint=e", "--rdzv_id=j",
                            "--rdzv_conf=protocol=https,ca_cert=ca.pem,read_timeout=5", "t.py"});
  CHECK(v2.backend == Backend::EtcdV2);
  CHECK(v2.endpoint.port == 2379);
  CHECK(v2.etcd.protocol == "https");
  CHECK(v2.etcd.cacert == "ca.pem");
  CHECK(v2.dynamic.read_timeout_s == 5);
  CHECK(config_error({"--rdzv_backend=zk", "t.py"}) ==
        "--rdzv_backend=zk: unknown rendezvous backend (supported: c10d, etcd, etcd-v2, "
        "static)");
  // As torchrun: c10d on localhost:29400 under a random id, whatever else was given.
  LaunchConfig s = config({"--standalone", "--rdzv_backend=etcd", "--rdzv_endpoint=e:1", "t.py"});
  CHECK(s.backend == Backend::C10d);
  CHECK((s.endpoint.host == "localhost" && s.endpoint.port == 29400));
  CHECK((s.min_nodes == 1 && s.max_nodes == 1));
  CHECK(s.run_id.size() == 36);
  CHECK(s.local_addr == std::optional<std::string>("127.0.0.1"));  // loopback, not the FQDN
  CHECK(config_error({"--standalone", "--nnodes=2", "t.py"}) ==
        "--standalone runs a single node, but --nnodes=2 needs at least 2");
  LaunchConfig st = config({"--nnodes=2", "--node_rank=1", "--master_addr=10.0.0.1", "t.py"});
  CHECK(st.node_rank == 1);
  CHECK(st.master_addr == "10.0.0.1");
  CHECK(st.master_port == 29500);
  CHECK(config_error({"--nnodes=1:2", "t.py"}) ==
        "--rdzv_backend=static needs a fixed --nnodes, not 1:2");
  CHECK(config_error({"--nnodes=2", "--node_rank=2", "t.py"}) == "--node_rank=2 is not in [0, 2)");
}

TEST_CASE("launch config: nnodes and redirects validation") {
  CHECK(config_error({"--nnodes=3:2", "t.py"}) == "--nnodes=3:2: expected 0 < MIN <= MAX");
  CHECK(config_error({"--nnodes=1:2:3", "t.py"}) ==
        "--nnodes=1:2:3 is not in \"N\" or \"MIN:MAX\" format");
  CHECK(parse_std_streams("3", 2) == std::vector<StdStreams>{StdStreams::All, StdStreams::All});
  CHECK(parse_std_streams("1:2", 3) ==
        std::vector<StdStreams>{StdStreams::None, StdStreams::Err, StdStreams::None});
  CHECK(parse_std_streams("0:1,1:3", 2) ==
        std::vector<StdStreams>{StdStreams::Out, StdStreams::All});
  CHECK(config_error({"-r", "4", "t.py"}) ==
        "4 does not match: <^[0123]$> or <^(\\d:[0123],)*(\\d:[0123])$>");
  CHECK(config_error({"-t", "0:1,", "t.py"}) ==
        "0:1, does not match: <^[0123]$> or <^(\\d:[0123],)*(\\d:[0123])$>");
}

TEST_CASE("launch config: preemption signal and grace") {
  LaunchConfig c = config({"t.py"});
  CHECK(c.spot_notices == "auto");
  CHECK(c.preempt_signal == SIGTERM);
  CHECK(c.preempt_grace == std::chrono::seconds(5));
  c = config({"--spot-notices=off", "--preempt-signal=usr1", "--preempt-grace=0.5", "t.py"});
  CHECK(c.spot_notices == "off");
  CHECK(c.preempt_signal == SIGUSR1);
  CHECK(c.preempt_grace == std::chrono::milliseconds(500));
  CHECK(config({"--preempt-signal=none", "t.py"}).preempt_signal == 0);
  CHECK(config({"--preempt-signal=10", "t.py"}).preempt_signal == 10);
  CHECK(config_error({"--preempt-signal=SIGFOO", "t.py"}) ==
        "--preempt-signal=SIGFOO: not a signal (a name such as SIGTERM or SIGUSR1, a number, "
        "or none)");
  CHECK(config_error({"--preempt-signal=KILL", "t.py"}) ==
        "--preempt-signal=KILL: a worker cannot catch it, so it could not checkpoint");
  CHECK(config_error({"--preempt-grace=-1", "t.py"}) ==
        "--preempt-grace=-1: must be 0 to 3600 seconds");
  CHECK(parse_signal("SIGHUP") == SIGHUP);
  CHECK(parse_signal("99") == std::nullopt);
  CHECK(parse_signal("") == std::nullopt);
}

TEST_CASE("launch config: TORCH_ELASTIC_WORKER_IDENTICAL=1 (and only 1) skips the rank exchange") {
  std::vector<std::string> args = {"--rdzv_backend=c10d", "--torch_version=2.6", "t.py"};
  CHECK(config(args, {{"TORCH_ELASTIC_WORKER_IDENTICAL", "1"}}).workers_identical);
  CHECK_FALSE(config(args, {{"TORCH_ELASTIC_WORKER_IDENTICAL", "true"}}).workers_identical);
  CHECK_FALSE(config(args).workers_identical);
}

TEST_CASE("launch config: --torch_version picks the dialect; without it the worker's torch") {
  CHECK(config({"--torch_version=1.13.1", "t.py"}).torch == RdzvDialect::Torch1_13);
  CHECK(config({"--torch-version", "2.6", "t.py"}).torch == RdzvDialect::Torch2);
  CHECK(config({"t.py"}, {{"PET_TORCH_VERSION", "2.1.0"}}).torch == RdzvDialect::Torch2);
  CHECK(config_error({"--torch_version=latest", "t.py"}) ==
        "--torch_version=latest is not a torch version (e.g. 1.13 or 2.6.0)");
  // Debian 12's python3 has torch 1.13.1, which calls itself 1.13.0a0.
  LaunchConfig c = config({"t.py"}, {{"PYTHON_EXEC", EJOB_SYSTEM_PYTHON}});
  CHECK_FALSE(c.torch);
  CHECK(resolve_torch_dialect(c, true) == "1.13.0a0");
  CHECK(c.torch == RdzvDialect::Torch1_13);
  // The Debian 13 root's python3 (run there by a wrapper) has torch 2.6.
  std::string wrapper = std::filesystem::temp_directory_path() / "ejob-torch2-python";
  std::ofstream(wrapper) << "#!/bin/sh\nexec " EJOB_AGENT_TEST_DIR
                            "/in_torch2_root.sh " EJOB_TORCH2_ROOT " /usr/bin/python3 \"$@\"\n";
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  LaunchConfig c2 = config({"t.py"}, {{"PYTHON_EXEC", wrapper}});
  CHECK(resolve_torch_dialect(c2, true) == "2.6.0+debian");
  CHECK(c2.torch == RdzvDialect::Torch2);
  std::filesystem::remove(wrapper);
  // --no_python, or a python without torch: 1.13's dialect, as before.
  LaunchConfig c3 = config({"--no_python", "/bin/true"});
  CHECK(resolve_torch_dialect(c3, false) == std::nullopt);
  CHECK(c3.torch == RdzvDialect::Torch1_13);
  LaunchConfig c4 = config({"t.py"}, {{"PYTHON_EXEC", "/nonexistent/python3"}});
  CHECK(resolve_torch_dialect(c4, true) == std::nullopt);
  CHECK(c4.torch == RdzvDialect::Torch1_13);
}
