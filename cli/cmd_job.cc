// SPDX-License-Identifier: GPL-2.0-or-later
// railctl job: what one job got from the fabric, rail by rail, from the job log railcheck's
// Epilog writes on each of its nodes (health.job_log), with the leaves from the topology and
// railcheck's events on those nodes during the job.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "config/load.h"
#include "config/locate.h"
#include "healthcheck/check_table.h"
#include "healthcheck/job_counters.h"
#include "healthcheck/slurm_api.h"
#include "report/job_fabric.h"
#include "topo/topology_yaml.h"
#include "wire/event_log.h"
#include "wire/job_log.h"

namespace railguard::cli {
namespace {

const char kJobUsage[] =
    "usage: railctl job JOBID [--config railguard.yaml | --topology FILE.yaml]\n"
    "                   [--job-log FILE]... [--history FILE]... [--no-history]\n"
    "                   [--json] [-o OUT]\n"
    "What job JOBID got from the fabric, rail by rail, once it has ended: per rail and node the\n"
    "bytes sent and received, port_xmit_wait and the error counters that rose, from the records\n"
    "railcheck's Epilog appends to the job log (railguard.yaml health.job_log) from the port\n"
    "counters its Prolog, periodic runs and Epilog read. A rail that carried far less than its\n"
    "node's other rails is the job's slow path; one that waited far more, or erred, is named\n"
    "with its NIC and leaf; railcheck's events on the job's nodes during the job follow.\n"
    "  --config FILE   railguard.yaml: its topology, health.job_log and health.events_log\n"
    "                  (with neither option: the railguard.yaml railcheck finds)\n"
    "  --topology FILE the rail topology YAML (then the logs' default paths)\n"
    "  --job-log FILE  the job log (and FILE.1); \"%n\" becomes each node's name; repeatable\n"
    "  --history FILE  railcheck's event log, as in railctl report; repeatable\n"
    "  --no-history    read no event log\n"
    "  --json          JSON (man railctl(8), JOB RECORD)\n"
    "  -o OUT          write OUT atomically instead of stdout\n"
    "Exit: 0 shown (findings included), 1 no record of the job, or an input could not be\n"
    "read, 2 usage error.\n";

}  // namespace

int Job(int argc, char** argv) {
  const Handler h("railctl job", kJobUsage, argc, argv,
                  {{"topology", 0, true}, {"config", 0, true}, {"job-log", 0, true},
                   {"history", 0, true}, {"no-history", 0, false}, {"json", 0, false},
                   {"output", 'o', true}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("JOBID")) return rc;
  const Args& args = h.args();
  uint64_t job = 0;
  const std::string id = args.positional()[0];
  if (!health::ParseJobId(id, &job))
    return h.UsageError("JOBID '" + id + "' is not a Slurm job id (1-4294967295)");
  if (args.Has("no-history") && args.Has("history"))
    return h.UsageError("--history and --no-history exclude each other");

  std::string topology_path = args.Get("topology");
  std::string config_path = args.Get("config");
  if (!args.Has("topology") && !args.Has("config")) {
    const ConfigSearch found =
        FindConfig("", std::getenv("SLURM_CONF"), health::LibslurmDefaultConf());
    if (!found.found) return h.Fail(ConfigNotFound(found) + "; or give --topology FILE.yaml");
    config_path = found.path;
  }
  std::string default_job_log = wire::kDefaultJobLogPath;
  std::string default_history = wire::kDefaultEventLogPath;
  topo::Topology topology;
  Diags diags;
  if (!config_path.empty()) {
    Config config;
    if (!LoadSetupConfig(config_path, &config, &diags, &health::CheckCatalogOfTable())) {
      std::fputs(FormatDiags(diags).c_str(), stderr);
      return h.Fail("cannot use the config " + config_path);
    }
    if (topology_path.empty()) topology_path = config.topology_path;
    default_job_log = config.health.job_log;
    default_history = config.health.events_log;
  }
  if (!(config_path.empty() ? topo::LoadTopologyFile(topology_path, &topology, &diags)
                            : LoadSetupTopology(topology_path, &topology, &diags))) {
    std::fputs(FormatDiags(diags).c_str(), stderr);
    return h.Fail("cannot use the topology " + topology_path);
  }

  std::vector<std::string> logs = args.GetAll("job-log");
  if (logs.empty()) logs.push_back(default_job_log);
  std::vector<wire::JobNodeRecord> records;
  Diags problems;
  int read = 0;
  for (const std::string& path : PerNodePaths(logs, topology)) {
    std::string err;
    switch (wire::ReadJobRecords(path, job, &records, &problems, &err)) {
      case wire::JobLogStatus::kOk:
        ++read;
        break;
      case wire::JobLogStatus::kMissing:
        break;
      case wire::JobLogStatus::kError:
        problems.push_back({path, 0, 0, err});
        break;
    }
  }
  std::fputs(FormatDiags(problems).c_str(), stderr);
  if (records.empty())
    return h.Fail("no record of job " + id + " in " + std::to_string(read) + " job log file(s) (" +
                  logs[0] + (logs.size() > 1 ? ", ..." : "") +
                  "): it has not ended, it ran before railcheck recorded jobs, or its nodes' "
                  "Epilog does not run railcheck");

  std::vector<wire::HealthEvent> events;
  if (!args.Has("no-history")) {
    std::vector<std::string> given = args.GetAll("history");
    if (given.empty()) given.push_back(default_history);
    double since = records[0].start, until = records[0].end;
    for (const wire::JobNodeRecord& r : records) {
      since = std::min(since, r.start);
      until = std::max(until, r.end);
    }
    Diags history_problems;
    for (const std::string& path : PerNodePaths(given, topology)) {
      std::string err;
      if (wire::ReadEvents(path, since, until, &events, &history_problems, &err) ==
          wire::EventLogStatus::kError)
        history_problems.push_back({path, 0, 0, err + "; events from it not shown"});
    }
    std::fputs(FormatDiags(history_problems).c_str(), stderr);
  }
  const report::JobFabric f = report::JoinJob(job, records, &topology, events);
  return h.Write(args.Get("output"),
                 args.Has("json") ? report::JobFabricJson(f) : report::JobFabricText(f));
}

}  // namespace railguard::cli
