#include "cli/local_job.hpp"

#include <iostream>

namespace ejob::cli {

job::LocalBackend local_backend() {
  job::LocalBackend backend = job::LocalBackend::of_this_executable();
  backend.warn = [](const std::string& line) { std::cerr << "ejob: warning: " << line << '\n'; };
  return backend;
}

}  // namespace ejob::cli
