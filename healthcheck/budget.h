// SPDX-License-Identifier: GPL-2.0-or-later
// The drain budget (health.drain_budget_*, issue 23): the most nodes railcheck keeps out of
// multi-node jobs at one time, cluster wide. A spine failure, a firmware update that renames
// every NIC or a bad rule can make every node fail the same check within minutes; the budget
// keeps railguard from emptying the cluster then.
//
// The shared count is slurmctld's node table itself: a node railcheck holds out is one
// drained with a railcheck: reason, or restricted (its Extra says railcheck withholds the
// healthy feature). railcheck reads the table (one RPC) only when it is about to take its
// node out, or holds it out already; a node in good health costs nothing. Concurrent
// railchecks (hundreds of Prologs of one job) may each see room and take their nodes out at
// once: each reads the table again after its write and, when more nodes are held out than
// the budget allows, the ones last in the fair order give their place back (FitsBudget on
// the table read after the write). Every railcheck orders the same table the same way, so
// the held-out set settles at the budget; a periodic run of a held node checks its place
// again.
//
// The fair order: drain findings before restrict findings, then by node name. A node whose
// finding would take it out beyond the budget stays in service, publishes "budget":"over"
// in its Extra (wire/extra_json.h) and is reported; a node waiting so counts ahead of a
// node after it in the order when room frees up.
// Pure: the Slurm side reads the table (SlurmApi::ListNodes).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "config/config.h"
#include "healthcheck/act.h"

namespace railguard::health {

// The budget in nodes for a rail topology of `topology_nodes` nodes.
int BudgetLimit(const HealthConfig& health, size_t topology_nodes);

// How much a finding weighs in the fair order: 2 drain, 1 restrict, 0 none.
int BudgetWeight(const SlurmNode& node);

// The budget's view of slurmctld's table, for node `self` whose finding weighs `weight`.
struct BudgetView {
  int limit = 0;
  int held = 0;     // nodes other than `self` railcheck holds out now
  int rank = 0;     // of those, the ones before `self` in the fair order
  int waiting = 0;  // nodes other than `self` over the budget ("budget":"over") before it
  int heavier = 0;  // of those, the ones whose finding weighs more than `self`'s
};

// The view of `nodes` (slurmctld's table) for `self` at `weight`.
BudgetView ViewBudget(const std::vector<SlurmNode>& nodes, const std::string& self, int weight,
                      int limit);

// Whether `self` may be taken out: held + waiting < limit (a node already waiting before it
// takes the room first) ...
bool MayTakeOut(const BudgetView& v);
// ... and may stay out, after its write and in later runs: rank + heavier < limit (a node
// held out keeps its place against waiting ones of the same weight: no churn; it gives way
// to a worse finding, and, right after racing writes, to the ones before it in the order).
bool MayStayOut(const BudgetView& v);

// Whether Slurm's view of `node` says railcheck holds it out: drained with a railcheck:
// reason, or not drained and its Extra says railcheck withholds the healthy feature.
bool HeldOutByRailcheck(const SlurmNode& node);

// Whether `node`'s Extra says it waits over the budget.
bool WaitsOverBudget(const SlurmNode& node);

}  // namespace railguard::health
