// SPDX-License-Identifier: GPL-2.0-or-later
// A job's baseline: what a known-good run of a kind of job got from the fabric, rail by rail,
// per node and second, kept under a name (a job name or a site's label) by `railctl job
// baseline JOBID --name NAME`; later runs of the same kind are compared with it. This file owns
// the baseline file's format:
//   {"railguard_job_baseline": 1, "name": "llama-70b-64n", "job": 1234, "nodes": 64,
//    "seconds": 3600, "rails": [{"rail": 0, "bytes_per_node_s": 2.1e10,
//    "xmit_wait_per_node_s": 1200, "errors_per_node_h": 0, "min_share": 0.97}, ...],
//    "step_median_s": 1.05}
// bytes_per_node_s is sent + received; min_share the lowest share of any node's rail against
// its node's median (report/job_fabric.h), -1 when none was judged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "base/text_file.h"
#include "report/job_fabric.h"

namespace railguard::report {

constexpr int kJobBaselineVersion = 1;
constexpr InputKind kJobBaselineInput{"a job baseline (railctl job baseline JOBID --name NAME)",
                                      1u << 20};

struct JobBaselineRail {
  int rail = 0;
  double bytes_per_node_s = 0;
  double xmit_wait_per_node_s = 0;
  double errors_per_node_h = 0;
  double min_share = -1;
};

struct JobBaseline {
  std::string name;
  uint64_t job = 0;
  int nodes = 0;
  double seconds = 0;
  std::vector<JobBaselineRail> rails;  // rails with numbers on at least one node
  double step_median_s = -1;           // -1: no step times
};

// The baseline of `f` under `name`. Rails without numbers on any node are left out.
JobBaseline BaselineOf(const JobFabric& f, const std::string& name);

// A name railctl accepts for a baseline: 1-64 of [A-Za-z0-9._-], not starting with '.'.
bool IsBaselineName(const std::string& name);

std::string JobBaselineToJson(const JobBaseline& b);
// Problems go to `*errors` as file:line:column with the expected form; true when none.
bool JobBaselineFromJson(std::string_view text, const std::string& file, JobBaseline* out,
                         Diags* errors);

// When a run differs from its baseline.
struct BaselineMargins {
  double throughput = 0.2;  // a rail's bytes per node and second off by more than this share
  double wait_factor = 4;   // xmit_wait per node and second above this many times the baseline's
  double min_share = 0.5;   // a node's rail below this share when the baseline's was above
  double step_time = 0.2;   // the median step time more than this share above the baseline's
};

// Adds "baseline" findings to `f` for each rail that differs from `b` beyond `m`: the rail,
// its bytes per node and second against the baseline's, and the node, NIC and leaf with the
// lowest share on that rail (where the difference is), and one for a median step time
// (f.apps' first step-time file) above the baseline's beyond `m.step_time` (rail -1).
// `f.notes` gets one line naming the baseline. Rails the baseline does not have are not
// compared.
void CompareWithBaseline(const JobBaseline& b, const BaselineMargins& m, JobFabric* f);

}  // namespace railguard::report
