// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_baseline.h"

#include <string>

namespace railguard::health {
namespace {

// The node's baseline: every readable counter of each rail port and the AER totals of each
// PCI function in `f`, at `now`.
NodeBaseline MakeNodeBaseline(const NodeFacts& f, double now) {
  NodeBaseline b;
  b.node = f.node;
  b.time = now;
  if (f.boot_id.ok()) b.boot_id = *f.boot_id.value;
  for (const NicFacts& n : f.nics) {
    if (!n.complete || !n.present || !n.port_error.empty()) continue;
    PortCounters& pc = b.ports[n.name];
    for (const auto& kv : n.port.counters)
      if (kv.second.error.empty() && !kv.second.no_pma) pc.counters[kv.first] = kv.second.value;
    for (const auto& kv : n.port.hw_counters)
      if (kv.second.error.empty() && !kv.second.no_pma) pc.hw_counters[kv.first] = kv.second.value;
  }
  for (const auto& kv : f.pci) {
    AerTotals t;
    if (kv.second.aer_correctable.value.ok())
      t.correctable = kv.second.aer_correctable.value.value->total;
    if (kv.second.aer_nonfatal.value.ok()) t.nonfatal = kv.second.aer_nonfatal.value.value->total;
    if (kv.second.aer_fatal.value.ok()) t.fatal = kv.second.aer_fatal.value.value->total;
    b.pcie[kv.first] = t;
  }
  return b;
}

}  // namespace

int RecordBaseline(const RunContext& ctx, const RunInput& in, RunOutput* out) {
  ctx.Phase("recording the baseline");
  const StateFiles& st = in.state;
  const std::string& dir = in.setup.state_dir;
  NodeBaseline b = MakeNodeBaseline(in.facts, in.now);
  RunState next = st.last_status == LoadStatus::kOk ? st.last : RunState();
  next.node = in.setup.node;
  next.time = in.now;
  next.baseline_time = b.time;
  // The counters recorded are this boot's: the next run must not take them for a reboot's.
  next.boot_id = in.facts.boot_id.ok() ? *in.facts.boot_id.value : std::string();
  for (auto& kv : next.ports) kv.second.since_baseline.clear();
  for (auto& kv : next.pcie) kv.second.since_baseline = AerTotals();
  for (const auto& kv : b.ports) next.ports[kv.first].last = kv.second;
  for (const auto& kv : b.pcie) next.pcie[kv.first].last = kv.second;
  RunReport& r = out->report;
  for (const GatherTimeout& t : in.facts.timeouts)
    r.problems.push_back(t.task + ": reading " + t.path + " did not finish within " +
                         std::to_string(t.limit_ms) + " ms; not in the baseline");
  const std::string line = "baseline of " + std::to_string(b.ports.size()) + " ports and " +
                           std::to_string(b.pcie.size()) + " PCIe functions in " +
                           BaselinePath(dir);
  const bool dry = in.options.dry;
  if (!st.baseline_replaced.empty())
    r.actions.push_back((dry ? "replace the " : "replacing the ") + st.baseline_replaced);
  if (dry) {
    r.actions.push_back("record " + line);
  } else {
    std::string err;
    if (!SaveBaseline(dir, b, &err) || !SaveRunState(dir, next, &err)) {
      r.problems.push_back(err);
      return kExitError;
    }
    r.actions.push_back("recorded " + line);
  }
  return r.problems.empty() ? kExitOk : kExitError;
}

}  // namespace railguard::health
