// SPDX-License-Identifier: GPL-2.0-or-later
// railctl report: fleet fabric health, root-cause suspects and placeable capacity, from the
// live cluster (libslurm) or a saved snapshot, as text, JSON, HTML or Prometheus metrics.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/args.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "config/locate.h"
#include "healthcheck/slurm_api.h"
#include "wire/event_log.h"
#include "wire/job_log.h"
#include "report/job_list.h"
#include "report/render.h"
#include "report/report.h"
#include "report/slurm_source.h"
#include "report/snapshot.h"
#include "topo/topology_yaml.h"
#include "base/numbers.h"

namespace railguard::cli {
namespace {

const char kReportUsage[] =
    "usage: railctl report [--topology FILE.yaml | --config railguard.yaml]\n"
    "                      [--snapshot FILE] [--save-snapshot FILE]\n"
    "                      [--history FILE]... [--no-history]\n"
    "                      [--json | --html | --prometheus] [-o OUT]\n"
    "                      [--feature NAME] [--stale-after SECONDS] [--sweep SWEEP.json]\n"
    "Fabric health of the whole cluster: the SU x rail matrix, root-cause suspects with their\n"
    "evidence, drained and restricted nodes, free nodes and the largest multi-node job that\n"
    "could start now per SU, running jobs on degraded paths, and flaps, drains and repeat\n"
    "offenders from railcheck's event log.\n"
    "  --topology FILE     the rail topology YAML\n"
    "  --config FILE       railguard.yaml: its topology and placement.healthy_feature\n"
    "                      (with neither: the railguard.yaml railcheck finds, beside\n"
    "                      $SLURM_CONF's or the default slurm.conf, else the node's own\n"
    "                      /etc/railguard/railguard.yaml; railguard.yaml(5), FILES)\n"
    "  --snapshot FILE     report from a snapshot saved earlier instead of asking slurmctld\n"
    "  --save-snapshot F   also save what was read from Slurm (JSON, versioned) to F\n"
    "  --history FILE      railcheck's event log (and FILE.1); \"%n\" in FILE becomes each\n"
    "                      node's name; repeatable. Default: the config's health.events_log\n"
    "                      when a config is read, else /var/lib/railguard/events.log\n"
    "  --no-history        read no event log\n"
    "  --job-log FILE      railcheck's job log (and FILE.1), \"%n\" as for --history;\n"
    "                      repeatable. Default: the config's health.job_log, else\n"
    "                      /var/lib/railguard/jobs.log. The jobs that ended in the last 24h\n"
    "                      on a slow, waiting or erring rail are listed (railctl job)\n"
    "  --no-job-log        read no job log\n"
    "  --json              JSON, schema railguard-report version 1 (report/SCHEMA.md)\n"
    "  --html              one self-contained HTML page: heatmap and per-node drill-down\n"
    "  --prometheus        node_exporter textfile metrics (railguard_*)\n"
    "  -o OUT              write OUT atomically instead of stdout\n"
    "  --feature NAME      the healthy node feature (default: the config's, rail_healthy)\n"
    "  --stale-after SEC   flag railcheck reports older than this (default 7200)\n"
    "  --sweep FILE        the latest `railctl fabric sweep --json`: suspects name the end that\n"
    "                      errs (host, switch, both, leaf, spine) and the leaf port the sweep\n"
    "                      found; without it leaf ports are guesses (position in the SU + 1)\n"
    "Live reading uses $SLURM_CONF, else the slurm.conf of the Slurm railctl was built for,\n"
    "else a configless slurmd's /run/slurm/conf/slurm.conf (as Slurm's commands do).\n"
    "Exit: 0 report written (input problems are listed in it and on stderr), 1 the topology,\n"
    "snapshot or Slurm could not be read or the output not written, 2 usage error.\n";

}  // namespace

int Report(int argc, char** argv) {
  const Handler h("railctl report", kReportUsage, argc, argv,
                  {{"topology", 0, true}, {"config", 0, true}, {"snapshot", 0, true},
                   {"save-snapshot", 0, true}, {"history", 0, true}, {"no-history", 0, false},
                   {"json", 0, false}, {"html", 0, false}, {"prometheus", 0, false},
                   {"output", 'o', true}, {"feature", 0, true}, {"stale-after", 0, true},
                   {"sweep", 0, true}, {"job-log", 0, true}, {"no-job-log", 0, false}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectNone()) return rc;
  const Args& args = h.args();
  const int formats = args.Has("json") + args.Has("html") + args.Has("prometheus");
  if (formats > 1) return h.UsageError("choose one of --json, --html, --prometheus");
  if (args.Has("no-history") && args.Has("history"))
    return h.UsageError("--history and --no-history exclude each other");
  if (args.Has("no-job-log") && args.Has("job-log"))
    return h.UsageError("--job-log and --no-job-log exclude each other");

  report::ReportOptions options;
  SiteConfig site;
  std::string err;
  if (!ResolveSiteConfig(args, &site, &err)) return h.Fail(err);
  // Without a config these are railcheck's defaults: the report reads where railcheck writes.
  options.healthy_feature = site.config.placement.healthy_feature;
  const std::string default_history = site.config.health.events_log;
  const std::string default_job_log = site.config.health.job_log;
  if (args.Has("feature")) options.healthy_feature = args.Get("feature");
  if (options.healthy_feature.empty()) return h.UsageError("--feature must not be empty");
  if (args.Has("stale-after")) {
    const std::string v = args.Get("stale-after");
    double s = 0;
    if (!ParseStrtod(v, &s) || !(s > 0) || s > 1e9)
      return h.UsageError("--stale-after '" + v + "' is not a number of seconds > 0");
    options.stale_after_seconds = s;
  }

  topo::Topology topology;
  if (!LoadSiteTopology(site, &topology, &err)) return h.Fail(err);

  report::Snapshot snapshot;
  std::string snapshot_name;
  if (args.Has("snapshot")) {
    snapshot_name = args.Get("snapshot");
    Diags diags;
    if (!report::LoadSnapshotFile(snapshot_name, &snapshot, &diags)) {
      std::fputs(FormatDiags(diags).c_str(), stderr);
      return h.Fail("cannot use the snapshot " + snapshot_name);
    }
  } else {
    std::string err;
    const SlurmConfSearch conf =
        FindSlurmConf(std::getenv("SLURM_CONF"), health::LibslurmDefaultConf());
    if (conf.path.empty())
      return h.Fail("no slurm.conf: " + conf.looked +
                    "; set SLURM_CONF, or report from a saved snapshot with --snapshot FILE");
    std::unique_ptr<report::ClusterSource> slurm =
        report::OpenSlurmSource(conf.path, conf.origin, &err);
    if (!slurm || !report::TakeSnapshot(slurm.get(), &snapshot, &err)) return h.Fail(err);
    snapshot_name = "slurm";
  }
  if (args.Has("save-snapshot")) {
    std::string err;
    if (!WriteOutput(args.Get("save-snapshot"), report::SnapshotToJson(snapshot), &err))
      return h.Fail("cannot save the snapshot: " + err);
  }

  std::vector<wire::HealthEvent> events;
  Diags history_problems;
  if (!args.Has("no-history")) {
    std::vector<std::string> given = args.GetAll("history");
    if (given.empty()) given.push_back(default_history);
    const double since = snapshot.time - report::kWindowSeconds[report::k7d];
    for (const std::string& path : PerNodePaths(given, topology)) {
      std::string err;
      switch (wire::ReadEvents(path, since, snapshot.time, &events, &history_problems, &err)) {
        case wire::EventLogStatus::kOk:
          options.history_read = true;
          options.history_files.push_back(path);
          break;
        case wire::EventLogStatus::kMissing:
          break;
        case wire::EventLogStatus::kError:
          history_problems.push_back({path, 0, 0, err + "; history from it not shown"});
          break;
      }
    }
  }

  report::SweepInput sweep;
  if (args.Has("sweep")) {
    Diags diags;
    if (!report::LoadSweepJson(args.Get("sweep"), &sweep, &diags)) {
      std::fputs(FormatDiags(diags).c_str(), stderr);
      return h.Fail("cannot use the sweep " + args.Get("sweep"));
    }
    options.sweep = &sweep;
  }

  report::Report r =
      report::BuildReport(snapshot, snapshot_name, topology, events, history_problems, options);
  if (!args.Has("no-job-log")) {
    // What ended jobs got from the fabric: the jobs of the last 24 h with findings.
    std::vector<std::string> given = args.GetAll("job-log");
    if (given.empty()) given.push_back(default_job_log);
    std::vector<wire::JobNodeRecord> records;
    for (const std::string& path : PerNodePaths(given, topology)) {
      std::string err;
      switch (wire::ReadJobRecords(path, 0, &records, &r.problems, &err)) {
        case wire::JobLogStatus::kOk:
          r.jobs_read = true;
          break;
        case wire::JobLogStatus::kMissing:
          break;
        case wire::JobLogStatus::kError:
          r.problems.push_back({path, 0, 0, err + "; jobs from it not shown"});
          break;
      }
    }
    const double day = report::kWindowSeconds[report::k24h];
    for (report::JobFabric& j :
         report::JoinRecentJobs(records, snapshot.time - day, snapshot.time, &topology, events)) {
      ++r.jobs_recorded;
      if (!j.findings.empty()) r.jobs_with_findings.push_back(std::move(j));
    }
  }
  for (const Diag& d : r.problems) std::fprintf(stderr, "%s\n", d.ToString().c_str());
  std::string text;
  if (args.Has("json")) {
    text = report::RenderJson(r);
  } else if (args.Has("html")) {
    text = report::RenderHtml(r);
  } else if (args.Has("prometheus")) {
    text = report::RenderPrometheus(r);
  } else {
    text = report::RenderText(r);
  }
  return h.Write(args.Get("output"), text);
}

}  // namespace railguard::cli
