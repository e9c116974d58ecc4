#include "tests/agent/python_peer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace ejob::agent::testing {

namespace {

std::vector<std::string> python_argv(const std::string& script, Torch torch) {
  std::string path = EJOB_AGENT_TEST_DIR "/" + script;
  if (torch == Torch::V1_13) return {EJOB_SYSTEM_PYTHON, path};
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) throw std::runtime_error("cannot read " + path);
  return {EJOB_AGENT_TEST_DIR "/in_torch2_root.sh", EJOB_TORCH2_ROOT, "/usr/bin/python3", "-c",
          text.str()};
}

}  // namespace

PythonPeer::PythonPeer(const std::string& script, const std::vector<std::string>& args,
                       Torch torch) {
  int in[2], out[2];
  std::vector<std::string> argv_s = python_argv(script, torch);
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  m_pid = ::fork();
  if (m_pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  m_stdin = in[1];
  m_stdout = out[0];
}

PythonPeer::~PythonPeer() {
  if (m_stdin >= 0) ::close(m_stdin);
  if (m_stdout >= 0) ::close(m_stdout);
  if (m_pid > 0) {
    ::kill(m_pid, SIGKILL);
    ::waitpid(m_pid, nullptr, 0);
  }
}

std::string PythonPeer::read_line(int timeout_s) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (true) {
    if (auto nl = m_buffer.find('\n'); nl != std::string::npos) {
      std::string line = m_buffer.substr(0, nl);
      m_buffer.erase(0, nl + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{m_stdout, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      throw std::runtime_error("python peer: no line within " + std::to_string(timeout_s) + " s");
    char buf[65536];
    ssize_t n = ::read(m_stdout, buf, sizeof buf);
    if (n <= 0) throw std::runtime_error("python peer: stdout closed (script failed?)");
    m_buffer.append(buf, static_cast<std::size_t>(n));
  }
}

void PythonPeer::write(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(m_stdin, text.data() + done, text.size() - done);
    if (n <= 0) throw std::runtime_error("python peer: stdin closed");
    done += static_cast<std::size_t>(n);
  }
}

int PythonPeer::wait(int timeout_s) {
  if (m_stdin >= 0) ::close(m_stdin);
  m_stdin = -1;
  for (int i = 0; i < timeout_s * 20; ++i) {
    int status = 0;
    if (::waitpid(m_pid, &status, WNOHANG) == m_pid) {
      m_pid = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw std::runtime_error("python peer did not exit within " + std::to_string(timeout_s) + " s");
}

std::string run_python(const std::string& script, const std::vector<std::string>& args,
                       Torch torch) {
  PythonPeer peer(script, args, torch);
  std::string out;
  try {
    while (true) out += peer.read_line(120) + "\n";
  } catch (const std::runtime_error&) {
    // EOF: the script finished writing.
  }
  if (int rc = peer.wait(); rc != 0)
    throw std::runtime_error(script + " exited with status " + std::to_string(rc));
  return out;
}

}  // namespace ejob::agent::testing
