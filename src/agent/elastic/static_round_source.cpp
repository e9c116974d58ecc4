#include "src/agent/elastic/static_round_source.hpp"

namespace ejob::agent {

StaticRoundSource::StaticRoundSource(const LaunchConfig& config) : m_config(config) {}

Round StaticRoundSource::next_round() {
  Round r;
  r.version = std::to_string(++m_round);
  r.group_rank = m_config.node_rank;
  r.group_world_size = m_config.max_nodes;
  std::vector<RoleInfo> infos;
  for (int i = 0; i < m_config.max_nodes; ++i)
    infos.push_back({m_config.role, i, m_config.nproc_per_node});
  r.ranks = assign_ranks(infos, r.group_rank);
  r.master_addr = m_config.master_addr;
  r.master_port = m_config.master_port;
  return r;
}

}  // namespace ejob::agent
