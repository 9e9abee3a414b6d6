// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/hetjob.h"

#include "plugin/core/job_options.h"

namespace railguard::plugin {

TogetherChoice ChooseTogetherSu(const topo::Topology& topo, const std::vector<ScopeNode>& scope,
                                uint32_t total) {
  const size_t n = topo.domains.size();
  std::vector<uint32_t> healthy(n, 0), idle(n, 0);
  std::vector<int> domain_of(scope.size(), -1);
  for (size_t i = 0; i < scope.size(); ++i) {
    const topo::NodeRef* ref = topo.FindNode(scope[i].name);
    if (!ref || ref->domain < 0 || static_cast<size_t>(ref->domain) >= n) continue;
    domain_of[i] = ref->domain;
    if (!scope[i].healthy) continue;
    healthy[static_cast<size_t>(ref->domain)] += 1;
    if (scope[i].idle) idle[static_cast<size_t>(ref->domain)] += 1;
  }
  TogetherChoice c;
  int fit = -1, most = -1;
  for (size_t d = 0; d < n; ++d) {
    if (healthy[d] < total) continue;
    if (idle[d] >= total && (fit < 0 || idle[d] < idle[static_cast<size_t>(fit)]))
      fit = static_cast<int>(d);
    if (most < 0 || idle[d] > idle[static_cast<size_t>(most)]) most = static_cast<int>(d);
  }
  c.domain = fit >= 0 ? fit : most;
  if (c.domain < 0) return c;
  c.su = topo.domains[static_cast<size_t>(c.domain)].su;
  c.healthy = healthy[static_cast<size_t>(c.domain)];
  c.idle_healthy = idle[static_cast<size_t>(c.domain)];
  for (size_t i = 0; i < scope.size(); ++i)
    if (domain_of[i] != c.domain) c.outside.push_back(scope[i].name);
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
