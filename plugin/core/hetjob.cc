// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/hetjob.h"

#include "plugin/core/job_options.h"

namespace railguard::plugin {

TogetherChoice ChooseTogetherSu(const topo::Topology& topo, const std::vector<ScopeNode>& scope,
                                uint32_t total) {
  std::vector<uint32_t> healthy(topo.sus.size(), 0), idle(topo.sus.size(), 0);
  std::vector<int> su_of(scope.size(), -1);
  for (size_t i = 0; i < scope.size(); ++i) {
    const topo::NodeRef* ref = topo.FindNode(scope[i].name);
    if (!ref || ref->su < 0 || static_cast<size_t>(ref->su) >= topo.sus.size()) continue;
    su_of[i] = ref->su;
    if (!scope[i].healthy) continue;
    healthy[static_cast<size_t>(ref->su)] += 1;
    if (scope[i].idle) idle[static_cast<size_t>(ref->su)] += 1;
  }
  TogetherChoice c;
  int fit = -1, most = -1;
  for (size_t s = 0; s < topo.sus.size(); ++s) {
    if (healthy[s] < total) continue;
    if (idle[s] >= total && (fit < 0 || idle[s] < idle[static_cast<size_t>(fit)]))
      fit = static_cast<int>(s);
    if (most < 0 || idle[s] > idle[static_cast<size_t>(most)]) most = static_cast<int>(s);
  }
  c.su = fit >= 0 ? fit : most;
  if (c.su < 0) return c;
  c.healthy = healthy[static_cast<size_t>(c.su)];
  c.idle_healthy = idle[static_cast<size_t>(c.su)];
  for (size_t i = 0; i < scope.size(); ++i)
    if (su_of[i] != c.su) c.outside.push_back(scope[i].name);
  return c;
}

bool HetjobTogether(const std::vector<std::string>& spank_env, bool* together, std::string* err) {
  *together = false;
  const std::string prefix = std::string(kHetjobEnv) + "=";
  for (const std::string& entry : spank_env) {
    if (entry.compare(0, prefix.size(), prefix) != 0) continue;
    if (!ParseHetjobOption(std::string_view(entry).substr(prefix.size()), together, err))
      return false;
  }
  return true;
}

}  // namespace railguard::plugin
