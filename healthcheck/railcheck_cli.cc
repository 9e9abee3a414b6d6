// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck_cli.h"

#include <cstdio>
#include <ostream>
#include <utility>

#include "base/args.h"
#include "config/locate.h"
#include "healthcheck/check_table.h"
#include "healthcheck/railcheck_baseline.h"
#include "healthcheck/railcheck_judge_act.h"
#include "healthcheck/sysfs.h"

namespace railguard::health {
namespace {

const ModeEntry kModes[] = {
    {"--prolog", "prolog", Mode::kProlog,
     "as Slurm Prolog: on a drain verdict drain the node, exit 1 (Slurm requeues the job)",
     &CheckAndAct},
    {"--epilog", "epilog", Mode::kEpilog, "as Slurm Epilog: judge and act after each job",
     &CheckAndAct},
    {"--periodic", "periodic", Mode::kPeriodic,
     "as HealthCheckProgram (the default): judge and act, within Slurm's 60 s", &CheckAndAct},
    {"baseline", "baseline", Mode::kBaseline,
     "record every rail port's counters (and PCIe AER totals) as the commissioning baseline",
     &RecordBaseline},
};

// Names Slurm can run without arguments (symbolic links to railcheck).
const std::pair<const char*, Mode> kArgv0Modes[] = {{"railcheck-prolog", Mode::kProlog},
                                                    {"railcheck-epilog", Mode::kEpilog},
                                                    {"railcheck-periodic", Mode::kPeriodic}};

}  // namespace

const ModeEntry& ModeEntryOf(Mode m) {
  for (const ModeEntry& e : kModes)
    if (e.mode == m) return e;
  return kModes[2];
}

int ParseOptions(const RunContext& ctx, const std::vector<std::string>& args, Options* o) {
  std::ostream& out = *ctx.deps.out;
  std::ostream& err = *ctx.deps.err;
  const std::string& default_conf = ctx.env.default_slurm_conf;
  std::vector<std::string> storage = {"railcheck"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  Args a(static_cast<int>(argv.size()), argv.data(),
         {{"prolog"},
          {"epilog"},
          {"periodic"},
          {"dry-run"},
          {"json"},
          {"help", 'h'},
          {"config", 0, true},
          {"node", 0, true},
          {"sysfs-root", 0, true}});
  if (!a.ok()) {
    err << "railcheck: " << a.error() << "\n" << RailcheckUsage(default_conf);
    return kExitUsage;
  }
  if (a.Has("help")) {
    out << RailcheckUsage(default_conf);
    return kExitOk;
  }
  std::vector<Mode> modes;
  const std::string base0 = BaseName(ctx.env.argv0);
  for (const auto& am : kArgv0Modes)
    if (base0 == am.first) modes.push_back(am.second);
  for (const ModeEntry& e : kModes)
    if (e.flag[0] == '-' && a.Has(e.flag + 2)) modes.push_back(e.mode);
  for (const std::string& p : a.positional()) {
    if (p != "baseline") {
      err << "railcheck: unknown command '" << p << "'\n" << RailcheckUsage(default_conf);
      return kExitUsage;
    }
    modes.push_back(Mode::kBaseline);
  }
  if (modes.size() > 1) {
    err << "railcheck: give one mode at most (--prolog, --epilog, --periodic or baseline)\n";
    return kExitUsage;
  }
  o->mode = modes.empty() ? Mode::kPeriodic : modes[0];
  o->dry = a.Has("dry-run");
  o->json = a.Has("json");
  const ConfigSearch config = FindConfig(a.Get("config"), ctx.env.slurm_conf.c_str(),
                                         default_conf, ctx.env.node_config);
  o->config_path = config.path;
  if (!config.found) o->config_missing = ConfigNotFound(config);
  o->node = a.Get("node", ctx.env.slurmd_nodename);
  if (a.Has("sysfs-root")) o->sysfs_root = a.Get("sysfs-root");
  return -1;
}

std::string RailcheckUsage(const std::string& default_slurm_conf) {
  std::string s =
      "usage: railcheck [--prolog|--epilog|--periodic|baseline] [--dry-run] [--json]\n"
      "                 [--config FILE] [--node NAME] [--sysfs-root DIR]\n\n"
      "Checks the rail NICs, their links and the PCIe paths of NICs and GPUs of one node\n"
      "against the rail topology, drains or restricts the node in Slurm, and resumes nodes it\n"
      "drained itself after health.resume_after_clean_runs clean runs.\n\nmodes:\n";
  for (const ModeEntry& e : kModes) {
    char line[160];
    std::snprintf(line, sizeof(line), "  %-11s %s\n", e.flag, e.help);
    s += line;
  }
  s += "  (run as railcheck-prolog, railcheck-epilog or railcheck-periodic, a link to\n"
       "   railcheck, it takes that mode: Slurm passes no arguments)\n\n"
       "options:\n"
       "  --dry-run       judge and say what would be done; change nothing (no Slurm update,\n"
       "                  no state file written)\n"
       "  --json          the report as JSON\n"
       "  --config FILE   railguard.yaml (default: beside $SLURM_CONF, else\n"
       "                  " +
       ConfigBeside(default_slurm_conf) +
       ")\n"
       "                  or, when there is none there, the node's own\n"
       "                  " +
       std::string(kNodeLocalConfig) +
       " (configless Slurm)\n"
       "  --node NAME     the node (default: $SLURMD_NODENAME, else the host name)\n"
       "  --sysfs-root D  read sysfs under D instead of health.sysfs_root\n\n"
       "checks and their default actions (health.actions changes them):\n";
  s += CheckTableHelp();
  s += "\n"
       "exit codes: 0 healthy or warnings only (--prolog/--epilog: also restrict),\n"
       "            1 drain verdict (--prolog: Slurm requeues the job; --epilog: only when\n"
       "              railcheck could not drain the node itself), 2 usage error,\n"
       "            3 restrict verdict, 4 could not judge (config, topology, node, state, Slurm)\n";
  return s;
}

}  // namespace railguard::health
