// `ejob logs` of a local job: the nodes' log files, whole lines, each with its node.

#include <fstream>
#include <map>
#include <thread>

#include "src/local/local_jobs.hpp"

namespace ejob::local {
namespace {

/// One node's log file, read from where the last read stopped; a line is printed only once
/// it is whole, so lines of two nodes never mix.
struct LogCursor {
  int index = 0;
  std::streamoff offset = 0;
  std::string partial;
};

/// Node logs in index order (`worker-10` after `worker-9`).
std::map<int, fs::path> node_logs(const fs::path& dir) {
  std::map<int, fs::path> logs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "nodes", ec)) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() == ".log" && stem.rfind("worker-", 0) == 0)
      logs[std::stoi(stem.substr(7))] = entry.path();
  }
  return logs;
}

void read_new(const fs::path& path, LogCursor& cursor, const LineSink& out) {
  std::ifstream in(path, std::ios::binary);
  in.seekg(cursor.offset);
  std::string chunk((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  cursor.offset += static_cast<std::streamoff>(chunk.size());
  cursor.partial += chunk;
  size_t start = 0;
  for (size_t nl; (nl = cursor.partial.find('\n', start)) != std::string::npos; start = nl + 1)
    out(cursor.index, cursor.partial.substr(start, nl - start));
  cursor.partial.erase(0, start);
}

void flush_partial(LogCursor& cursor, const LineSink& out) {
  if (!cursor.partial.empty()) out(cursor.index, cursor.partial);
  cursor.partial.clear();
}

/// One pass over every node's log (new nodes included).
void read_all(const fs::path& dir, std::map<int, LogCursor>& cursors, const LineSink& out) {
  for (const auto& [index, path] : node_logs(dir)) {
    auto [it, added] = cursors.try_emplace(index);
    if (added) it->second.index = index;
    read_new(path, it->second, out);
  }
}

}  // namespace

std::optional<JobState> logs(const std::string& name, bool follow, const LineSink& out) {
  const fs::path dir = job_dir(name);
  get(name);  // NotFound before anything is printed
  std::map<int, LogCursor> cursors;
  if (!follow) {
    read_all(dir, cursors, out);
    for (auto& [index, cursor] : cursors) flush_partial(cursor, out);
    return std::nullopt;
  }
  for (;;) {
    // The state is read before the logs: once it is final, this pass reads every last line.
    JobState state = get(name);
    read_all(dir, cursors, out);
    if (is_final(state.phase)) {
      for (auto& [index, cursor] : cursors) flush_partial(cursor, out);
      return state;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace ejob::local
