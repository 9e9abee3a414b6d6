#include "healthcheck/railcheck.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include "cli/args.h"
#include "healthcheck/checks.h"
#include "healthcheck/gather.h"
#include "healthcheck/report.h"
#include "healthcheck/state.h"
#include "healthcheck/state_file.h"
#include "plugin/core/rail_setup.h"

namespace railguard::health {
namespace {

enum class Mode { kPeriodic, kProlog, kEpilog, kBaseline };

// The modes: flag (or subcommand), the name in reports, and one line of help.
struct ModeEntry {
  const char* flag;
  const char* name;
  Mode mode;
  const char* help;
};

const ModeEntry kModes[] = {
    {"--prolog", "prolog", Mode::kProlog,
     "as Slurm Prolog: on a drain verdict drain the node, exit 1 (Slurm requeues the job)"},
    {"--epilog", "epilog", Mode::kEpilog, "as Slurm Epilog: judge and act after each job"},
    {"--periodic", "periodic", Mode::kPeriodic,
     "as HealthCheckProgram (the default): judge and act, within Slurm's 60 s"},
    {"baseline", "baseline", Mode::kBaseline,
     "record every rail port's counters (and PCIe AER totals) as the commissioning baseline"},
};

// Names Slurm can run without arguments (symbolic links to railcheck).
const std::pair<const char*, Mode> kArgv0Modes[] = {{"railcheck-prolog", Mode::kProlog},
                                                    {"railcheck-epilog", Mode::kEpilog},
                                                    {"railcheck-periodic", Mode::kPeriodic}};

const char* ModeName(Mode m) {
  for (const ModeEntry& e : kModes)
    if (e.mode == m) return e.name;
  return "?";
}

bool IsHook(Mode m) { return m == Mode::kProlog || m == Mode::kEpilog; }

int ExitCode(Level level, Mode mode) {
  switch (level) {
    case Level::kDrain:
      return kExitDrain;
    case Level::kRestrict:
      // A failing Prolog or Epilog makes Slurm drain the node itself ("Prolog error"); a
      // restricted node must keep running single-node jobs.
      return IsHook(mode) ? kExitOk : kExitRestrict;
    default:
      return kExitOk;
  }
}

std::string DefaultConfigPath(const CliEnv& env) {
  if (!env.slurm_conf.empty()) return DirName(env.slurm_conf) + "railguard.yaml";
  return "/etc/slurm/railguard.yaml";
}

// Baseline: every readable counter of each rail port, and the AER totals of each function.
Baseline MakeBaseline(const NodeFacts& f, double now) {
  Baseline b;
  b.node = f.node;
  b.time = now;
  for (const NicFacts& n : f.nics) {
    if (!n.complete || !n.present || !n.port_error.empty()) continue;
    PortCounters& pc = b.ports[n.name];
    for (const auto& kv : n.port.counters)
      if (kv.second.error.empty() && !kv.second.no_pma) pc.counters[kv.first] = kv.second.value;
    for (const auto& kv : n.port.hw_counters)
      if (kv.second.error.empty() && !kv.second.no_pma) pc.hw_counters[kv.first] = kv.second.value;
  }
  for (const auto& kv : f.pci) {
    AerTotals t;
    if (kv.second.aer_correctable.value.ok())
      t.correctable = kv.second.aer_correctable.value.value->total;
    if (kv.second.aer_nonfatal.value.ok()) t.nonfatal = kv.second.aer_nonfatal.value.value->total;
    if (kv.second.aer_fatal.value.ok()) t.fatal = kv.second.aer_fatal.value.value->total;
    b.pcie[kv.first] = t;
  }
  return b;
}

class Run {
 public:
  Run(const CliEnv& env, const CliDeps& deps) : env_(env), deps_(deps) {}

  int Main(const std::vector<std::string>& args);

 private:
  int Fail(std::string msg) {
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    *deps_.err << "railcheck: " << msg << "\n";
    return kExitError;
  }
  void Phase(const char* p) {
    if (deps_.set_phase) deps_.set_phase(p);
  }

