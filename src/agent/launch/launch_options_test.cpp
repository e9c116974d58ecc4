#include "src/agent/launch/launch_options.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using ejob::agent::Environment;
using ejob::agent::LaunchOptions;
using ejob::agent::parse_launch_options;

namespace {

LaunchOptions parse(std::vector<std::string> args, Environment env = {}) {
  return parse_launch_options(args, env);
}

std::string parse_error(std::vector<std::string> args, Environment env = {}) {
  try {
    parse_launch_options(args, env);
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Usage);
    return e.message();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("launch options: torchrun defaults") {
  LaunchOptions o = parse({"train.py"});
  CHECK(o.nnodes == "1:1");
  CHECK(o.nproc_per_node == "1");
  CHECK(o.rdzv_backend == "static");
  CHECK(o.rdzv_id == "none");
  CHECK(o.max_restarts == 0);
  CHECK(o.monitor_interval == 5);
  CHECK(o.role == "default");
  CHECK(o.redirects == "0");
  CHECK(o.tee == "0");
  CHECK(o.master_addr == "127.0.0.1");
  CHECK(o.master_port == 29500);
  CHECK_FALSE(o.log_dir.has_value());
  CHECK_FALSE(o.local_addr.has_value());
  CHECK(o.training_script == "train.py");
  CHECK(o.training_script_args.empty());
}

TEST_CASE("launch options: the controller's flags with = and with a separate value") {
  LaunchOptions o = parse({"--rdzv_backend=etcd", "--rdzv_endpoint=etcd-service:2379", "--rdzv_id",
                           "imagenet", "--nnodes=1:2", "--nproc_per_node", "4", "main.py",
                           "--arch=resnet18", "--nnodes=7", "-m"});
  CHECK(o.rdzv_backend == "etcd");
  CHECK(o.rdzv_endpoint == "etcd-service:2379");
  CHECK(o.rdzv_id == "imagenet");
  CHECK(o.nnodes == "1:2");
  CHECK(o.nproc_per_node == "4");
  CHECK(o.training_script == "main.py");
  CHECK(o.training_script_args == std::vector<std::string>{"--arch=resnet18", "--nnodes=7", "-m"});
  CHECK_FALSE(o.module);
}

TEST_CASE("launch options: dash spellings and unique prefixes") {
  LaunchOptions o =
      parse({"--nproc-per-node=2", "--max-restarts", "3", "--rdzv_b", "etcd", "--monitor=0.5",
             "--log-dir=/tmp/x", "--no-python", "--run-path", "--node-rank=1", "--master-addr=h",
             "--master-port=1234", "--start-method=fork", "--local-addr=10.1.2.3", "run.sh"});
  CHECK(o.nproc_per_node == "2");
  CHECK(o.max_restarts == 3);
  CHECK(o.rdzv_backend == "etcd");
  CHECK(o.monitor_interval == 0.5);
  CHECK(o.log_dir == "/tmp/x");
  CHECK(o.no_python);
  CHECK(o.run_path);
  CHECK(o.node_rank == 1);
  CHECK(o.master_addr == "h");
  CHECK(o.master_port == 1234);
  CHECK(o.start_method == "fork");
  CHECK(o.local_addr == "10.1.2.3");
  CHECK(parse({"--local_addr", "node-a", "t.py"}).local_addr == "node-a");
  CHECK(parse({"--nproc=3", "t.py"}).nproc_per_node == "3");
  CHECK(parse({"--max_r=3", "t.py"}).max_restarts == 3);
  // Prefixes are torchrun's: `--t` is `--tee` there, whatever flags ejob-agent adds.
  CHECK(parse({"--t", "3", "t.py"}).tee == "3");
  CHECK(parse({"--torch", "2.6", "t.py"}).torch_version == "2.6");
}

TEST_CASE("launch options: short options -m -r -t") {
  LaunchOptions o = parse({"-m", "-r", "3", "-t1", "pkg.train"});
  CHECK(o.module);
  CHECK(o.redirects == "3");
  CHECK(o.tee == "1");
  CHECK(parse({"-r=0:1,1:2", "t.py"}).redirects == "0:1,1:2");
  CHECK(parse({"--", "t.py", "--", "x"}).training_script_args ==
        std::vector<std::string>{"--", "x"});
}

TEST_CASE("launch options: PET_ environment fallbacks, command line wins") {
  Environment env = {{"PET_NNODES", "2:4"},          {"PET_NPROC_PER_NODE", "2"},
                     {"PET_STANDALONE", "1"},        {"PET_MAX_RESTARTS", "5"},
                     {"PET_RDZV_CONF", "timeout=9"}, {"PET_MODULE", "0"}};
  LaunchOptions o = parse({"--nnodes=3", "t.py"}, env);
  CHECK(o.nnodes == "3");
  CHECK(o.nproc_per_node == "2");
  CHECK(o.standalone);
  CHECK(o.max_restarts == 5);
  CHECK(o.rdzv_conf == "timeout=9");
  CHECK_FALSE(o.module);
}

TEST_CASE("launch options: errors use argparse's wording") {
  CHECK(parse_error({"--nproc-per-nod=2", "--bogus", "t.py"}) == "unrecognized arguments: --bogus");
  CHECK(parse_error({"--bogus=1", "t.py"}) == "unrecognized arguments: --bogus=1");
  CHECK(parse_error({"--rdzv=etcd", "t.py"}) ==
        "ambiguous option: --rdzv could match --rdzv_backend, --rdzv-backend, --rdzv_endpoint, "
        "--rdzv-endpoint, --rdzv_id, --rdzv-id, --rdzv_conf, --rdzv-conf");
  CHECK(parse_error({"--max_restarts=x", "t.py"}) ==
        "argument --max_restarts/--max-restarts: invalid int value: 'x'");
  CHECK(parse_error({"--monitor_interval", "soon", "t.py"}) ==
        "argument --monitor_interval/--monitor-interval: invalid float value: 'soon'");
  CHECK(parse_error({"--start_method=thread", "t.py"}) ==
        "argument --start_method/--start-method: invalid choice: 'thread' (choose from 'spawn', "
        "'fork', 'forkserver')");
  CHECK(parse_error({"--standalone=1", "t.py"}) ==
        "argument --standalone: ignored explicit argument '1'");
  CHECK(parse_error({"--nnodes"}) == "argument --nnodes: expected one argument");
  CHECK(parse_error({"--nnodes", "--standalone", "t.py"}) ==
        "argument --nnodes: expected one argument");
  CHECK(parse_error({"--nnodes=2"}) ==
        "the following arguments are required: training_script, training_script_args");
  CHECK(parse_error({"t.py"}, {{"PET_MASTER_PORT", "abc"}}) ==
        "argument --master_port/--master-port: invalid int value: 'abc'");
}

TEST_CASE("launch options: the preemption flags, EJOB_SPOT_NOTICES below PET_SPOT_NOTICES") {
  LaunchOptions o = parse({"t.py"});
  CHECK(o.spot_notices == "auto");
  CHECK(o.preempt_signal == "SIGTERM");
  CHECK(o.preempt_grace == 5);
  CHECK_FALSE(o.spot_ack);
  o = parse({"--spot-notices=gce", "--preempt_signal", "SIGUSR1", "--preempt-grace=2.5",
             "--spot-ack", "t.py"});
  CHECK(o.spot_notices == "gce");
  CHECK(o.preempt_signal == "SIGUSR1");
  CHECK(o.preempt_grace == 2.5);
  CHECK(o.spot_ack);
  CHECK(parse({"t.py"}, {{"EJOB_SPOT_NOTICES", "off"}}).spot_notices == "off");
  CHECK(parse({"t.py"}, {{"EJOB_SPOT_NOTICES", "off"}, {"PET_SPOT_NOTICES", "aws"}}).spot_notices ==
        "aws");
  CHECK(parse({"--spot-notices=azure", "t.py"}, {{"PET_SPOT_NOTICES", "aws"}}).spot_notices ==
        "azure");
  CHECK(parse({"t.py"}, {{"PET_SPOT_ACK", "1"}}).spot_ack);
  CHECK(parse_error({"--spot-notices=ec2", "t.py"}) ==
        "argument --spot-notices/--spot_notices: invalid choice: 'ec2' (choose from 'auto', "
        "'azure', 'aws', 'gce', 'off')");
  CHECK(parse_error({"t.py"}, {{"EJOB_SPOT_NOTICES", "yes"}}) ==
        "argument EJOB_SPOT_NOTICES: invalid choice: 'yes' (choose from 'auto', 'azure', 'aws', "
        "'gce', 'off')");
  CHECK(parse_error({"--spot=off", "t.py"}) ==
        "ambiguous option: --spot could match --spot-notices, --spot_notices, --spot-ack, "
        "--spot_ack");
}

TEST_CASE("launch options: --help needs no script") {
  CHECK(parse({"--help"}).help);
  CHECK(parse({"-h"}).help);
}
