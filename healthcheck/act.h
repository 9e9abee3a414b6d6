// SPDX-License-Identifier: GPL-2.0-or-later
// Acting on a verdict: what to change on the node in Slurm (drain with a railcheck: reason,
// resume, the healthy feature, per-rail health in the Extra field), planned as a pure
// function of the verdict, the node's Slurm state and the run state's streaks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "healthcheck/checks.h"
#include "healthcheck/state.h"
#include "wire/drain_reason.h"

namespace railguard::health {

// The node as Slurm sees it.
struct SlurmNode {
  std::string name;
  bool drain = false;  // the DRAIN flag (draining or drained)
  bool down = false;   // base state DOWN
  std::string reason;
  std::string features;      // available features, comma separated
  std::string features_act;  // active features; Slurm reports "" when equal to features
  std::string extra;         // the Extra field
  // The state flags railcheck respects, as scontrol names them: REBOOT_REQUESTED and
  // REBOOT_ISSUED (a pending `scontrol reboot`: resuming the node would cancel it), FAIL,
  // POWER_DOWN, POWERING_DOWN, POWERED_DOWN, POWER_DRAIN. railcheck never resumes a node
  // with one of them.
  std::vector<std::string> held_flags;
};

// The fields a plan is made from are the same in `a` and `b` (drain, down, reason, flags,
// features, Extra): a plan made from one holds for the other.
bool SameForPlanning(const SlurmNode& a, const SlurmNode& b);

// What to change; unset fields are left alone. Sent as one update_node_msg_t.
struct NodeUpdate {
  std::optional<std::string> drain_reason;  // set DRAIN with this reason
  bool resume = false;                      // clear DRAIN (NODE_RESUME)
  std::optional<std::string> features;      // new available features
  std::optional<std::string> features_act;  // new active features
  std::optional<std::string> extra;         // new Extra

  bool empty() const { return !drain_reason && !resume && !features && !features_act && !extra; }
};

// The plan for one run.
struct Plan {
  NodeUpdate update;
  RunState next;                   // the run state with streaks and counts updated
  std::vector<std::string> lines;  // what is done and why, one line each
  // The health published in Extra, as wire::WriteExtra writes it with time 0 ("" when Extra
  // holds someone else's text), and the time the Extra in Slurm holds once the plan is carried
  // out: now when it writes Extra, else the time there; 0 when there is none.
  std::string health;
  double health_time = 0;
};

// The Slurm reason for a drain verdict (wire/drain_reason.h): the first drain finding's short
// form made printable, " (+N more)" when there are others, cut to wire::kMaxReasonChars.
// REQUIRES: v.level == Level::kDrain.
std::string DrainReason(const Verdict& v);

// The node's per-rail health for the Extra field (wire::WriteExtra): time `now`, the verdict,
// each rail's status and the rail (or node) and check of every finding that is not a note
// (PlanActions adds "healthy", its decision on the healthy feature).
// When `current` already holds a JSON object its other keys are kept; when it holds other
// text nullopt is returned (railcheck does not overwrite what someone else put there).
std::optional<std::string> ExtraJson(const Verdict& v, double now, const std::string& current);

// How PlanActions treats Extra and what the run may do.
struct PlanOptions {
  // Rewrite an unchanged health in Extra once it was published this long ago (seconds; 0:
  // never, as in a Prolog or Epilog). health.extra_refresh_seconds in a --periodic run.
  double extra_refresh_seconds = 0;
  // A Prolog run: a drain verdict fails it, and Slurm requeues the job (observe mode says
  // "requeue" among what it would do).
  bool prolog = false;
  // Not empty: the drain budget is spent (healthcheck/budget.h), and this line says so. A
  // drain or restrict verdict then takes nothing out: the node keeps the healthy feature,
  // a drain of railcheck's own is resumed (its place goes to a node before it), and Extra
  // says "budget":"over".
  std::string over_budget;
};

// Plans the Slurm changes for verdict `v` on `node`, given the run state `next` (from the
// judge: counters already updated, streaks from the previous run):
//  - streaks: clean_streak counts runs without a drain or restrict finding,
//    drain_free_streak runs without a drain finding;
//  - drain verdict: drain the node with DrainReason() unless it is already drained; drained
//    by railcheck: the reason is refreshed with DrainReason() when the fault it names is
//    gone (no drain finding on the rails its headline names, wire::ReasonHeadline and
//    RailsInReason; or, naming no rail, none of the node's own) while another holds the
//    node drained; else kept, also when the finding on that rail changes (a flapping
//    port: no rewrite each run, no RPC); drained by anyone else, or not
//    drained but carrying someone else's reason: nothing is touched; the healthy feature
//    is removed;
//  - a node drained by railcheck (reason prefix) is resumed once drain_free_streak reaches
//    health.resume_after_clean_runs, unless it has one of SlurmNode::held_flags (a pending
//    reboot); a node drained by anyone else is never resumed; a railcheck drain that `next`
//    does not show (feature_held false: the state file was not written or was deleted)
//    starts both streaks from zero;
//  - restrict verdict: the feature is removed (the node keeps running single-node jobs);
//  - clean: the feature is (re-)added every run (`scontrol reconfigure` drops features set
//    by update), except after railcheck removed it: then only once clean_streak reaches
//    resume_after_clean_runs;
//  - observe mode (health.mode): the plan is made as above, then its drain, resume and
//    feature changes are taken out and listed in Extra's "would" (drain, restrict, requeue
//    for a Prolog's drain verdict, resume); its lines say "would ..."; Extra is still written;
//  - Extra carries ExtraJson(), written only when the health in it (verdict, rails, failed)
//    differs from what is there, or it is older than opt.extra_refresh_seconds: a run that
//    changes nothing plans an empty update (no write RPC).
Plan PlanActions(const Verdict& v, const SlurmNode& node, RunState next, const HealthConfig& health,
                 const std::string& feature, double now, const PlanOptions& opt = PlanOptions());

// Why a --periodic run may leave slurmctld alone, no read and no write, or "" when it must
// ask: slurmd says slurmctld sees the node healthy (`node_is_healthy` "yes":
// SLURM_NODE_IS_HEALTHY, Slurm 26.05), the verdict `v` takes nothing out (below restrict),
// railcheck holds nothing out and the last run was clean (`last`: no feature withheld, a
// clean streak), and `health` (Plan::health of this run) is what the last run left in Slurm,
// published less than `refresh_seconds` ago (0: never). The answer is the report's line.
std::string UnchangedInSlurm(const Verdict& v, const RunState& last, const std::string& health,
                             const std::optional<std::string>& node_is_healthy, double now,
                             double refresh_seconds);

// Talks to slurmctld. Implemented over libslurm (slurm_api.h); tests use a fake.
class SlurmApi {
 public:
  virtual ~SlurmApi() = default;
  // The node `name`. False with `*err` when Slurm cannot be asked or has no such node.
  virtual bool GetNode(const std::string& name, SlurmNode* out, std::string* err) = 0;
  // Applies `u` to node `name` in one request. False with `*err` (Slurm's error text).
  virtual bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) = 0;
  // Every node of the cluster (one request; for the drain budget). False with `*err`.
  virtual bool ListNodes(std::vector<SlurmNode>* out, std::string* err) = 0;
};

