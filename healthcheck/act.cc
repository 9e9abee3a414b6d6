// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/act.h"

#include <sstream>

#include "base/names.h"
#include "wire/extra_json.h"

namespace railguard::health {
namespace {

std::vector<std::string> SplitFeatures(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

bool DrainedByRailcheck(const SlurmNode& n) { return n.drain && wire::IsRailcheckReason(n.reason); }

}  // namespace

std::string WithFeature(const std::string& list, const std::string& feature, bool present) {
  std::string out;
  bool have = false;
  for (const std::string& f : SplitFeatures(list)) {
    if (f == feature) {
      if (!present || have) continue;
      have = true;
    }
    out += (out.empty() ? "" : ",") + f;
  }
  if (present && !have) out += (out.empty() ? "" : ",") + feature;
  return out;
}

std::string DrainReason(const Verdict& v) {
  std::vector<const Finding*> drains;
  for (const Finding& f : v.findings)
    if (f.action == HealthAction::kDrain) drains.push_back(&f);
  const std::string first = drains.empty() ? std::string("unhealthy") : drains[0]->reason;
  return wire::FormatDrainReason(Printable(first, 1000), drains.empty() ? 0 : drains.size() - 1);
}

std::optional<std::string> ExtraJson(const Verdict& v, double now, const std::string& current) {
  wire::RailcheckExtra mine;
  mine.time = now;
  mine.verdict = LevelName(v.level);
  for (const RailHealth& r : v.rails) mine.rails.push_back(r.status);
  mine.fw = v.fw;  // issue 13 item 11
  for (const Finding& f : v.findings)
    if (f.severity != Severity::kNote) mine.failed.push_back({f.rail >= 0 ? f.rail : -1, f.check});
  return wire::WriteExtra(mine, current);
}

Plan PlanActions(const Verdict& v, const SlurmNode& node, RunState next, const HealthConfig& health,
                 const std::string& feature, double now) {
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

  if (v.level == Level::kDrain) {
    if (!node.drain) {
      p.update.drain_reason = DrainReason(v);
      next.drains += 1;
      p.lines.push_back("drain " + node.name + ": " + *p.update.drain_reason);
    } else if (ours) {
      p.lines.push_back("already drained by railcheck (" + node.reason + "); reason kept");
    } else {
      p.lines.push_back("drained by someone else (reason '" + node.reason +
                        "'); railcheck leaves it alone");
    }
  } else if (ours) {
    if (next.drain_free_streak >= need) {
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

  // The healthy feature, on both the available and the active list.
  const std::string active = node.features_act.empty() ? node.features : node.features_act;
  bool want = false;
  if (v.level >= Level::kRestrict) {
    next.feature_held = true;
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
  if (HasFeature(node.features, feature) != want || HasFeature(active, feature) != want) {
    p.update.features = WithFeature(node.features, feature, want);
    p.update.features_act = WithFeature(active, feature, want);
    p.lines.push_back((want ? "add feature " : "remove feature ") + feature);
  }

  std::optional<std::string> extra = ExtraJson(v, now, node.extra);
  if (!extra) {
    p.lines.push_back(
        "Extra holds text that is not a JSON object; per-rail health not "
        "published there");
  } else if (*extra != node.extra) {
    p.update.extra = *extra;
  }
  p.next = std::move(next);
  return p;
}

}  // namespace railguard::health
