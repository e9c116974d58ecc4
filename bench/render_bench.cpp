/// In-process render benchmark: loads a chart once, then runs ejob's whole `helm template`
/// pipeline after loading (values, coalescing, parse, execute, sort, print) N times and prints
/// the mean time per render, in the same format as `ejob-reference bench`.
///
///   ejob-render-bench --chart DIR [--name NAME] [-n N] [--set K=V]...

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/helm/chart.hpp"
#include "src/render/helm/render_chart.hpp"

namespace {

/// Parsed command line of the benchmark.
struct BenchArgs {
  std::string chart_dir;
  std::string name = "release-name";
  long iterations = 1000;
  std::vector<std::string> sets;
};

BenchArgs parse_args(int argc, char** argv) {
  BenchArgs args;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string_view flag = argv[i];
    if (flag == "--chart") {
      args.chart_dir = argv[i + 1];
    } else if (flag == "--name") {
      args.name = argv[i + 1];
    } else if (flag == "-n") {
      args.iterations = std::strtol(argv[i + 1], nullptr, 10);
    } else if (flag == "--set") {
      args.sets.emplace_back(argv[i + 1]);
    } else {
      throw std::runtime_error("unknown flag " + std::string(flag));
    }
  }
  if (args.chart_dir.empty() || args.iterations <= 0) {
    throw std::runtime_error(
        "usage: ejob-render-bench --chart DIR [--name NAME] [-n N] [--set K=V]...");
  }
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const BenchArgs args = parse_args(argc, argv);
    ejob::render::helm::RenderOptions options;
    options.chart = ejob::render::helm::load_chart(args.chart_dir);
    options.release_name = args.name;
    options.values.set = args.sets;
    ejob::render::helm::RenderIo io;
    io.read = [](const std::string& path) -> std::string {
      throw std::runtime_error("unexpected read of " + path);
    };
    io.warn = [](const std::string&) {};
    std::string out = ejob::render::helm::render_chart(options, io);  // warm-up
    const auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < args.iterations; ++i) {
      out = ejob::render::helm::render_chart(options, io);
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    const long long per_op =
        std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count() / args.iterations;
    std::printf("ejob in-process: %ld renders, %lld ns/op, %zu bytes/render\n", args.iterations,
                per_op, out.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ejob-render-bench: %s\n", e.what());
    return 1;
  }
}
