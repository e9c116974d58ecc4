#include "src/agent/launch/torch_version.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <regex>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// find_spec locates the package without running its __init__; version.py is a few lines.
constexpr const char* k_probe =
    "import importlib.util as u, os, re\n"
    "s = u.find_spec('torch')\n"
    "p = s and s.origin and os.path.join(os.path.dirname(s.origin), 'version.py')\n"
    "t = open(p).read() if p and os.path.exists(p) else ''\n"
    "m = re.search(r\"^__version__\\s*=\\s*['\\\"]([^'\\\"]+)\", t, re.M)\n"
    "print(m.group(1) if m else '')\n";

/// Runs `python -c k_probe` and returns its stdout ("" when it fails).
std::string run_probe(const std::string& python) {
  int out[2];
  if (::pipe(out) != 0) return "";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::close(out[0]);
    ::close(out[1]);
    ::execlp(python.c_str(), python.c_str(), "-c", k_probe, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out[1]);
  std::string text;
  char buf[256];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : "";
}

}  // namespace

RdzvDialect dialect_of_torch_version(const std::string& version) {
  static const std::regex form(R"(^(\d+)\.(\d+)([.+a-z0-9]*)$)");
  std::smatch m;
  if (!std::regex_match(version, m, form))
    throw Error(ErrorCode::Usage,
                "--torch_version=" + version + " is not a torch version (e.g. 1.13 or 2.6.0)");
  const int major = std::stoi(m[1]);
  if (major == 0)
    throw Error(ErrorCode::Usage, "--torch_version=" + version +
                                      ": torch before 1.0 has no torch.distributed.elastic; "
                                      "ejob-agent speaks the rendezvous of torch 1.13 and 2.x");
  return major >= 2 ? RdzvDialect::Torch2 : RdzvDialect::Torch1_13;
}

std::optional<std::string> installed_torch_version(const std::string& python) {
  std::string text = run_probe(python);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.empty()) return std::nullopt;
  return text;
}

}  // namespace ejob::agent
