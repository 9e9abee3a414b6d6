// SPDX-License-Identifier: GPL-2.0-or-later
// railctl job: what one job got from the fabric, rail by rail, from the job log railcheck's
// Epilog writes on each of its nodes (health.job_log), with the leaves from the topology and
// railcheck's events on those nodes during the job.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "healthcheck/job_counters.h"
#include "base/file_util.h"
#include "base/numbers.h"
#include "base/text_file.h"
#include "report/job_apps.h"
#include "report/job_baseline.h"
#include "report/job_fabric.h"
#include "report/job_fabric_sweeps.h"
#include "report/job_list.h"
#include "report/nccl_tests.h"
#include "topo/topology_yaml.h"
#include "wire/event_log.h"
#include "wire/job_log.h"

namespace railguard::cli {
namespace {

constexpr char kDefaultBaselineDir[] = "/var/lib/railguard/job-baselines";

// The events of `paths` from `since` to `until`; problems on stderr.
void ReadEventLogs(const std::vector<std::string>& paths, double since, double until,
                   std::vector<wire::HealthEvent>* events) {
  Diags problems;
  for (const std::string& path : paths) {
    std::string err;
    if (wire::ReadEvents(path, since, until, events, &problems, &err) ==
        wire::EventLogStatus::kError)
      problems.push_back({path, 0, 0, err + "; events from it not shown"});
  }
  std::fputs(FormatDiags(problems).c_str(), stderr);
}

const char kJobUsage[] =
    "usage: railctl job JOBID [--config railguard.yaml | --topology FILE.yaml]\n"
    "                   [--job-log FILE]... [--history FILE]... [--no-history]\n"
    "                   [--baseline NAME] [--baselines DIR] [--nccl-tests FILE]...\n"
    "                   [--json | --prometheus] [-o OUT]\n"
    "       railctl job baseline JOBID --name NAME [--baselines DIR] [options as above]\n"
    "       railctl job --since SECONDS [--json | --prometheus] [options as above]\n"
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
    "  --baseline NAME compare with the baseline NAME: a rail whose bytes per node and second\n"
    "                  differ by more than 20%, whose port_xmit_wait per node and second is\n"
    "                  over 4 times the baseline's, or whose weakest node fell below half its\n"
    "                  median rail is a finding naming that node, NIC and leaf\n"
    "  --baselines DIR where baselines are kept (default /var/lib/railguard/job-baselines)\n"
    "  --since SECONDS every job that ended in the last SECONDS, jobs with findings first;\n"
    "                  --prometheus: per job and rail bytes per node and second, the weakest\n"
    "                  node's share, the part of the xmit wait, errors; findings per kind\n"
    "  --prometheus    node_exporter textfile metrics (railguard_job_*)\n"
    "  --app PATH      the application's own numbers beside the rails: a file or a folder of\n"
    "                  nccl-tests output (text as saved, or -J JSON), NCCL Inspector logs, a\n"
    "                  step-time file (\"STEP SECONDS\" per line); repeatable. Without it:\n"
    "                  the config's health.job_app_dir (%j: the job id), when set\n"
    "  --no-app        read no application numbers\n"
    "  --sweeps DIR    fabric sweeps kept as JSON files in DIR (railctl fabric sweep --json):\n"
    "                  what those taken during the job (and up to 15 min after) found on its\n"
    "                  nodes' host links and their leaves' uplinks, one line per link and kind\n"
    "  --nccl-tests F  nccl-tests text output (as --app, for that format only); repeatable\n"
    "  baseline JOBID --name NAME  keeps JOBID's record (a known-good run) as baseline NAME\n"
    "                  (1-64 of A-Z a-z 0-9 . _ -) in DIR/NAME.json, replacing an older one\n"
    "  --json          JSON (man railctl(8), JOB RECORD)\n"
    "  -o OUT          write OUT atomically instead of stdout\n"
    "Exit: 0 shown (findings included), 1 no record of the job, or an input could not be\n"
    "read, 2 usage error.\n";

}  // namespace

int Job(int argc, char** argv) {
  const Handler h("railctl job", kJobUsage, argc, argv,
                  {{"topology", 0, true}, {"config", 0, true}, {"job-log", 0, true},
                   {"history", 0, true}, {"no-history", 0, false}, {"json", 0, false},
                   {"output", 'o', true}, {"baseline", 0, true}, {"baselines", 0, true},
                   {"name", 0, true}, {"since", 0, true}, {"prometheus", 0, false},
                   {"nccl-tests", 0, true}, {"app", 0, true}, {"no-app", 0, false},
                   {"sweeps", 0, true}});
  if (h.done()) return h.exit_code();
  const Args& args = h.args();
  const std::vector<std::string>& pos = args.positional();
  const bool keep = !pos.empty() && pos[0] == "baseline";
  const bool list = args.Has("since");
  if (args.Has("json") && args.Has("prometheus"))
    return h.UsageError("choose one of --json, --prometheus");
  if (list && (!pos.empty() || args.Has("baseline") || args.Has("nccl-tests") || args.Has("app") ||
               args.Has("sweeps")))
    return h.UsageError("--since lists recent jobs: no JOBID, no --baseline, no --app, no --sweeps");
  if (args.Has("no-app") && (args.Has("app") || args.Has("nccl-tests")))
    return h.UsageError("--no-app with --app or --nccl-tests; expected one or the other");
  double since_seconds = 0;
  if (list && (!ParseStrtod(args.Get("since"), &since_seconds) || !(since_seconds > 0) ||
               since_seconds > 366 * 86400.0))
    return h.UsageError("--since '" + args.Get("since") + "': expected seconds, 1 to 31622400");
  if (!list && pos.size() != (keep ? 2u : 1u))
    return h.UsageError(keep ? "expected: baseline JOBID --name NAME"
                             : "expected one JOBID, or --since SECONDS");
  if (keep != args.Has("name"))
    return h.UsageError(keep ? "baseline JOBID needs --name NAME"
                             : "--name is for `railctl job baseline JOBID --name NAME`");
  if (keep && args.Has("baseline"))
    return h.UsageError("--baseline compares a run; `job baseline` keeps one");
  const std::string baseline_dir =
      args.Has("baselines") ? args.Get("baselines") : std::string(kDefaultBaselineDir);
  const std::string name = keep ? args.Get("name") : args.Get("baseline");
  if ((keep || args.Has("baseline")) && !report::IsBaselineName(name))
    return h.UsageError("baseline name '" + name + "': expected 1-64 of A-Z a-z 0-9 . _ -");
  uint64_t job = 0;
  const std::string id = list ? std::string("0") : pos[keep ? 1 : 0];
  if (!list && !health::ParseJobId(id, &job))
    return h.UsageError("JOBID '" + id + "' is not a Slurm job id (1-4294967295)");
  if (args.Has("no-history") && args.Has("history"))
    return h.UsageError("--history and --no-history exclude each other");

  SiteConfig site;
  topo::Topology topology;
  std::string err;
  if (!ResolveSiteConfig(args, &site, &err) || !LoadSiteTopology(site, &topology, &err))
    return h.Fail(err);
  // Without a config these are railcheck's defaults (wire/job_log.h, wire/event_log.h).
  const std::string default_job_log = site.config.health.job_log;
  const std::string default_history = site.config.health.events_log;

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
  const double now = static_cast<double>(time(nullptr));
  if (list) {
    std::vector<wire::HealthEvent> events;
    if (!args.Has("no-history")) {
      std::vector<std::string> given = args.GetAll("history");
      if (given.empty()) given.push_back(default_history);
      ReadEventLogs(PerNodePaths(given, topology), now - since_seconds - 31 * 86400.0, now,
                    &events);
    }
    const std::vector<report::JobFabric> jobs =
        report::JoinRecentJobs(records, now - since_seconds, now, &topology, events);
    return h.Write(args.Get("output"),
                   args.Has("json")         ? report::JobListJson(jobs, now - since_seconds, now)
                   : args.Has("prometheus") ? report::JobListPrometheus(jobs)
                                            : report::JobListText(jobs, now - since_seconds, now));
  }
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
    ReadEventLogs(PerNodePaths(given, topology), since, until, &events);
  }
  report::JobFabric f = report::JoinJob(job, records, &topology, events);
  if (args.Has("sweeps")) {
    std::vector<wire::SweepDocument> sweeps;
    Diags sdiags;
    const bool ok = report::ReadSweepsForJob(args.Get("sweeps"), f.start, f.end, &sweeps, &sdiags);
    std::fputs(FormatDiags(sdiags).c_str(), stderr);
    if (!ok) return h.Fail("cannot read the fabric sweeps in " + args.Get("sweeps"));
    report::AddJobSweeps(sweeps, &f);
  }
  // The application's own numbers (before a baseline is kept: its step time goes with it).
  for (const std::string& path : args.GetAll("nccl-tests")) {
    std::string text;
    Diags ndiags;
    report::NcclTestsRun run;
    if (!ReadTextFile(path, report::kNcclTestsInput, &text, &ndiags) ||
        !report::ParseNcclTests(text, path, &run, &ndiags)) {
      std::fputs(FormatDiags(ndiags).c_str(), stderr);
      return h.Fail("cannot use the nccl-tests output " + path);
    }
    report::AddNcclTests(run, false, &f);
  }
  std::vector<std::string> app_paths = args.GetAll("app");
  const bool app_given = !app_paths.empty() || args.Has("nccl-tests");
  const std::string& app_dir = site.config.health.job_app_dir;
  bool app_from_config = false;
  if (!app_given && !args.Has("no-app") && !app_dir.empty()) {
    std::string dir = app_dir;
    for (size_t at; (at = dir.find("%j")) != std::string::npos;) dir.replace(at, 2, id);
    struct stat st;
    if (stat(dir.c_str(), &st) == 0) {
      app_paths.push_back(dir);
      app_from_config = true;
    } else {
      f.notes.push_back("no application numbers: " + dir + " (health.job_app_dir) does not exist");
    }
  }
  for (const std::string& path : app_paths) {
    Diags adiags;
    report::JobAppsRead got;
    const bool ok = report::ReadJobApps(path, &f, &got, &adiags);
    std::fputs(FormatDiags(adiags).c_str(), stderr);
    if (!ok && !app_from_config) return h.Fail("cannot use the application numbers in " + path);
    if (!ok) f.notes.push_back("some application files in " + path + " could not be read (above)");
    if (got.skipped > 0)
      f.notes.push_back(std::to_string(got.skipped) + " file(s) in " + path +
                        " in no format railctl job reads were skipped");
    if (got.files == 0 && got.skipped == 0 && ok)
      f.notes.push_back("no application numbers in " + path + " (empty)");
  }
  const std::string baseline_path = baseline_dir + "/" + name + ".json";
  if (keep) {
    FileError ferr;
    if (!MakeDirs(baseline_dir, &ferr)) return h.Fail(ferr.Message());
    const int rc = h.Write(baseline_path, report::JobBaselineToJson(report::BaselineOf(f, name)));
    if (rc == 0) std::printf("job %s kept as baseline %s -> %s\n", id.c_str(), name.c_str(),
                             baseline_path.c_str());
    return rc;
  }
  if (args.Has("baseline")) {
    std::string text;
    Diags bdiags;
    report::JobBaseline b;
    if (!ReadTextFile(baseline_path, report::kJobBaselineInput, &text, &bdiags) ||
        !report::JobBaselineFromJson(text, baseline_path, &b, &bdiags)) {
      std::fputs(FormatDiags(bdiags).c_str(), stderr);
      return h.Fail("cannot use the baseline " + baseline_path);
    }
    report::CompareWithBaseline(b, report::BaselineMargins(), &f);
  }
  return h.Write(args.Get("output"), args.Has("json")         ? report::JobFabricJson(f)
                                    : args.Has("prometheus") ? report::JobListPrometheus({f})
                                                             : report::JobFabricText(f));
}

}  // namespace railguard::cli
