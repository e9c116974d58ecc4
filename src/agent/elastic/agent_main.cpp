#include "src/agent/elastic/agent_main.hpp"

#include <malloc.h>

#include <cstdio>
#include <memory>
#include <string_view>

#include "src/agent/base/host_identity.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/elastic/agent.hpp"
#include "src/agent/elastic/c10d_round_source.hpp"
#include "src/agent/elastic/etcd_round_source.hpp"
#include "src/agent/elastic/etcd_v2_round_source.hpp"
#include "src/agent/elastic/rendezvous_gate.hpp"
#include "src/agent/elastic/static_round_source.hpp"
#include "src/agent/preemption/notice_watcher.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

std::unique_ptr<RoundSource> make_source(const LaunchConfig& c) {
  if (c.backend == Backend::Static) return std::make_unique<StaticRoundSource>(c);
  if (c.backend == Backend::C10d) return std::make_unique<C10dRoundSource>(c);
  if (c.backend == Backend::EtcdV2) return std::make_unique<EtcdV2RoundSource>(c);
  auto rdzv = std::make_unique<EtcdRendezvous>(etcd_client_options(c), c.etcd, c.run_id,
                                               c.min_nodes, c.max_nodes);
  EtcdRoundSource::Options options{c.role,
                                   c.nproc_per_node,
                                   c.local_addr.value_or(fq_hostname()),
                                   c.torch.value_or(RdzvDialect::Torch1_13),
                                   c.workers_identical,
                                   c.share_agent_store};
  return std::make_unique<EtcdRoundSource>(std::move(rdzv), std::move(options));
}

/// A metadata service answers within milliseconds where there is one; off a cloud a connection
/// may hang: one second is all the watch gives it.
constexpr long k_metadata_connect_timeout_ms = 1000;

/// The preemption watch --spot-notices asks for (nullptr: off), started at once so that
/// finding the cloud overlaps the rest of the start-up. The metadata service is at
/// EJOB_SPOT_METADATA_URL when set (a proxy, a fake in tests).
std::unique_ptr<NoticeWatcher> start_notice_watch(const LaunchConfig& c, const Environment& env,
                                                  RendezvousGate& gate) {
  NoticeSource source = parse_notice_source(c.spot_notices).value_or(NoticeSource::Off);
  if (source == NoticeSource::Off) return nullptr;
  auto it = env.find("EJOB_SPOT_METADATA_URL");
  std::string text =
      it != env.end() && !it->second.empty() ? it->second : std::string(k_default_metadata_url);
  std::optional<MetadataUrl> url = parse_metadata_url(text);
  if (!url)
    throw Error(ErrorCode::Usage,
                "EJOB_SPOT_METADATA_URL=" + text + ": not an http:// or https:// URL");
  NoticeSettings settings;
  settings.source = source;
  settings.acknowledge = c.spot_ack;
  return std::make_unique<NoticeWatcher>(
      settings, std::make_unique<HttpMetadata>(*url, k_metadata_connect_timeout_ms),
      [&gate] { gate.on_notice(); });
}

void warn_omp(const LaunchConfig& c, const Environment& env) {
  if (c.nproc_per_node <= 1 || env.count("OMP_NUM_THREADS")) return;
  log_warning(
      "\n*****************************************\nSetting OMP_NUM_THREADS environment variable "
      "for each process to be 1 in default, to avoid your system being overloaded, please "
      "further tune the variable for optimal performance in your application as needed. \n"
      "*****************************************");
}

}  // namespace

int agent_main(int argc, char** argv) {
  // One malloc arena: the agent's few threads do little allocation, and every arena costs RSS.
  mallopt(M_ARENA_MAX, 1);
  AgentSignals signals;  // before any thread, so that every thread inherits the mask
  RendezvousGate gate;
  std::unique_ptr<NoticeWatcher> notices;  // stopped before the gate goes
  std::unique_ptr<RoundSource> source;
  // `ejob-agent --version` alone (torchrun has no such flag, so nothing else is taken from it):
  // what an image build runs to prove the agent starts in that image (glibc, libraries).
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::printf(
        "ejob-agent %s (torchrun command line; rendezvous etcd, etcd-v2, c10d; torch 1.13 and "
        "2.x)\n",
        EJOB_VERSION);
    return 0;
  }
  try {
    Environment env = current_environment();
    LaunchOptions options =
        parse_launch_options(std::vector<std::string>(argv + 1, argv + argc), env);
    if (options.help) {
      std::fputs(launch_usage().c_str(), stdout);
      return 0;
    }
    LaunchConfig config = make_launch_config(options, env, detect_host(env));
    notices = start_notice_watch(config, env, gate);
    if (auto version = resolve_torch_dialect(config, !options.no_python))
      log_info("the workers' python has torch " + *version);
    warn_omp(config, env);
    signals.exit_on_signal();
    source = make_source(config);
    Agent agent(config, env, *source, signals, notices.get(), &gate);
    return agent.run();
  } catch (const Error& e) {
    // As torchrun's `finally: rdzv_handler.shutdown()`: a failed agent closes the run.
    if (source && e.code() != ErrorCode::Usage) source->shutdown();
    std::fprintf(stderr, "ejob-agent: error: %s\n", e.message().c_str());
    if (e.code() == ErrorCode::Usage) std::fputs("usage: see ejob-agent --help\n", stderr);
    return e.code() == ErrorCode::Usage ? 2 : 1;
  }
}

}  // namespace ejob::agent
