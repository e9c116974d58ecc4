/// Whole-process benchmark: runs each command N times, interleaved (A B A B …) so that load
/// from elsewhere on the machine slows them alike, with stdout to /dev/null, and prints for
/// each the median and minimum wall time and the median CPU time (user + system of the child
/// and its threads, from wait4), in microseconds, and the median peak resident set (ru_maxrss):
///
///   ejob-process-bench N -- CMD [ARG]... [-- CMD [ARG]...]...
///   cmd 1: wall median 7412 us, wall min 6530 us, cpu median 7020 us, maxrss median 6276 KiB
///          (ejob template ...)

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace {

/// One command and its measurements, in microseconds.
struct Command {
  std::vector<char*> argv;  ///< null-terminated
  std::vector<double> wall;
  std::vector<double> cpu;
  std::vector<double> maxrss_kib;  // peak resident set of the process (ru_maxrss)
};

double micros(const timeval& t) { return static_cast<double>(t.tv_sec) * 1e6 + t.tv_usec; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Runs `c` once and records its times; false when it cannot be started or fails.
bool run_once(Command& c, const posix_spawn_file_actions_t& actions) {
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  if (posix_spawnp(&pid, c.argv[0], &actions, nullptr, c.argv.data(), environ) != 0) {
    std::perror(c.argv[0]);
    return false;
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return false;
  const auto elapsed = std::chrono::steady_clock::now() - start;
  c.wall.push_back(std::chrono::duration<double, std::micro>(elapsed).count());
  c.cpu.push_back(micros(usage.ru_utime) + micros(usage.ru_stime));
  c.maxrss_kib.push_back(static_cast<double>(usage.ru_maxrss));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "ejob-process-bench: %s failed\n", c.argv[0]);
    return false;
  }
  return true;
}

/// The commands between `--` separators.
std::vector<Command> parse_commands(int argc, char** argv) {
  std::vector<Command> cmds;
  for (int i = 2; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") {
      cmds.emplace_back();
    } else if (!cmds.empty()) {
      cmds.back().argv.push_back(argv[i]);
    }
  }
  for (Command& c : cmds) c.argv.push_back(nullptr);
  return cmds;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 2 ? std::strtol(argv[1], nullptr, 10) : 0;
  std::vector<Command> cmds = parse_commands(argc, argv);
  bool usable = n > 0 && !cmds.empty();
  for (const Command& c : cmds) usable = usable && c.argv.size() > 1;
  if (!usable) {
    std::fprintf(stderr, "usage: ejob-process-bench N -- CMD [ARG]... [-- CMD [ARG]...]...\n");
    return 2;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  for (long i = 0; i < n; ++i) {
    for (Command& c : cmds) {
      if (!run_once(c, actions)) return 1;
    }
  }
  posix_spawn_file_actions_destroy(&actions);
  for (size_t k = 0; k < cmds.size(); ++k) {
    const Command& c = cmds[k];
    std::string line;
    for (size_t a = 0; a + 1 < c.argv.size(); ++a) line += (a ? " " : "") + std::string(c.argv[a]);
    std::printf(
        "cmd %zu: wall median %.0f us, wall min %.0f us, cpu median %.0f us, "
        "maxrss median %.0f KiB (%s)\n",
        k + 1, median(c.wall), *std::min_element(c.wall.begin(), c.wall.end()), median(c.cpu),
        median(c.maxrss_kib), line.c_str());
  }
  return 0;
}
