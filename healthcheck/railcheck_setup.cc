// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_setup.h"

#include <algorithm>

#include "config/slurm_health_check.h"
#include "healthcheck/check_table.h"

namespace railguard::health {
namespace {

// What slurmd's settings for its HealthCheckProgram mean for a --periodic run, when slurm.conf
// names one (railcheck itself or a program that calls it, such as NHC; without one slurmd
// runs nothing and nothing applies): the time limit kept under HealthCheckTimeout, and a
// note when the node states it runs on never include a drained node (railcheck would not
// resume the nodes it drained) or it never runs.
void HonourSlurmd(const RunContext& ctx, Setup* s) {
  if (!ctx.deps.read_health_check) return;
  SlurmHealthCheck hc;
  std::string err;
  if (!ctx.deps.read_health_check(&hc, &err)) {
    s->slurm_notes.push_back("slurm.conf's HealthCheck settings not read (" + err +
                             "): the time limit stays " +
                             std::to_string(s->time_limit_seconds) + " s");
    return;
  }
  if (hc.program.empty()) return;
  const int within = AnswerWithin(hc);
  if (within < s->time_limit_seconds) {
    s->slurm_notes.push_back(
        "answering within " + std::to_string(within) + " s, not periodic_time_limit_seconds " +
        std::to_string(s->time_limit_seconds) + ": slurmd kills the program after " +
        (hc.timeout_at.empty() ? "60 s (its fixed limit before Slurm 26.05)"
                               : "HealthCheckTimeout=" + std::to_string(hc.timeout) + " (" +
                                     hc.timeout_at + ")"));
    s->time_limit_seconds = within;
  }
  const std::string states =
      hc.states_at.empty() ? "" : "HealthCheckNodeState=" + hc.states_text + " (" + hc.states_at + ")";
  if (hc.states & (kHcStartOnly | kHcRebootOnly)) {
    s->slurm_notes.push_back(
        states + ": slurmd runs railcheck only when it " +
        ((hc.states & kHcStartOnly) ? "starts" : "comes back from a reboot") +
        ", so a node railcheck drains is not resumed by it; set HealthCheckNodeState=ANY,CYCLE "
        "and a HealthCheckInterval");
  } else if (!RunsOnDrainedIdle(hc)) {
    s->slurm_notes.push_back(states +
                             ": slurmd never runs railcheck on a drained idle node, so a node "
                             "railcheck drains is not resumed by it; set "
                             "HealthCheckNodeState=ANY,CYCLE");
  } else if (hc.interval == 0) {
    s->slurm_notes.push_back(
        std::string("HealthCheckInterval is ") +
        (hc.interval_at.empty() ? "not set" : "0 (" + hc.interval_at + ")") +
        ": slurmd never runs railcheck periodically, so a node railcheck drains is not resumed "
        "by it; set HealthCheckInterval=300");
  }
}

}  // namespace

bool LoadSetup(const RunContext& ctx, const Options& o, Setup* s, std::string* err) {
  ctx.Phase("loading the configuration");
  if (!o.config_missing.empty()) {
    *err = o.config_missing;
    return false;
  }
  Diags diags;
  s->rails = LoadRailSetup(o.config_path, &diags, &CheckCatalogOfTable());
  if (!s->rails) {
    *err = "cannot load the configuration:\n" + FormatDiags(diags);
    return false;
  }
  const HealthConfig& health = s->health();
  s->time_limit_seconds = IsHook(o.mode) ? health.prolog_time_limit_seconds
                                         : health.periodic_time_limit_seconds;
  if (o.mode == Mode::kPeriodic) HonourSlurmd(ctx, s);
  if (ctx.deps.arm_time_limit) ctx.deps.arm_time_limit(s->time_limit_seconds);
  s->node = o.node.empty() ? ctx.env.hostname : o.node;
  if (s->node.empty()) {
    *err = "no node name: give --node NAME (or set SLURMD_NODENAME)";
    return false;
  }
  s->type = s->rails->topology.TypeOfNode(s->node);
  if (!s->type) {
    *err = "node '" + s->node + "' is not in the rail topology " + s->rails->config.topology_path +
           "; expected a node of one of its scalable units (or --node NAME)";
    return false;
  }
  s->sysfs_root = o.sysfs_root ? *o.sysfs_root : ExpandNode(health.sysfs_root, s->node);
  // sysfs_root is where sysfs is mounted; "/" (what configs said before) means the kernel's.
  if (s->sysfs_root == "/") s->sysfs_root = kLiveSysfs;
  s->state_dir = ExpandNode(health.state_dir, s->node);
  const topo::NodeRef* ref = s->rails->topology.FindNode(s->node);
  NodeFabric fabric;
  // Leaf faults are matched by the node's one-hop domain (its SU's name when the SU has one).
  const topo::Topology& t = s->rails->topology;
  const std::string domain =
      ref && ref->domain >= 0 ? t.domains[ref->domain].name : ref ? t.sus[ref->su].name : "";
  // Under a limit of its own, in a child, when the run gathers in one (not in unit tests).
  const int evidence_ms = std::min(std::max(1000, 4 * health.read_timeout_ms),
                                   std::max(1000, 250 * s->time_limit_seconds));
  if (LoadNodeFabric(health, s->node, domain, ctx.deps.now(), &fabric, &s->fabric_note,
                     ctx.deps.gather_in_child ? BoundedEvidenceRead(evidence_ms)
                                              : ReadEvidenceHere))
    s->fabric = std::move(fabric);
  return true;
}

bool LoadState(const RunContext& ctx, const Options& o, const Setup& s, StateFiles* st,
               std::string* err) {
  ctx.Phase("reading the state files");
  if (!o.dry) {
    if (!PrepareStateDir(s.state_dir, err)) return false;
    const int wait_ms = 1000 * std::min(s.health().prolog_time_limit_seconds, 5);
    if (!st->lock.Acquire(s.state_dir, wait_ms, err)) return false;
  }
  st->baseline_status = LoadBaseline(s.state_dir, s.node, &st->baseline, err);
  // Recording a new baseline is the way out of a corrupt one (the error says so): that run
  // replaces it instead of stopping on it.
  if (st->baseline_status == LoadStatus::kCorrupt && o.mode == Mode::kBaseline) {
    st->baseline_replaced = err->substr(0, err->find(" (recover: "));
  } else if (st->baseline_status == LoadStatus::kCorrupt ||
             st->baseline_status == LoadStatus::kError) {
    return false;
  }
  st->last_status = LoadRunState(s.state_dir, s.node, &st->last, err);
  return st->last_status != LoadStatus::kCorrupt && st->last_status != LoadStatus::kError;
}

std::string ExpandNode(const std::string& templ, const std::string& node) {
  std::string out;
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '%' && i + 1 < templ.size() && templ[i + 1] == 'n') {
      out += node;
      ++i;
    } else {
      out += templ[i];
    }
  }
  return out;
}

}  // namespace railguard::health
