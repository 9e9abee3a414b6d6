// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/act.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "base/names.h"
#include "healthcheck/budget.h"
#include "wire/extra_json.h"

namespace railguard::health {
namespace {

bool DrainedByRailcheck(const SlurmNode& n) { return n.drain && wire::IsRailcheckReason(n.reason); }

// Someone else's reason on the node (an admin's, Slurm's "Reboot ASAP", "Not responding").
bool ForeignReason(const SlurmNode& n) {
  return !n.reason.empty() && !wire::IsRailcheckReason(n.reason);
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

wire::RailcheckExtra ExtraOf(const Verdict& v, double now, std::optional<bool> healthy) {
  wire::RailcheckExtra mine;
  mine.time = now;
  mine.healthy = healthy;
  mine.verdict = LevelName(v.level);
  for (const RailHealth& r : v.rails) mine.rails.push_back(r.status);
  mine.fw = v.fw;
  for (const Finding& f : v.findings)
    if (f.severity != Severity::kNote) mine.failed.push_back({f.rail >= 0 ? f.rail : -1, f.check});
  return mine;
}

// True when `current` is exactly what railcheck would write for `mine` at the time it holds
// (the health is unchanged); `*published` = that time.
bool SameHealth(wire::RailcheckExtra mine, const std::string& current, double* published) {
  wire::RailcheckExtra there;
  std::string err;
  if (wire::ReadExtra(current, wire::ExtraReadMode::kStrict, &there, &err) !=
      wire::ExtraStatus::kOk)
    return false;
  mine.time = there.time;
  *published = there.time;
  const std::optional<std::string> again = wire::WriteExtra(mine, current);
  return again && *again == current;
}

bool Guarded(const NodeUpdate& u) { return u.drain_reason || u.resume; }

// The drain `reason` railcheck set still names a fault of `v`: a rail it names (its headline,
// without "(+N more)") has a drain finding, or it names no rail and the node has one. A
// finding that changes on the same rail (a flapping port: state, then link.flap) keeps the
// reason, so that it is not rewritten every run; a fault that moved to another rail, or is
// gone while another holds the node drained, does not.
bool StillNamed(const Verdict& v, const std::string& reason) {
  const std::vector<int> rails =
      wire::RailsInReason(wire::ReasonHeadline(reason), std::max<size_t>(v.rails.size(), 1));
  for (const Finding& f : v.findings) {
    if (f.action != HealthAction::kDrain) continue;
    if (rails.empty() ? f.rail < 0 : std::find(rails.begin(), rails.end(), f.rail) != rails.end())
      return true;
  }
  return false;
}

// Observe mode: what plan `*p` would do, as "would" words (wire::kWouldActions); its Slurm
// changes (drain, resume, features) are taken out and its lines say "would"; the run
// state's drain and resume counts stay as they were.
std::vector<std::string> Observed(const Verdict& v, const PlanOptions& opt, Plan* p,
                                  RunState* next) {
  std::vector<std::string> would;
  if (p->update.drain_reason && v.level == Level::kDrain) would.push_back("drain");
  if (v.level == Level::kRestrict) would.push_back("restrict");
  if (opt.prolog && v.level == Level::kDrain) would.push_back("requeue");
  if (p->update.resume) would.push_back("resume");
  if (p->update.drain_reason) next->drains -= 1;
  if (p->update.resume) next->resumes -= 1;
  p->update.drain_reason.reset();
  p->update.resume = false;
  p->update.features.reset();
  p->update.features_act.reset();
  static const char* const kActs[] = {"drain ", "resume ", "add feature ", "remove feature ",
                                      "reason refreshed"};
  for (std::string& line : p->lines)
    for (const char* act : kActs)
      if (line.rfind(act, 0) == 0) {
        line = "would " + line + " (observe mode: not done)";
        break;
      }
  if (opt.prolog && v.level == Level::kDrain)
    p->lines.push_back("would fail the Prolog, and Slurm requeue the job (observe mode: not done)");
  return would;
}

}  // namespace

bool SameForPlanning(const SlurmNode& a, const SlurmNode& b) {
  return a.drain == b.drain && a.down == b.down && a.reason == b.reason &&
         a.held_flags == b.held_flags && a.features == b.features &&
         a.features_act == b.features_act && a.extra == b.extra;
}

std::string DrainReason(const Verdict& v) {
  std::vector<const Finding*> drains;
  for (const Finding& f : v.findings)
    if (f.action == HealthAction::kDrain) drains.push_back(&f);
  const std::string first = drains.empty() ? std::string("unhealthy") : drains[0]->reason;
  return wire::FormatDrainReason(Printable(first, 1000), drains.empty() ? 0 : drains.size() - 1);
}

std::optional<std::string> ExtraJson(const Verdict& v, double now, const std::string& current) {
  return wire::WriteExtra(ExtraOf(v, now, std::nullopt), current);
}

Plan PlanActions(const Verdict& v, const SlurmNode& node, RunState next, const HealthConfig& health,
                 const std::string& feature, double now, const PlanOptions& opt) {
  Plan p;
  const int need = health.resume_after_clean_runs;
  const bool ours = DrainedByRailcheck(node);
  // railcheck takes the feature whenever it drains, so its own drain without the feature held
  // is one the run state missed (state.json could not be written: a full disk) or lost (it was
  // deleted): the clean runs count from here, as if the drain had been recorded.
  if (ours && !next.feature_held) {
    next.clean_streak = 0;
    next.drain_free_streak = 0;
    next.feature_held = true;
  }
  next.clean_streak = v.level < Level::kRestrict ? next.clean_streak + 1 : 0;
  next.drain_free_streak = v.level < Level::kDrain ? next.drain_free_streak + 1 : 0;
  const std::string counts = " (" + std::to_string(next.drain_free_streak) + " of " +
                             std::to_string(need) + " clean runs)";

  const std::string held = Joined(node.held_flags);
  bool resume_withheld = false;  // railcheck's drain stays only for a held flag
  // Over the drain budget: the node stays in (or goes back into) service; a drain of
  // railcheck's own is given back.
  const bool over = !opt.over_budget.empty() && v.level >= Level::kRestrict;
  if (over) {
    p.lines.push_back(opt.over_budget);
    if (ours && held.empty()) {
      p.update.resume = true;
      next.resumes += 1;
      p.lines.push_back("resume " + node.name + ": its place in the drain budget goes to a node before it");
    } else if (ours) {
      resume_withheld = true;
      p.lines.push_back("stays drained: the node is " + held);
    }
  } else if (v.level == Level::kDrain) {
    const std::string reason = DrainReason(v);
    if (!node.drain && ForeignReason(node)) {
      p.lines.push_back("not drained but carries someone else's reason ('" + node.reason +
                        "'); railcheck leaves it alone");
    } else if (!node.drain) {
      p.update.drain_reason = reason;
      next.drains += 1;
      p.lines.push_back("drain " + node.name + ": " + *p.update.drain_reason);
    } else if (ours && !StillNamed(v, node.reason)) {
      p.update.drain_reason = reason;
      p.lines.push_back("reason refreshed, the fault changed: " + reason + " (was: " + node.reason +
                        ")");
    } else if (ours) {
      p.lines.push_back("already drained by railcheck (" + node.reason + "); reason kept");
    } else {
      p.lines.push_back("drained by someone else (reason '" + node.reason +
                        "'); railcheck leaves it alone");
    }
  } else if (ours) {
    if (next.drain_free_streak >= need && !held.empty()) {
      resume_withheld = true;
      p.lines.push_back("stays drained: the node is " + held +
                        " (resuming would cancel a pending reboot or power action); " +
                        std::to_string(next.drain_free_streak) + " clean runs so far");
    } else if (next.drain_free_streak >= need) {
      p.update.resume = true;
      next.resumes += 1;
      p.lines.push_back("resume " + node.name + ": no drain finding in " +
                        std::to_string(next.drain_free_streak) + " consecutive runs");
    } else {
      p.lines.push_back("stays drained by railcheck until " + std::to_string(need) +
                        " consecutive clean runs" + counts);
    }
  } else if (node.drain) {
    p.lines.push_back("drained by someone else (reason '" + node.reason +
                      "'); railcheck never resumes it");
  }

  // The healthy feature: active on healthy nodes, available from its first grant on (below).
  const std::string active = node.features_act.empty() ? node.features : node.features_act;
  bool want = false;
  if (over && !resume_withheld) {
    next.feature_held = false;
    want = true;
  } else if (v.level >= Level::kRestrict) {
    next.feature_held = true;
  } else if (next.feature_held && resume_withheld) {
    // Given back with the resume, once the flag is gone: a drained node with the feature
    // would look like a drain the run state missed.
    p.lines.push_back("feature " + feature + " withheld while the node stays drained");
  } else if (next.feature_held) {
    if (next.clean_streak >= need) {
      next.feature_held = false;
      want = true;
      p.lines.push_back("feature " + feature + " restored after " +
                        std::to_string(next.clean_streak) + " consecutive clean runs");
    } else {
      p.lines.push_back("feature " + feature + " withheld until " + std::to_string(need) +
                        " consecutive clean runs (" + std::to_string(next.clean_streak) +
                        " so far)");
    }
  } else {
    want = true;
  }
  // On the active list only: Slurm matches --constraint against it. The available list gets
  // the feature when the active one needs it there and keeps it: Slurm splits a config record
  // off for every node whose available list changes alone, and each submission and backfill
  // test walks them all (job_submit/rail's keeper makes it available on every rail node at
  // once; plugin/core/feature_keeper.h).
  if (HasFeature(active, feature) != want) {
    p.update.features_act = WithFeature(active, feature, want);
    if (want && !HasFeature(node.features, feature))
      p.update.features = WithFeature(node.features, feature, true);
    p.lines.push_back((want ? "add feature " : "remove feature ") + feature);
  }

  wire::RailcheckExtra mine = ExtraOf(v, now, want);
  mine.over_budget = over;
  if (health.mode == HealthMode::kObserve) mine.would = Observed(v, opt, &p, &next);
  std::optional<std::string> extra = wire::WriteExtra(mine, node.extra);
  double published = 0;
  if (extra) {
    wire::RailcheckExtra timeless = mine;
    timeless.time = 0;
    p.health = wire::WriteExtra(timeless, "").value_or("");
  }
  if (!extra) {
    p.lines.push_back(
        "Extra holds text that is not a JSON object; per-rail health not "
        "published there");
  } else if (!SameHealth(mine, node.extra, &published)) {
    p.update.extra = *extra;
  } else if (opt.extra_refresh_seconds > 0 && now - published >= opt.extra_refresh_seconds) {
    p.update.extra = *extra;
    p.lines.push_back("Extra refreshed: the same health, published " +
                      FormatDuration(now - published) + " ago");
  }
  p.health_time = p.update.extra ? now : published;
  p.next = std::move(next);
  return p;
}

std::string UnchangedInSlurm(const Verdict& v, const RunState& last, const std::string& health,
                             const std::optional<std::string>& node_is_healthy, double now,
                             double refresh_seconds) {
  if (!node_is_healthy || *node_is_healthy != "yes" || refresh_seconds <= 0) return "";
  if (v.level >= Level::kRestrict || last.feature_held || last.clean_streak < 1) return "";
  if (health.empty() || health != last.published_health || last.published_time <= 0) return "";
  const double age = now - last.published_time;
  if (age < 0 || age >= refresh_seconds) return "";
  return "slurmctld not asked: it sees the node healthy (SLURM_NODE_IS_HEALTHY=yes) and holds "
         "this health, published " +
         FormatDuration(age) + " ago (refreshed after " + FormatDuration(refresh_seconds) + ")";
}

ActResult ActOnNode(SlurmApi* api, const ActRequest& rq) {
  ActResult a;
  a.node.name = rq.node;
  std::string err;
  PlanOptions opts = rq.options;
  if (rq.last && rq.node_is_healthy && !rq.dry) {
    // The node as railcheck left it, if slurmctld holds what the last run found there.
    SlurmNode left;
    left.name = rq.node;
    left.features = rq.feature;
    Plan assumed =
        PlanActions(*rq.verdict, left, rq.next, *rq.health, rq.feature, rq.now, opts);
    const std::string why =
        UnchangedInSlurm(*rq.verdict, *rq.last, assumed.health, rq.node_is_healthy, rq.now,
                         opts.extra_refresh_seconds);
    if (!why.empty()) {
      a.node = left;
      a.plan = std::move(assumed);
      a.plan.update = NodeUpdate();
      a.plan.lines = {why};
      a.plan.health_time = rq.last->published_time;
      a.ok = true;
      a.unasked = true;
      return a;
    }
  }
  auto read = [&](SlurmNode* n) {
    ++a.reads;
    return api->GetNode(rq.node, n, &err);
  };
  auto plan = [&]() {
    a.plan = PlanActions(*rq.verdict, a.node, rq.next, *rq.health, rq.feature, rq.now, opts);
  };
  const Level level = rq.verdict->level;
  const int weight = level == Level::kDrain ? 2 : level == Level::kRestrict ? 1 : 0;
  // The drain budget, asked only for a verdict that takes the node out (or keeps it out):
  // whether it fits; when not, the plan is made again with the node in service.
  auto budget_fits = [&](bool stay) {
    if (rq.budget <= 0 || weight == 0) return true;
    std::vector<SlurmNode> all;
    ++a.reads;
    if (!api->ListNodes(&all, &err)) {
      if (stay) return true;  // keep what is: no count, no change
      a.problems.push_back(err);
      opts.over_budget = "drain budget not checked (slurmctld's node list: " + err +
                         "): the node stays in service until it can be";
    } else {
      const BudgetView bv = ViewBudget(all, rq.node, weight, rq.budget);
      if (stay ? MayStayOut(bv) : MayTakeOut(bv)) return true;
      opts.over_budget = "over the drain budget: railcheck holds " + std::to_string(bv.held) +
                         " nodes out of multi-node jobs (budget " + std::to_string(bv.limit) +
                         "), " + std::to_string(stay ? bv.rank + bv.heavier : bv.waiting) +
                         " before this one; its " + LevelName(level) +
                         " finding is reported and the node stays in service";
    }
    a.over_budget = true;
    plan();
    return false;
  };
  if (!api || !read(&a.node)) {
    if (api) a.problems.push_back(err);
    if (rq.dry) a.problems.push_back("the plan below assumes the node is not drained");
    a.node = SlurmNode();
    a.node.name = rq.node;
    plan();
    return a;
  }
  plan();
  const bool was_out = HeldOutByRailcheck(a.node);
  budget_fits(was_out);
  if (rq.dry || a.plan.update.empty()) {
    a.ok = true;
    return a;
  }
  if (Guarded(a.plan.update)) {
    if (rq.pause_before_write) rq.pause_before_write();
    for (int attempt = 0; Guarded(a.plan.update); ++attempt) {
      SlurmNode fresh;
      if (!read(&fresh)) {
        a.problems.push_back(err + "; nothing written");
        return a;
      }
      if (SameForPlanning(fresh, a.node)) break;
      if (attempt == 2) {
        a.problems.push_back(
            "node " + rq.node +
            " kept changing in slurmctld while railcheck planned; nothing written");
        return a;
      }
      std::vector<std::string> before = {
          "the node changed in slurmctld after it was read (reason '" + fresh.reason + "'" +
          (fresh.held_flags.empty() ? "" : ", " + Joined(fresh.held_flags)) + "): planned again"};
      a.node = fresh;
      plan();
      a.plan.lines.insert(a.plan.lines.begin(), before.begin(), before.end());
    }
  }
  if (a.plan.update.empty()) {
    a.ok = true;
    return a;
  }
  ++a.writes;
  if (!api->UpdateNode(rq.node, a.plan.update, &err)) {
    a.problems.push_back(err);
    return a;
  }
  a.ok = true;
  // Took the node out: other railchecks may have done the same at the same moment. The
  // table read after the write says whether it keeps its place (budget.h).
  if (!was_out && !a.over_budget && weight > 0 && rq.budget > 0 && !budget_fits(true)) {
    SlurmNode now_node;
    if (!read(&now_node)) {
      a.problems.push_back(err + " (giving the node's place in the drain budget back)");
      return a;
    }
    a.node = now_node;
    plan();
    ++a.writes;
    if (!a.plan.update.empty() && !api->UpdateNode(rq.node, a.plan.update, &err)) {
      a.problems.push_back(err + " (giving the node's place in the drain budget back)");
      a.ok = false;
    }
    return a;
  }
  if (!Guarded(a.plan.update)) return a;
  // Read back: a change that landed right after the write is someone else's to keep.
  SlurmNode after;
  if (!read(&after)) {
    a.problems.push_back(err + " (reading the node back after the update)");
    return a;
  }
  const NodeUpdate& u = a.plan.update;
  if (u.drain_reason && after.drain && after.reason == *u.drain_reason) return a;
  if (u.resume && !after.drain) return a;
  // Someone else's change (a drain, a resume, a reason) landed right after the write.
  a.plan.lines.push_back(
      "read back after the update, the node is " +
      (after.drain ? "drained (reason '" + after.reason + "')" : std::string("not drained")) +
      ": someone else changed it right after railcheck; kept");
  return a;
}

std::function<void()> TestPauseFromEnvironment() {
  const char* dir = std::getenv("RAILCHECK_TEST_PAUSE_DIR");
  if (!dir || !*dir) return {};
  const std::string d = dir;
  return [d]() {
    std::ofstream(d + "/paused") << getpid() << "\n";
    struct stat st;
    for (int i = 0; i < 600 && stat((d + "/go").c_str(), &st) != 0; ++i) usleep(100000);
  };
}

}  // namespace railguard::health
