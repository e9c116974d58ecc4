// Kubeconfig loading (src/kubeapi/kubeconfig.cpp): the input is the file `--kubeconfig` names;
// it is loaded for its current context and for a context named `fuzz`, and its contexts are
// listed (`ejob config get-contexts`). Files it names are read as the real program reads
// them, relative to the kubeconfig's folder (a private temporary one).
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "src/kubeapi/kubeconfig.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

/// A private folder for the kubeconfig, removed when the process ends (the replay runs in CI).
struct TempDir {
  std::string path = [] {
    std::string dir = (std::filesystem::temp_directory_path() / "ejob-fuzz-XXXXXX").string();
    if (::mkdtemp(dir.data()) == nullptr) std::abort();
    return dir;
  }();
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

const std::string& kubeconfig_path() {
  static const TempDir dir;
  static const std::string path = dir.path + "/config";
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(kubeconfig_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  ejob::kubeapi::Environment env;
  env.service_account_dir = "/nonexistent";
  ejob::kubeapi::ConfigFlags flags{kubeconfig_path(), "", ""};
  ejob::fuzz::refusals_expected([&] { (void)ejob::kubeapi::load_config(flags, env); });
  flags.context = "fuzz";
  ejob::fuzz::refusals_expected([&] { (void)ejob::kubeapi::load_config(flags, env); });
  ejob::fuzz::refusals_expected([&] { (void)ejob::kubeapi::list_contexts(flags, env); });
  return 0;
}
