// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/budget.h"

#include <algorithm>

#include "wire/drain_reason.h"
#include "wire/extra_json.h"

namespace railguard::health {
namespace {

// railcheck's report in the node's Extra; false when there is none (or it is unreadable).
bool Report(const SlurmNode& node, wire::RailcheckExtra* out) {
  std::string err;
  return wire::ReadExtra(node.extra, wire::ExtraReadMode::kStrict, out, &err) ==
         wire::ExtraStatus::kOk;
}

// Whether node `a` (weight `wa`) comes before node `b` (weight `wb`) in the fair order.
bool BudgetBefore(int wa, const std::string& a, int wb, const std::string& b) {
  return wa != wb ? wa > wb : a < b;
}

}  // namespace

int BudgetLimit(const HealthConfig& health, size_t topology_nodes) {
  if (health.drain_budget_nodes > 0) return health.drain_budget_nodes;
  const long long n = static_cast<long long>(topology_nodes) * health.drain_budget_percent / 100;
  return static_cast<int>(std::max<long long>(kMinPercentDrainBudget, std::min<long long>(n, 1000000)));
}

bool HeldOutByRailcheck(const SlurmNode& node) {
  if (node.drain) return wire::IsRailcheckReason(node.reason);
  wire::RailcheckExtra r;
  // Observe mode ("would") holds nothing out; an over-budget node stays in service.
  return Report(node, &r) && !r.would && !r.over_budget && r.healthy && !*r.healthy;
}

bool WaitsOverBudget(const SlurmNode& node) {
  wire::RailcheckExtra r;
  return !node.drain && Report(node, &r) && r.over_budget;
}

int BudgetWeight(const SlurmNode& node) {
  if (node.drain && wire::IsRailcheckReason(node.reason)) return 2;
  wire::RailcheckExtra r;
  if (!Report(node, &r)) return 0;
  if (r.verdict == "drain") return 2;
  if (r.verdict == "restrict") return 1;
  return 0;
}

BudgetView ViewBudget(const std::vector<SlurmNode>& nodes, const std::string& self, int weight,
                      int limit) {
  BudgetView v;
  v.limit = limit;
  for (const SlurmNode& n : nodes) {
    if (n.name == self) continue;
    if (HeldOutByRailcheck(n)) {
      ++v.held;
      if (BudgetBefore(BudgetWeight(n), n.name, weight, self)) ++v.rank;
    } else if (WaitsOverBudget(n) && BudgetBefore(BudgetWeight(n), n.name, weight, self)) {
      ++v.waiting;
      if (BudgetWeight(n) > weight) ++v.heavier;
    }
  }
  return v;
}

bool MayTakeOut(const BudgetView& v) { return v.held + v.waiting < v.limit; }

bool MayStayOut(const BudgetView& v) { return v.rank + v.heavier < v.limit; }

}  // namespace railguard::health
