#pragma once
/// Where `ejob logs` (and `submit --follow`) write a job's logs: whole lines on stdout, each
/// after its worker's label (`[worker-0] `, colored on a terminal), notes on stderr.

#include <algorithm>
#include <iostream>
#include <mutex>
#include <string>
#include <vector>

#include "src/job/logs.hpp"

namespace ejob::cli {

/// Writes whole lines of several streams to stdout and notes to stderr, one writer at a time.
class Printer : public job::LogSink {
 public:
  Printer(bool color, bool prefix) : m_color(color), m_prefix(prefix) {}

  void lines(const std::string& label, int index, const std::vector<std::string>& lines) override {
    if (lines.empty()) return;
    std::string head;
    if (m_prefix) {
      static constexpr int k_palette[] = {36, 33, 32, 35, 34, 31};
      const int code = k_palette[static_cast<size_t>(std::max(index, 0)) % std::size(k_palette)];
      head = m_color ? "\033[" + std::to_string(code) + "m[" + label + "]\033[0m "
                     : "[" + label + "] ";
    }
    std::string out;
    for (const auto& line : lines) out += head + line + '\n';
    std::lock_guard lock(m_mutex);
    std::cout << out << std::flush;
  }

  void note(const std::string& message) override {
    std::lock_guard lock(m_mutex);
    std::cout.flush();
    std::cerr << "ejob: " << message << '\n';
  }

 private:
  std::mutex m_mutex;
  bool m_color;
  bool m_prefix;
};

}  // namespace ejob::cli
