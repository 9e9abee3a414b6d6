// What a railcheck run tells its reader: the verdict, every finding, the Slurm actions, as
// text for admins and Slurm's logs, or as JSON (--json).
#pragma once

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "healthcheck/facts.h"

namespace railguard::health {

// One run, as reported.
struct RunReport {
  std::string node;
  std::string mode;  // "prolog", "epilog", "periodic", "baseline"
  bool dry_run = false;
  const NodeFacts* facts = nullptr;
  const Verdict* verdict = nullptr;  // null for a baseline run
  int gpus_expected = 0;
  std::vector<std::string> actions;   // the plan's lines (what was, or would be, done)
  std::vector<std::string> problems;  // errors that did not stop the run (Slurm unreachable)
  int exit_code = 0;
  double total_ms = 0;
};

// Text: a head line "railcheck NODE MODE: VERDICT (rails: 7 ok, 1 degraded)", then one line
// per finding "  ACTION  MESSAGE", then "slurm: ..." lines.
std::string ReportText(const RunReport& r);

// One JSON object with the same content plus each rail's port facts; ends in a newline.
std::string ReportJson(const RunReport& r);

}  // namespace railguard::health