  const CliEnv& env_;
  const CliDeps& deps_;
};

int Run::Main(const std::vector<std::string>& args) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<char*> argv;
  std::vector<std::string> storage(args.size() + 1);
  storage[0] = "railcheck";
  for (size_t i = 0; i < args.size(); ++i) storage[i + 1] = args[i];
  for (std::string& s : storage) argv.push_back(s.data());
  cli::Args a(static_cast<int>(argv.size()), argv.data(),
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
    *deps_.err << "railcheck: " << a.error() << "\n" << RailcheckUsage();
    return kExitUsage;
  }
  if (a.Has("help")) {
    *deps_.out << RailcheckUsage();
    return kExitOk;
  }
  std::vector<Mode> modes;
  const std::string base0 = BaseName(env_.argv0);
  for (const auto& am : kArgv0Modes)
    if (base0 == am.first) modes.push_back(am.second);
  if (a.Has("prolog")) modes.push_back(Mode::kProlog);
  if (a.Has("epilog")) modes.push_back(Mode::kEpilog);
  if (a.Has("periodic")) modes.push_back(Mode::kPeriodic);
  for (const std::string& p : a.positional()) {
    if (p == "baseline") {
      modes.push_back(Mode::kBaseline);
    } else {
      *deps_.err << "railcheck: unknown command '" << p << "'\n" << RailcheckUsage();
      return kExitUsage;
    }
  }
  if (modes.size() > 1) {
    *deps_.err << "railcheck: give one mode at most (--prolog, --epilog, --periodic or "
                  "baseline)\n";
    return kExitUsage;
  }
  const Mode mode = modes.empty() ? Mode::kPeriodic : modes[0];
  const bool dry = a.Has("dry-run");
  const bool as_json = a.Has("json");

  // --- configuration, topology and the node ------------------------------------------------
  Phase("loading the configuration");
  const std::string config_path = a.Get("config", DefaultConfigPath(env_));
  Diags diags;
  std::shared_ptr<const plugin::RailSetup> setup = plugin::LoadRailSetup(config_path, &diags);
  if (!setup) return Fail("cannot load the configuration:\n" + FormatDiags(diags));
  const HealthConfig& health = setup->config.health;
  if (deps_.arm_time_limit)
    deps_.arm_time_limit(IsHook(mode) ? health.prolog_time_limit_seconds
                                      : health.periodic_time_limit_seconds);
  std::string node = a.Get("node", env_.slurmd_nodename);
  if (node.empty()) node = env_.hostname;
  if (node.empty()) return Fail("no node name: give --node NAME (or set SLURMD_NODENAME)");
  const topo::NodeType* type = setup->topology.TypeOfNode(node);
  if (!type) {
    return Fail("node '" + node + "' is not in the rail topology " + setup->config.topology_path +
                "; expected a node of one of its scalable units (or --node NAME)");
  }
  const std::string root = a.Get("sysfs-root", ExpandNode(health.sysfs_root, node));
  const std::string state_dir = ExpandNode(health.state_dir, node);

  // --- state: lock, baseline, last run ------------------------------------------------------
  Phase("reading the state files");
  StateLock lock;
  std::string err;
  if (!dry) {
    if (!PrepareStateDir(state_dir, &err)) return Fail(err);
    if (!lock.Acquire(state_dir, 1000 * std::min(health.prolog_time_limit_seconds, 5), &err))
      return Fail(err);
  }
  Baseline baseline;
  const LoadStatus bs = LoadBaseline(state_dir, node, &baseline, &err);
  if (bs == LoadStatus::kError) return Fail(err);
  RunState last;
  const LoadStatus ls = LoadRunState(state_dir, node, &last, &err);
  if (ls == LoadStatus::kError) return Fail(err);

  // --- gather ------------------------------------------------------------------------------
  Phase("reading sysfs");
  GatherSpec spec;
  spec.node = node;
  spec.sysfs_root = root;
  spec.nics = type->nics;
  spec.gpu_pci = type->gpu_pci;
  spec.read_timeout_ms = health.read_timeout_ms;
  std::shared_ptr<Verbs> verbs = root == "/" && deps_.open_verbs ? deps_.open_verbs() : nullptr;
  NodeFacts facts = Gather(spec, deps_.fs, verbs);
  const double now = deps_.now();

  RunReport report;
  report.node = node;
  report.mode = ModeName(mode);
  report.dry_run = dry;
  report.facts = &facts;
  report.gpus_expected = type->gpus;
  auto finish = [&](int code) {
    report.exit_code = code;
    report.total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    *deps_.out << (as_json ? ReportJson(report) : ReportText(report));
    return code;
  };

  if (mode == Mode::kBaseline) {
    Phase("recording the baseline");
    Baseline b = MakeBaseline(facts, now);
    RunState next = ls == LoadStatus::kOk ? last : RunState();
    next.node = node;
    next.time = now;
    next.baseline_time = b.time;
    for (auto& kv : next.ports) kv.second.since_baseline.clear();
    for (auto& kv : next.pcie) kv.second.since_baseline = AerTotals();
    for (const auto& kv : b.ports) next.ports[kv.first].last = kv.second;
    for (const auto& kv : b.pcie) next.pcie[kv.first].last = kv.second;
    for (const GatherTimeout& t : facts.timeouts)
      report.problems.push_back(t.task + ": reading " + t.path + " did not finish within " +
                                std::to_string(t.limit_ms) + " ms; not in the baseline");
    std::string line = "baseline of " + std::to_string(b.ports.size()) + " ports and " +
                       std::to_string(b.pcie.size()) + " PCIe functions in " +
                       BaselinePath(state_dir);
    if (!dry) {
      if (!SaveBaseline(state_dir, b, &err) || !SaveRunState(state_dir, next, &err))
        return Fail(err);
      report.actions.push_back("recorded " + line);
    } else {
      report.actions.push_back("record " + line);
    }
    return finish(report.problems.empty() ? kExitOk : kExitError);
  }

