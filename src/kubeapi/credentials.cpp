#include "src/kubeapi/credentials.hpp"

#include <fstream>
#include <sstream>

#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr auto k_token_file_ttl = std::chrono::minutes(1);

std::string read_token(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::Input, "cannot read token file " + path);
  std::ostringstream out;
  out << in.rdbuf();
  std::string token = out.str();
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

}  // namespace

Credentials::Credentials(RestConfig cfg, Terminal terminal)
    : m_cfg(std::move(cfg)), m_terminal(terminal) {}

AuthMaterial Credentials::current() {
  std::lock_guard lock(m_mutex);
  AuthMaterial out;
  out.client_cert_pem = m_cfg.client_cert_pem;
  out.client_key_pem = m_cfg.client_key_pem;
  if (m_cfg.exec) {
    const bool expired =
        m_exec && m_exec->expires && *m_exec->expires <= std::chrono::system_clock::now();
    if (!m_exec || expired) {
      m_exec = run_exec_plugin(m_cfg, m_terminal);
      ++m_plugin_runs;
    }
    if (!m_exec->token.empty()) out.authorization = "Bearer " + m_exec->token;
    if (!m_exec->client_cert_pem.empty()) {
      out.client_cert_pem = m_exec->client_cert_pem;
      out.client_key_pem = m_exec->client_key_pem;
    }
    return out;
  }
  if (!m_cfg.token_file.empty()) {
    const auto now = std::chrono::steady_clock::now();
    if (!m_file_token || now - m_file_read >= k_token_file_ttl) {
      m_file_token = read_token(m_cfg.token_file);
      m_file_read = now;
    }
    out.authorization = "Bearer " + *m_file_token;
  } else if (!m_cfg.token.empty()) {
    out.authorization = "Bearer " + m_cfg.token;
  } else if (!m_cfg.username.empty()) {
    out.authorization = "Basic " + base64_encode(m_cfg.username + ":" + m_cfg.password);
  }
  return out;
}

bool Credentials::refresh() {
  std::lock_guard lock(m_mutex);
  if (m_cfg.exec) {
    m_exec.reset();
    return true;
  }
  if (!m_cfg.token_file.empty()) {
    m_file_token.reset();
    return true;
  }
  return false;
}

int Credentials::plugin_runs() const {
  std::lock_guard lock(m_mutex);
  return m_plugin_runs;
}

}  // namespace ejob::kubeapi
