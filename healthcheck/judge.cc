// SPDX-License-Identifier: GPL-2.0-or-later
// Judge (checks.h): runs the checks of the table (check_table.h), applies health.actions and
// orders the findings; and the names of severities, rail states and levels.
#include <algorithm>
#include <cstdio>

#include "healthcheck/check_table.h"
#include "healthcheck/checks.h"

namespace railguard::health {
namespace {

// `names[v]`, or "?" for a value beyond them.
template <typename Enum, size_t N>
const char* NameOf(Enum v, const char* const (&names)[N]) {
  const size_t i = static_cast<size_t>(v);
  return i < N ? names[i] : "?";
}

Level LevelOf(HealthAction a) {
  switch (a) {
    case HealthAction::kDrain:
      return Level::kDrain;
    case HealthAction::kRestrict:
      return Level::kRestrict;
    case HealthAction::kWarn:
      return Level::kWarn;
    case HealthAction::kOff:
      return Level::kOk;
  }
  return Level::kOk;
}

// Strongest action first, then severity, then the table's order, then rail.
bool FindingBefore(const Finding& a, const Finding& b) {
  if (LevelOf(a.action) != LevelOf(b.action)) return LevelOf(a.action) > LevelOf(b.action);
  if (a.severity != b.severity) return a.severity > b.severity;
  const size_t ia = HealthCheckIndex(a.check), ib = HealthCheckIndex(b.check);
  if (ia != ib) return ia < ib;
  return a.rail < b.rail;
}

}  // namespace

const char* SeverityName(Severity s) {
  static const char* const kNames[] = {"note", "degraded", "down"};
  return NameOf(s, kNames);
}

const char* RailStatusName(RailStatus s) {
  static const char* const kNames[] = {"ok", "degraded", "down"};
  return NameOf(s, kNames);
}

const char* LevelName(Level l) {
  static const char* const kNames[] = {"ok", "warn", "restrict", "drain"};
  return NameOf(l, kNames);
}

std::string FormatDuration(double seconds) {
  char buf[64];
  if (seconds < 120) {
    std::snprintf(buf, sizeof(buf), "%.0f s", seconds);
  } else if (seconds < 2 * 3600) {
    std::snprintf(buf, sizeof(buf), "%.0f min", seconds / 60);
  } else if (seconds < 2 * 86400) {
    std::snprintf(buf, sizeof(buf), "%.1f h", seconds / 3600);
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f days", seconds / 86400);
  }
  return buf;
}

Judgement Judge(const JudgeInput& in) {
  Judgement j;
  CounterMoves h = ComputeCounterMoves(in);
  RecordEthState(in, &h.next);
  std::vector<Finding> found;
  for (const HealthCheck& c : HealthChecks()) c.judge(in, h, &found);

  Verdict& v = j.verdict;
  for (const NicFacts& n : in.facts->nics) v.rails.push_back(RailHealth{n.rail, n.name});
  for (const NicFacts& n : in.facts->nics)  // for Extra's "fw"
    v.fw.push_back(n.fw_ver.ok() ? *n.fw_ver.value : std::string());
  for (Finding& f : found) {
    auto a = in.config->actions.find(f.check);
    const size_t index = HealthCheckIndex(f.check);
    f.action = a != in.config->actions.end()   ? a->second
               : index < HealthChecks().size() ? HealthChecks()[index].default_action
                                               : HealthAction::kWarn;
    if (f.action == HealthAction::kOff) continue;
    // A leaf fault keeps multi-node jobs off the node, it never drains it by itself.
    if (f.check == "fabric.leaf" && f.action == HealthAction::kDrain)
      f.action = HealthAction::kRestrict;
    v.level = std::max(v.level, LevelOf(f.action));
    if (f.rail >= 0 && f.rail < static_cast<int>(v.rails.size()) && f.severity != Severity::kNote) {
      RailStatus s = f.severity == Severity::kDown ? RailStatus::kDown : RailStatus::kDegraded;
      v.rails[f.rail].status = std::max(v.rails[f.rail].status, s);
    }
    v.findings.push_back(std::move(f));
  }
  std::stable_sort(v.findings.begin(), v.findings.end(), FindingBefore);
  j.next = std::move(h.next);
  h.next = RunState();
  j.moves = std::move(h);
  return j;
}

}  // namespace railguard::health