  // --- judge -------------------------------------------------------------------------------
  Phase("judging");
  JudgeInput in;
  in.facts = &facts;
  for (const topo::Rail& r : setup->topology.rails) in.rail_links.push_back(r.link);
  in.nic_pci = type->nic_pci;
  in.gpus_expected = type->gpus;
  in.config = &health;
  in.baseline = bs == LoadStatus::kOk ? &baseline : nullptr;
  in.baseline_path = BaselinePath(state_dir);
  in.last = ls == LoadStatus::kOk ? &last : nullptr;
  in.now = now;
  Judgement j = Judge(in);
  report.verdict = &j.verdict;
  int code = ExitCode(j.verdict.level, mode);

  // --- act ---------------------------------------------------------------------------------
  Phase("talking to slurmctld");
  const std::string& feature = setup->config.placement.healthy_feature;
  std::unique_ptr<SlurmApi> slurm = deps_.open_slurm(&err);
  SlurmNode sn;
  sn.name = node;
  bool slurm_ok = slurm && slurm->GetNode(node, &sn, &err);
  if (!slurm_ok) {
    report.problems.push_back(err);
    if (dry) {
      report.problems.push_back("the plan below assumes the node is not drained");
    }
  }
  Plan plan = PlanActions(j.verdict, sn, j.next, health, feature, now);
  report.actions = plan.lines;
  if (!dry && slurm_ok && !plan.update.empty() && !slurm->UpdateNode(node, plan.update, &err)) {
    report.problems.push_back(err);
    slurm_ok = false;
  }
  if (!dry) {
    Phase("writing the state file");
    // Without Slurm the plan was not carried out: keep the streaks and counts of the last
    // run, but still record the counters so that rates stay right.
    RunState next = plan.next;
    if (!slurm_ok && ls == LoadStatus::kOk) {
      next.clean_streak = last.clean_streak;
      next.drain_free_streak = last.drain_free_streak;
      next.feature_held = last.feature_held;
      next.drains = last.drains;
      next.resumes = last.resumes;
    }
    if (!SaveRunState(state_dir, next, &err)) report.problems.push_back(err);
  }
  // After a job the node needs no requeue: an Epilog that drained the node (or found it
  // drained) succeeds; it fails only when the node should be drained and railcheck could not,
  // so that Slurm drains it itself ("Epilog error").
  if (mode == Mode::kEpilog && code == kExitDrain && !dry && slurm_ok &&
      (sn.drain || plan.update.drain_reason))
    code = kExitOk;
  // Slurm and state problems fail a periodic run (slurmd logs its output then); a Prolog or
  // Epilog keeps the verdict's code, because a failing one makes Slurm drain a node whose
  // hardware is fine.
  if (!report.problems.empty() && !dry && !IsHook(mode) && code != kExitDrain) code = kExitError;
  return finish(code);
}

}  // namespace

std::string ExpandNode(const std::string& templ, const std::string& node) {
  std::string out;
  for (size_t i = 0; i < templ.size(); ++i) {
    if (templ[i] == '%' && i + 1 < templ.size() && templ[i + 1] == 'n') {
      out += node;
      ++i;
    } else {
      out += templ[i];
    }
  }
  return out;
}

std::string RailcheckUsage() {
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
       "                  /etc/slurm/railguard.yaml)\n"
       "  --node NAME     the node (default: $SLURMD_NODENAME, else the host name)\n"
       "  --sysfs-root D  read sysfs under D instead of health.sysfs_root\n\n"
       "exit codes: 0 healthy or warnings only (--prolog/--epilog: also restrict),\n"
       "            1 drain verdict (--prolog: Slurm requeues the job; --epilog: only when\n"
       "              railcheck could not drain the node itself), 2 usage error,\n"
       "            3 restrict verdict, 4 could not judge (config, topology, node, state, Slurm)\n";
  return s;
}

int RunRailcheck(const std::vector<std::string>& args, const CliEnv& env, const CliDeps& deps) {
  try {
    Run run(env, deps);
    return run.Main(args);
  } catch (const std::exception& e) {
    *deps.err << "railcheck: internal error: " << e.what() << "\n";
    return kExitError;
  }
}

}  // namespace railguard::health
