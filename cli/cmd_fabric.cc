// SPDX-License-Identifier: GPL-2.0-or-later
// railctl fabric sweep: every switch and HCA port's counters and link state, in rail terms.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "base/numbers.h"
#include "cli/commands.h"
#include "cli/handler_util.h"
#include "fabric/baseline.h"
#include "fabric/ibmad_source.h"
#include "fabric/judge.h"
#include "fabric/prometheus.h"
#include "fabric/render.h"
#include "fabric/traffic.h"
#include "fabric/window.h"
#include "config/load.h"
#include "fabric/sweep.h"

namespace railguard::cli {
namespace {

const char kSweepUsage[] =
    "usage: railctl fabric sweep TOPO.yaml [--json | --prometheus] [-o OUT]\n"
    "         [--baseline SWEEP.json | --previous SWEEP.json | --state-dir DIR]\n"
    "         [--config railguard.yaml]\n"
    "         [--ca NAME] [--ca-port N] [--max-in-flight N] [--mad-timeout MS]\n"
    "         [--switch-timeout MS] [--deadline MS] [--rediscover-after S]\n"
    "Discovers the InfiniBand fabric through libibnetdisc, reads PortCounters (and\n"
    "PortCountersExtended where the PMA supports it) of every switch and HCA port through\n"
    "libibmad, and maps every link onto TOPO.yaml: host/rail <-> leaf/port, leaf <-> spine/port.\n"
    "Findings: error counters above 0 (naming the end), width or speed below the rail's link\n"
    "(naming the end that enables less), counters a mute node left unread.\n"
    "  --json               JSON instead of the text report (summary.time: the sweep's time)\n"
    "  --prometheus         Prometheus samples per link (text exposition format) instead\n"
    "  -o OUT               write there (atomically); default: stdout\n"
    "  --baseline FILE      the --json output of an earlier sweep (of a known-good fabric):\n"
    "                       error counters are judged by how much they grew since then\n"
    "  --previous FILE      the --json output of the previous sweep: traffic (utilization\n"
    "                       from PortXmitData/PortRcvData, PortXmitWait per second) between the\n"
    "                       two, and error counters judged by their growth per hour against\n"
    "                       railcheck's limits and windows (health.link_error_limits)\n"
    "  --state-dir DIR      keep the sweep JSON in DIR/last-sweep.json: each sweep reads the\n"
    "                       one before as --previous (when there is one) and replaces it\n"
    "  --config FILE        railguard.yaml whose health: section gives those limits\n"
    "                       (default: railcheck's defaults); needs --previous or --state-dir\n"
    "  --ca NAME            local HCA to send MADs from (default: libibumad's first)\n"
    "  --ca-port N          its port (default: its first active one)\n"
    "  --max-in-flight N    PMA queries outstanding at once, 1..64 (default: 8)\n"
    "  --mad-timeout MS     one query, 1..60000 (default: 500)\n"
    "  --switch-timeout MS  all queries of one node, 1..600000 (default: 2000); a node that\n"
    "                       does not answer in time leaves the rest of its ports unread\n"
    "  --deadline MS        the counter phase, 1..3600000 (default: 60000)\n"
    "  --rediscover-after S with --state-dir or --previous: reuse that sweep's discovery\n"
    "                       until it is S seconds old, 0..604800 (default: 900; 0: discover\n"
    "                       every time); discovers at once when this port's LID or the SM's\n"
    "                       LID changed, a node does not answer, or a port's LinkDowned or\n"
    "                       LinkErrorRecovery counter moved\n"
    "Exit: 0 complete and no findings, 1 findings, a partial sweep or an error, 2 usage error.\n";

}  // namespace

int FabricSweep(int argc, char** argv) {
  const Handler h("railctl fabric sweep", kSweepUsage, argc, argv,
                  {{"json", 0, false},
                   {"prometheus", 0, false},
                   {"previous", 0, true},
                   {"config", 0, true},
                   {"state-dir", 0, true},
                   {"output", 'o', true},
                   {"baseline", 0, true},
                   {"ca", 0, true},
                   {"ca-port", 0, true},
                   {"max-in-flight", 0, true},
                   {"mad-timeout", 0, true},
                   {"switch-timeout", 0, true},
                   {"deadline", 0, true},
                   {"rediscover-after", 0, true}});
  if (h.done()) return h.exit_code();
  if (int rc = h.ExpectOne("TOPO.yaml")) return rc;
  const Args& args = h.args();
  fabric::SweepOptions opts;
  fabric::IbmadOptions mad;
  struct IntFlag {
    const char* name;
    int lo, hi;
    int* out;
  };
  const IntFlag ints[] = {{"ca-port", 1, 254, &mad.ca_port},
                          {"max-in-flight", 1, 64, &opts.max_in_flight},
                          {"mad-timeout", 1, 60000, &opts.mad_timeout_ms},
                          {"switch-timeout", 1, 600000, &opts.switch_timeout_ms},
                          {"deadline", 1, 3600000, &opts.deadline_ms},
                          {"rediscover-after", 0, 604800, &opts.rediscover_after_s}};
  for (const IntFlag& f : ints) {
    if (args.Has(f.name) && !ParseDigits(args.Get(f.name), f.lo, f.hi, f.out, 9))
      return h.UsageError(std::string("invalid --") + f.name + " '" + args.Get(f.name) +
                          "'; expected an integer from " + std::to_string(f.lo) + " to " +
                          std::to_string(f.hi));
  }
  if (args.Has("json") && args.Has("prometheus"))
    return h.UsageError("--json and --prometheus both given; expected at most one output format");
  if (args.Has("baseline") && args.Has("previous"))
    return h.UsageError("--baseline and --previous both given; expected one: a known-good "
                        "baseline, or the previous sweep (error growth per hour)");
  if (args.Has("state-dir") && (args.Has("baseline") || args.Has("previous")))
    return h.UsageError("--state-dir with --baseline or --previous; expected --state-dir alone "
                        "(it supplies the previous sweep)");
  if (args.Has("config") && !args.Has("previous") && !args.Has("state-dir"))
    return h.UsageError("--config needs --previous; expected --previous SWEEP.json --config FILE");
  // With --state-dir the previous sweep is the one it holds, if any.
  std::string previous_file = args.Get("previous");
  std::string state_file;
  if (args.Has("state-dir")) {
    const std::string& dir = args.Get("state-dir");
    struct stat st;
    if (dir.empty() || stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return h.Fail("--state-dir '" + dir + "' is not a folder; expected an existing folder "
                    "for the sweep state");
    state_file = dir + (dir.back() == '/' ? "" : "/") + "last-sweep.json";
    if (access(state_file.c_str(), F_OK) == 0) previous_file = state_file;
  }
  mad.ca = args.Get("ca");
  mad.smp_timeout_ms = opts.mad_timeout_ms;
  const std::string path = args.positional()[0];
  topo::Topology t;
  if (!LoadTopologyOrReport(path, &t)) return 1;

  fabric::SweepBaseline baseline;
  if (args.Has("baseline")) {
    Diags diags;
    if (!fabric::LoadSweepBaseline(args.Get("baseline"), &baseline, &diags)) {
      ReportFileErrors(args.Get("baseline"), diags, "; nothing swept");
      return 1;
    }
  }
  fabric::SweepBaseline previous;
  fabric::SweepWindow window;
  if (!previous_file.empty()) {
    const std::string& file = previous_file;
    Diags diags;
    if (!fabric::LoadSweepBaseline(file, &previous, &diags, /*with_discovery=*/true)) {
      ReportFileErrors(file, diags, "; nothing swept");
      return 1;
    }
    if (previous.time < 0)
      return h.Fail(file + ": no \"summary\": {\"time\"}; expected the --json of a sweep that "
                    "records its time (this version of railctl fabric sweep); nothing swept");
    if (args.Has("config")) {
      Config cfg;
      if (!LoadConfigFile(args.Get("config"), &cfg, &diags)) {
        ReportFileErrors(args.Get("config"), diags, "; nothing swept");
        return 1;
      }
      window.health = cfg.health;
    }
    window.previous = &previous;
  }
  std::unique_ptr<fabric::FabricSource> source = fabric::MakeIbmadSource(mad);
  fabric::Sweep sweep;
  std::string err;
  const fabric::KeptDiscovery* kept = previous.discovery ? &*previous.discovery : nullptr;
  if (!fabric::RunSweep(source.get(), opts, &sweep, &err, kept)) return h.Fail(err);
  // Without a kept discovery RunSweep can only say there was none; say why.
  if (!previous_file.empty() && !kept)
    sweep.discovery_reason = previous_file + ": " + previous.no_discovery;
  std::optional<fabric::Traffic> traffic;
  if (window.previous) {
    window.seconds = sweep.time - previous.time;
    if (!(window.seconds > 0)) {
      // The state is replaced all the same, so that a clock set back does not stop every
      // later sweep.
      if (!state_file.empty())
        h.Write(state_file, fabric::RenderJson(t, sweep, fabric::JudgeSweep(t, sweep)));
      return h.Fail(previous_file + ": the previous sweep's time is not before this "
                    "sweep's; expected the JSON of an earlier sweep");
    }
  }
  const fabric::FabricReport report = fabric::JudgeSweep(
      t, sweep, args.Has("baseline") ? &baseline : nullptr, window.previous ? &window : nullptr);
  if (window.previous) traffic = fabric::ComputeTraffic(t, sweep, report, previous);
  const fabric::Traffic* tr = traffic ? &*traffic : nullptr;
  const std::string out = args.Has("json")         ? fabric::RenderJson(t, sweep, report, tr)
                          : args.Has("prometheus") ? fabric::RenderPrometheus(t, sweep, report, tr)
                                                   : fabric::RenderText(t, sweep, report, tr);
  if (h.Write(args.Get("output"), out) != 0) return 1;
  if (!state_file.empty() &&
      h.Write(state_file, args.Has("json") ? out : fabric::RenderJson(t, sweep, report, tr)) != 0)
    return 1;
  return sweep.partial || !report.findings.empty() || !report.missing.empty() ? 1 : 0;
}

}  // namespace railguard::cli
