// SPDX-License-Identifier: GPL-2.0-or-later
// Transients confirmed before they count: a rail caught once in a state that passes (a port
// in LinkErrorRecovery, a read that missed its deadline, a rate that dipped) is read again,
// a bounded number of times, before its finding can drain or restrict the node.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "healthcheck/facts.h"

namespace railguard::health {

// The checks whose findings are re-read before they count: what they see can pass in a
// moment (a link retraining, a slow driver read, a rate renegotiated).
const std::vector<std::string>& TransientChecks();

// How to confirm.
struct ConfirmSpec {
  int reads = 2;      // health.confirm_reads: re-reads at most (0: none)
  int delay_ms = 0;   // health.confirm_delay_ms: the wait before each re-read
  int read_ms = 0;    // how long one re-read may take (health.read_timeout_ms)
  // No re-read starts unless its wait and read end before this.
  std::chrono::steady_clock::time_point budget_end;
};

// What confirming needs from its caller.
struct ConfirmDeps {
  std::function<Judgement(const NodeFacts&)> judge;
  // The NICs of `rails` read again, as Gather reads a node type with only those NICs
  // (nics[i] and timeouts' rail i stand for rails[i]); with `gpus`, the GPUs too.
  std::function<NodeFacts(const std::vector<int>& rails, bool gpus)> reread;
  std::function<void(int ms)> sleep;
  std::function<std::chrono::steady_clock::time_point()> now;
};

// `facts` with every rail (and the GPU scan, rail -1) that `deps.judge` finds failing a
// TransientChecks() check at restrict or drain read again, up to `spec.reads` times
// `spec.delay_ms` apart, while the budget lasts: a rail that reads without such a finding
// once keeps those facts (its finding was transient and does not count); one that has such
// a finding on every read keeps its last read (confirmed). `*notes` gets one line per rail
// that was re-read or could not be: "transient: ...", "confirmed: ...", "not confirmed: ...".
NodeFacts ConfirmTransients(NodeFacts facts, const ConfirmSpec& spec, const ConfirmDeps& deps,
                            std::vector<std::string>* notes);

// `into` with the facts of the rails (and, with `gpus`, the GPUs) of `again` (a re-read as
// ConfirmDeps::reread returns it for `rails`) put in place of what it had.
void MergeReread(const NodeFacts& again, const std::vector<int>& rails, bool gpus,
                 NodeFacts* into);

}  // namespace railguard::health
