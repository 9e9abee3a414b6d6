// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_judge_act.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "healthcheck/act.h"
#include "healthcheck/budget.h"
#include "healthcheck/railcheck_job.h"
#include "healthcheck/run_events.h"
#include "wire/event_log.h"

namespace railguard::health {
namespace {

// What the act phase found and did in Slurm.
struct Acted {
  SlurmNode node;         // as slurmctld has it (only the name when unreachable)
  Plan plan;              // the changes for Slurm and the next run state
  bool slurm_ok = false;  // the node was read and the plan carried out (or dry)
  bool over_budget = false;  // the drain budget kept the node in service
  bool unasked = false;      // slurmctld was not asked: the health in it is unchanged
};

int ExitCode(Level level, Mode mode) {
  switch (level) {
    case Level::kDrain:
      return kExitDrain;
    case Level::kRestrict:
      // A failing Prolog or Epilog makes Slurm drain the node itself ("Prolog error"); a
      // restricted node must keep running single-node jobs.
      return IsHook(mode) ? kExitOk : kExitRestrict;
    default:
      return kExitOk;
  }
}

// How the report names an event: "rail3 degraded", "drained".
std::string EventLabel(const wire::HealthEvent& e) {
  const std::string kind = wire::EventKindName(e.kind);
  return e.rail >= 0 ? "rail" + std::to_string(e.rail) + " " + kind : kind;
}

// Slurm's view of the node, the plan, and its update; problems into `*r`.
Acted Act(const RunContext& ctx, const RunInput& in, const Judgement& j, RunReport* r) {
  ctx.Phase("talking to slurmctld");
  std::string err;
  ActRequest rq;
  rq.node = in.setup.node;
  rq.verdict = &j.verdict;
  rq.next = j.next;
  rq.health = &in.setup.health();
  rq.feature = in.setup.feature();
  rq.now = in.now;
  if (in.options.mode == Mode::kPeriodic)
    rq.options.extra_refresh_seconds = in.setup.health().extra_refresh_seconds;
  rq.options.prolog = in.options.mode == Mode::kProlog;
  // The drain budget (observe mode takes nothing out: no budget to keep).
  if (in.setup.health().mode == HealthMode::kEnforce)
    rq.budget = BudgetLimit(in.setup.health(), in.setup.rails->topology.NodeCount());
  rq.dry = in.options.dry;
  rq.pause_before_write = TestPauseFromEnvironment();
  // slurmd's word on slurmctld's view (26.05), for a periodic run with a run state to go by.
  const std::optional<std::string>& said = ctx.env.node_is_healthy;
  if (said && *said != "yes" && *said != "no")
    r->warnings.push_back("SLURM_NODE_IS_HEALTHY='" + *said + "': expected yes or no; ignored");
  else if (in.options.mode == Mode::kPeriodic && in.state.last_status == LoadStatus::kOk)
    rq.node_is_healthy = said;
  rq.last = &in.state.last;
  ActResult res = rq.node_is_healthy ? ActOnNode(nullptr, rq) : ActResult();
  if (!res.unasked) {
    rq.node_is_healthy.reset();
    std::unique_ptr<SlurmApi> slurm = ctx.deps.open_slurm(&err);
    res = ActOnNode(slurm.get(), rq);
    if (!slurm) res.problems.insert(res.problems.begin(), err);
  }
  Acted a{std::move(res.node), std::move(res.plan), res.ok, res.over_budget, res.unasked};
  r->problems.insert(r->problems.end(), res.problems.begin(), res.problems.end());
  r->actions = a.plan.lines;
  r->slurm_reads = res.reads;
  r->slurm_writes = res.writes;
  return a;
}

// The event log, once Slurm carried out the plan.
void WriteEvents(const RunContext& ctx, const RunInput& in, const Judgement& j, const Acted& a,
                 RunReport* r) {
  // Only a plan Slurm carried out is history; and without the node's Extra every unhealthy
  // rail would look like a change. A log that cannot be written is a warning: the verdict
  // and the exit code stay what the hardware says.
  ctx.Phase("writing the event log");
  if (a.unasked) return;  // the health is what Slurm holds: nothing changed
  const std::vector<wire::HealthEvent> events =
      EventsForRun(a.node, j.verdict, a.plan, j.moves, in.setup.feature(), in.now);
  const std::string log = ExpandNode(in.setup.health().events_log, in.setup.node);
  if (events.empty()) return;
  std::string err;
  if (wire::AppendEvents(log, events, &err)) {
    for (const wire::HealthEvent& e : events) r->events.push_back(EventLabel(e));
    r->events_log = log;
  } else {
    r->warnings.push_back("event log not written: " + err);
  }
}

// The next run state (not in --dry-run).
void RecordState(const RunContext& ctx, const RunInput& in, const Acted& a, RunReport* r) {
  ctx.Phase("writing the state file");
  // Without Slurm the plan was not carried out: keep the streaks and counts of the last
  // run, but still record the counters so that rates stay right.
  RunState next = a.plan.next;
  // What Slurm holds once the plan is carried out; not known when it was not.
  next.published_health = a.slurm_ok ? a.plan.health : std::string();
  next.published_time = a.slurm_ok ? a.plan.health_time : 0;
  const StateFiles& st = in.state;
  if (!a.slurm_ok && st.last_status == LoadStatus::kOk) {
    next.clean_streak = st.last.clean_streak;
    next.drain_free_streak = st.last.drain_free_streak;
    next.feature_held = st.last.feature_held;
    next.drains = st.last.drains;
    next.resumes = st.last.resumes;
  }
  std::string err;
  if (!SaveRunState(in.setup.state_dir, next, &err)) r->problems.push_back(err);
}

// The exit code of a judge-and-act run from its verdict and what acting on it met.
int CheckAndActCode(const Options& o, HealthMode hm, Level level, const Acted& a,
                    const RunReport& r) {
  // Observe mode: a failing Prolog or Epilog would make Slurm drain the node and requeue the
  // job, which is what it must not do.
  if (hm == HealthMode::kObserve && IsHook(o.mode)) return kExitOk;
  // Over the drain budget the node stays in service: its Prolog lets the job run.
  if (a.over_budget && IsHook(o.mode)) return kExitOk;
  int code = ExitCode(level, o.mode);
  // After a job the node needs no requeue: an Epilog that drained the node (or found it
  // drained) succeeds; it fails only when the node should be drained and railcheck could not,
  // so that Slurm drains it itself ("Epilog error").
  if (o.mode == Mode::kEpilog && code == kExitDrain && !o.dry && a.slurm_ok &&
      (a.node.drain || a.plan.update.drain_reason))
    code = kExitOk;
  // Slurm and state problems fail a periodic run (slurmd logs its output then); a Prolog or
  // Epilog keeps the verdict's code, because a failing one makes Slurm drain a node whose
  // hardware is fine.
  if (!r.problems.empty() && !o.dry && !IsHook(o.mode) && code != kExitDrain) code = kExitError;
  return code;
}

}  // namespace

JudgeInput JudgeInputOf(const RunInput& in) {
  JudgeInput j;
  j.facts = &in.facts;
  for (const topo::Rail& rail : in.setup.rails->topology.rails) j.rail_links.push_back(rail.link);
  j.nic_pci = in.setup.type->nic_pci;
  j.gpus_expected = in.setup.type->gpus;
  j.config = &in.setup.health();
  j.baseline = in.state.baseline_status == LoadStatus::kOk ? &in.state.baseline : nullptr;
  j.baseline_path = BaselinePath(in.setup.state_dir);
  j.last = in.state.last_status == LoadStatus::kOk ? &in.state.last : nullptr;
  j.now = in.now;
  j.fabric = in.setup.fabric ? &*in.setup.fabric : nullptr;
  return j;
}

int CheckAndAct(const RunContext& ctx, const RunInput& in, RunOutput* out) {
  ctx.Phase("judging");
  out->judgement = Judge(JudgeInputOf(in));
  const Judgement& j = out->judgement;
  RunReport& r = out->report;
  r.verdict = &j.verdict;
  const Acted a = Act(ctx, in, j, &r);
  // Answering for a late gather, nothing else is touched: the disk may be what is stuck.
  if (!in.options.dry && a.slurm_ok && !ctx.late) WriteEvents(ctx, in, j, a, &r);
  if (!in.options.dry && !ctx.late) RecordState(ctx, in, a, &r);
  if (!in.options.dry && !ctx.late) RecordJobCounters(ctx, in, &r);
  return CheckAndActCode(in.options, in.setup.health().mode, j.verdict.level, a, r);
}

}  // namespace railguard::health
