// SPDX-License-Identifier: GPL-2.0-or-later
// Recent jobs' fabric records at a glance: every job of the job log that ended in a window,
// joined (report/job_fabric.h), as a text table (jobs with findings first), JSON, or Prometheus
// series an admin graphs beside the training job's own metrics. The label sets are bounded:
// job x rail for the jobs of the window only, and job x kind for findings.
#pragma once

#include <string>
#include <vector>

#include "report/job_fabric.h"

namespace railguard::report {

// Joins every job in `records` whose latest record ended in [since, until], newest first.
std::vector<JobFabric> JoinRecentJobs(const std::vector<wire::JobNodeRecord>& records,
                                      double since, double until, const topo::Topology* topo,
                                      const std::vector<wire::HealthEvent>& events);

// One line per job: id, nodes, end, duration, bytes per node and second, findings (the first
// one's text); jobs with findings first.
std::string JobListText(const std::vector<JobFabric>& jobs, double since, double until);

// {"since", "until", "jobs": [JobFabricJson of each]}.
std::string JobListJson(const std::vector<JobFabric>& jobs, double since, double until);

// node_exporter textfile metrics, per job and rail:
//   railguard_job_rail_bytes_per_node_second{job,rail}  sent + received, per node and second
//   railguard_job_rail_min_share{job,rail}   the weakest node's share of its median rail
//   railguard_job_rail_xmit_wait_share{job,rail}  the rail's part of the job's port_xmit_wait
//   railguard_job_rail_errors{job,rail}       error counter rises during the job
// and railguard_job_findings{job,kind}, railguard_job_end_time_seconds{job}.
std::string JobListPrometheus(const std::vector<JobFabric>& jobs);

}  // namespace railguard::report
