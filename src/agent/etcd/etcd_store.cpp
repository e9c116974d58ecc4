#include "src/agent/etcd/etcd_store.hpp"

#include <charconv>
#include <map>
#include <thread>

#include "src/agent/etcd/etcd_client.hpp"
#include "src/agent/store/store_codec.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using Clock = std::chrono::steady_clock;

/// Runs `op` until it succeeds, retrying transport failures every 0.5 s until `deadline`.
template <typename F>
auto with_retries(Clock::time_point deadline, F op) {
  while (true) {
    try {
      return op();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Transport || Clock::now() >= deadline) throw;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
}

/// The counter an ADD finds under `key`: a decimal int64, as torch's stores keep it; anything
/// else (another writer's value) is refused with Input rather than std::stoll's exceptions.
std::int64_t counter_value(const std::string& key, const std::string& text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    throw Error(ErrorCode::Input, "ADD on the non-numeric value of " + key + ": '" + text + "'");
  return value;
}

[[noreturn]] void unexpected(const std::string& what, const EtcdResult& r) {
  throw Error(ErrorCode::Transport,
              "etcd store: " + what + " failed: " + r.message + " (" + r.cause + ")");
}

}  // namespace

EtcdStore::EtcdStore(EtcdClient& client, std::string dir, std::chrono::milliseconds timeout)
    : m_client(client), m_dir(std::move(dir)), m_timeout(timeout) {
  if (!m_dir.empty() && m_dir.back() == '/') m_dir.pop_back();
}

void EtcdStore::set(const std::string& key, const std::string& value) {
  EtcdWrite w;
  w.value = b64encode(value);
  std::string path = m_dir + "/" + b64encode(key);
  EtcdResult r = with_retries(Clock::now() + m_timeout, [&] { return m_client.write(path, w); });
  if (!r.ok()) unexpected("set " + key, r);
}

std::vector<std::string> EtcdStore::get(const std::vector<std::string>& keys) {
  auto deadline = Clock::now() + m_timeout;
  std::vector<std::string> paths;
  for (const auto& k : keys) paths.push_back(m_dir + "/" + b64encode(k));
  while (true) {
    auto asked = Clock::now();
    EtcdResult list = with_retries(deadline, [&] { return m_client.get(m_dir); });
    double latency = std::chrono::duration<double>(Clock::now() - asked).count();
    std::map<std::string, std::string> found;
    if (list.ok())
      for (const auto& n : list.node.nodes) found[n.key] = n.value;
    std::vector<std::string> values;
    std::string missing;
    for (size_t i = 0; i < paths.size(); ++i) {
      auto it = found.find(paths[i]);
      if (it == found.end())
        missing += (missing.empty() ? "" : ", ") + keys[i];
      else
        values.push_back(b64decode(it->second));
    }
    if (missing.empty()) return values;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0)
      throw Error(ErrorCode::Timeout, "timed out after " +
                                          std::to_string(m_timeout.count() / 1000) +
                                          " s waiting for store keys: " + missing);
    // Many keys still missing: every one of them will wake a watch; sleep through most of
    // them and list again instead (N agents waiting for N keys stay O(N) requests, not N^2).
    size_t missing_count = paths.size() - values.size();
    if (list.ok() && missing_count > 1) {
      double nap = std::min(0.3, static_cast<double>(missing_count) * latency);
      std::this_thread::sleep_for(std::chrono::duration<double>(nap));
      continue;
    }
    // A missing directory has no index to watch from; poll it briefly instead.
    if (!list.ok()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    with_retries(deadline,
                 [&] { return m_client.watch(m_dir, list.etcd_index + 1, true, left.count()); });
  }
}

bool EtcdStore::contains(const std::string& key) {
  std::string path = m_dir + "/" + b64encode(key);
  return with_retries(Clock::now() + m_timeout, [&] { return m_client.get(path); }).ok();
}

std::int64_t EtcdStore::add(const std::string& key, std::int64_t delta) {
  auto deadline = Clock::now() + m_timeout;
  std::string path = m_dir + "/" + b64encode(key);
  EtcdWrite create;
  create.value = b64encode(std::to_string(delta));
  create.prev_exist = false;
  EtcdResult r = with_retries(deadline, [&] { return m_client.write(path, create); });
  if (r.ok()) return delta;
  while (true) {
    EtcdResult cur = with_retries(deadline, [&] { return m_client.get(path); });
    if (!cur.ok()) unexpected("add " + key, cur);
    // Wraps past int64 as the TCPStore's ADD does (tcp_store_server.cpp).
    const auto sum = static_cast<std::uint64_t>(counter_value(key, b64decode(cur.node.value))) +
                     static_cast<std::uint64_t>(delta);
    const auto next = static_cast<std::int64_t>(sum);
    EtcdWrite cas;
    cas.value = b64encode(std::to_string(next));
    cas.prev_value = cur.node.value;
    EtcdResult w = with_retries(deadline, [&] { return m_client.write(path, cas); });
    if (w.ok()) return next;
    if (!w.is(etcd_error::compare_failed)) unexpected("add " + key, w);
  }
}

}  // namespace ejob::agent
