#pragma once
/// Test helper for the chart tests: a chart directory under the system temp dir, removed
/// afterwards.

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace ejob::render::helm {

class TempChart {
 public:
  /// `prefix` names the test in the directory's name, e.g. "ejob-chart-test-".
  explicit TempChart(const std::string& prefix) {
    std::random_device rd;
    m_dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(rd()));
    std::filesystem::create_directories(m_dir);
  }
  ~TempChart() { std::filesystem::remove_all(m_dir); }
  TempChart(const TempChart&) = delete;
  TempChart& operator=(const TempChart&) = delete;
  void write(const std::string& rel, const std::string& text) const {
    std::filesystem::create_directories((m_dir / rel).parent_path());
    std::ofstream(m_dir / rel, std::ios::binary) << text;
  }
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }

 private:
  std::filesystem::path m_dir;
};

}  // namespace ejob::render::helm