// What one run asks of slurmctld.
struct ActRequest {
  std::string node;
  const Verdict* verdict = nullptr;
  RunState next;  // the judge's next run state (PlanActions' `next`)
  const HealthConfig* health = nullptr;
  std::string feature;
  double now = 0;
  PlanOptions options;
  bool dry = false;  // plan only
  // The drain budget in nodes (healthcheck/budget.h); 0 = none (observe mode).
  int budget = 0;
  // Called once after the read the plan is made from and before a write that drains,
  // re-reasons or resumes (tests: an admin drains by hand there). May be empty.
  std::function<void()> pause_before_write;
  // $SLURM_NODE_IS_HEALTHY and the last run's state (null: none): with both, a --periodic
  // run whose health is unchanged in Slurm asks nothing (UnchangedInSlurm).
  std::optional<std::string> node_is_healthy;
  const RunState* last = nullptr;
};

// What acting met and did.
struct ActResult {
  SlurmNode node;   // as slurmctld had it when the plan was made (only the name if unread)
  Plan plan;        // the plan carried out (lines include what the checks below found)
  bool ok = false;  // the node was read and the plan carried out (or dry)
  std::vector<std::string> problems;  // Slurm errors
  int reads = 0, writes = 0;          // RPCs sent through the SlurmApi
  bool over_budget = false;  // the verdict would take the node out; the budget kept it in
  bool unasked = false;      // slurmctld was not asked (UnchangedInSlurm): `node` is assumed
};

// Reads the node, plans (PlanActions) and, unless dry or the plan is empty, writes it; or,
// when UnchangedInSlurm gives a reason, plans from the node as railcheck left it (not
// drained, the feature active, its Extra) and sends nothing (`unasked`, ok). A
// write that drains, re-reasons or resumes is guarded, since libslurm 22.05 has no
// conditional update: the node is read again right before it (after pause_before_write)
// and, when anything the plan rests on changed (an admin drained it, set a reason, asked for
// a reboot), planned again from that read, at most 3 times; after the write the node is
// read back and a change that landed after it (an admin's drain right after a resume) is
// reported and left alone. What stays open: an admin's update that slurmctld applies
// between that last read and the write (one RPC round trip) is overwritten or resumed;
// nothing railcheck can read afterwards shows it. `api` may be null (Slurm unreachable).
ActResult ActOnNode(SlurmApi* api, const ActRequest& rq);

// The pause railcheck makes before a guarded write when RAILCHECK_TEST_PAUSE_DIR names a
// folder (integration tests only): it creates DIR/paused, then waits until DIR/go exists
// (at most 60 s). Empty when the variable is unset.
std::function<void()> TestPauseFromEnvironment();

}  // namespace railguard::health
