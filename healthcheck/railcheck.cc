#include "healthcheck/railcheck.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>

#include "base/args.h"
#include "healthcheck/check_table.h"
#include "healthcheck/checks.h"
#include "healthcheck/gather.h"
#include "healthcheck/history.h"
#include "healthcheck/report.h"
#include "healthcheck/state.h"
#include "healthcheck/state_file.h"
#include "plugin/core/rail_setup.h"

namespace railguard::health {
namespace {

enum class Mode { kPeriodic, kProlog, kEpilog, kBaseline };

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

// How the report names an event: "rail3 degraded", "drained".
std::string EventLabel(const HealthEvent& e) {
  const std::string kind = EventKindName(e.kind);
  return e.rail >= 0 ? "rail" + std::to_string(e.rail) + " " + kind : kind;
}

// Everything a mode handler works with, prepared once.
struct Context {
  Mode mode = Mode::kPeriodic;
  const char* mode_name = "";
  bool dry = false;
  std::shared_ptr<const plugin::RailSetup> setup;
  std::string node;
  const topo::NodeType* type = nullptr;
  std::string state_dir;
  StateLock lock;  // held for the whole run (not in --dry-run)
  Baseline baseline;
  LoadStatus baseline_status = LoadStatus::kMissing;
  std::string baseline_replaced;  // baseline mode: what is wrong with the old baseline
  RunState last;
  LoadStatus last_status = LoadStatus::kMissing;
  NodeFacts facts;
  double now = 0;
  Judgement judgement;  // CheckAndAct's
  RunReport report;     // filled by the handler; points into this context
};

class Run;
using Handler = int (Run::*)(Context*);

// The modes: flag (or subcommand), the name in reports, one line of help, the handler.
struct ModeEntry {
  const char* flag;
  const char* name;
  Mode mode;
  const char* help;
  Handler handler;
};

// Names Slurm can run without arguments (symbolic links to railcheck).
const std::pair<const char*, Mode> kArgv0Modes[] = {{"railcheck-prolog", Mode::kProlog},
                                                    {"railcheck-epilog", Mode::kEpilog},
                                                    {"railcheck-periodic", Mode::kPeriodic}};

class Run {
 public:
  Run(const CliEnv& env, const CliDeps& deps) : env_(env), deps_(deps) {}

  int Main(const std::vector<std::string>& args);

  // Gather, judge, act: --prolog, --epilog, --periodic.
  int CheckAndAct(Context* c);
  // `railcheck baseline`.
  int RecordBaseline(Context* c);

 private:
  // Config, topology, node, state files and the gathered facts into `*c`. Returns -1 when
  // ready, else the exit code to return (the error already printed).
  int Prepare(const Args& a, Context* c);

  int Fail(std::string msg) {
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    *deps_.err << "railcheck: " << msg << "\n";
    return kExitError;
  }
  void Phase(const char* p) {
    if (deps_.set_phase) deps_.set_phase(p);
  }
  // Prints the report with exit code `code` and returns it.
  int Finish(Context* c, int code, bool as_json) {
    c->report.exit_code = code;
    c->report.total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
    *deps_.out << (as_json ? ReportJson(c->report) : ReportText(c->report));
    return code;
  }

  const CliEnv& env_;
  const CliDeps& deps_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

const ModeEntry kModes[] = {
    {"--prolog", "prolog", Mode::kProlog,
     "as Slurm Prolog: on a drain verdict drain the node, exit 1 (Slurm requeues the job)",
     &Run::CheckAndAct},
    {"--epilog", "epilog", Mode::kEpilog, "as Slurm Epilog: judge and act after each job",
     &Run::CheckAndAct},
    {"--periodic", "periodic", Mode::kPeriodic,
     "as HealthCheckProgram (the default): judge and act, within Slurm's 60 s", &Run::CheckAndAct},
    {"baseline", "baseline", Mode::kBaseline,
     "record every rail port's counters (and PCIe AER totals) as the commissioning baseline",
     &Run::RecordBaseline},
};

const ModeEntry& EntryOf(Mode m) {
  for (const ModeEntry& e : kModes)
    if (e.mode == m) return e;
  return kModes[2];
}

int Run::Main(const std::vector<std::string>& args) {
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
  for (const ModeEntry& e : kModes)
    if (e.flag[0] == '-' && a.Has(e.flag + 2)) modes.push_back(e.mode);
  for (const std::string& p : a.positional()) {
    if (p != "baseline") {
      *deps_.err << "railcheck: unknown command '" << p << "'\n" << RailcheckUsage();
      return kExitUsage;
    }
    modes.push_back(Mode::kBaseline);
  }
  if (modes.size() > 1) {
    *deps_.err << "railcheck: give one mode at most (--prolog, --epilog, --periodic or "
                  "baseline)\n";
    return kExitUsage;
  }
  Context c;
  c.mode = modes.empty() ? Mode::kPeriodic : modes[0];
  c.mode_name = EntryOf(c.mode).name;
  c.dry = a.Has("dry-run");
  const int ready = Prepare(a, &c);
  if (ready >= 0) return ready;
  const int code = (this->*EntryOf(c.mode).handler)(&c);
  return Finish(&c, code, a.Has("json"));
}

int Run::Prepare(const Args& a, Context* c) {
  Phase("loading the configuration");
  Diags diags;
  c->setup = plugin::LoadRailSetup(a.Get("config", DefaultConfigPath(env_)), &diags);
  if (!c->setup) return Fail("cannot load the configuration:\n" + FormatDiags(diags));
  const HealthConfig& health = c->setup->config.health;
  if (deps_.arm_time_limit)
    deps_.arm_time_limit(IsHook(c->mode) ? health.prolog_time_limit_seconds
                                         : health.periodic_time_limit_seconds);
  c->node = a.Get("node", env_.slurmd_nodename);
  if (c->node.empty()) c->node = env_.hostname;
  if (c->node.empty()) return Fail("no node name: give --node NAME (or set SLURMD_NODENAME)");
  c->type = c->setup->topology.TypeOfNode(c->node);
  if (!c->type) {
    return Fail("node '" + c->node + "' is not in the rail topology " +
                c->setup->config.topology_path +
                "; expected a node of one of its scalable units (or --node NAME)");
  }
  const std::string root = a.Get("sysfs-root", ExpandNode(health.sysfs_root, c->node));
  c->state_dir = ExpandNode(health.state_dir, c->node);

  Phase("reading the state files");
  std::string err;
  if (!c->dry) {
    if (!PrepareStateDir(c->state_dir, &err)) return Fail(err);
    if (!c->lock.Acquire(c->state_dir, 1000 * std::min(health.prolog_time_limit_seconds, 5), &err))
      return Fail(err);
  }
  c->baseline_status = LoadBaseline(c->state_dir, c->node, &c->baseline, &err);
  // Recording a new baseline is the way out of a corrupt one (the error says so): that run
  // replaces it instead of stopping on it.
  if (c->baseline_status == LoadStatus::kCorrupt && c->mode == Mode::kBaseline) {
    c->baseline_replaced = err.substr(0, err.find(" (recover: "));
  } else if (c->baseline_status == LoadStatus::kCorrupt ||
             c->baseline_status == LoadStatus::kError) {
    return Fail(err);
  }
  c->last_status = LoadRunState(c->state_dir, c->node, &c->last, &err);
  if (c->last_status == LoadStatus::kCorrupt || c->last_status == LoadStatus::kError)
    return Fail(err);

  Phase("reading sysfs");
  GatherSpec spec;
  spec.node = c->node;
  spec.sysfs_root = root;
  spec.nics = c->type->nics;
  spec.gpu_pci = c->type->gpu_pci;
  spec.read_timeout_ms = health.read_timeout_ms;
  std::shared_ptr<Verbs> verbs = root == "/" && deps_.open_verbs ? deps_.open_verbs() : nullptr;
  c->facts = Gather(spec, deps_.fs, verbs);
  c->now = deps_.now();

  c->report.node = c->node;
  c->report.mode = c->mode_name;
  c->report.dry_run = c->dry;
  c->report.facts = &c->facts;
  c->report.gpus_expected = c->type->gpus;
  return -1;
}

int Run::RecordBaseline(Context* c) {
  Phase("recording the baseline");
  Baseline b = MakeBaseline(c->facts, c->now);
  RunState next = c->last_status == LoadStatus::kOk ? c->last : RunState();
  next.node = c->node;
  next.time = c->now;
  next.baseline_time = b.time;
  for (auto& kv : next.ports) kv.second.since_baseline.clear();
  for (auto& kv : next.pcie) kv.second.since_baseline = AerTotals();
  for (const auto& kv : b.ports) next.ports[kv.first].last = kv.second;
  for (const auto& kv : b.pcie) next.pcie[kv.first].last = kv.second;
  RunReport& r = c->report;
  for (const GatherTimeout& t : c->facts.timeouts)
    r.problems.push_back(t.task + ": reading " + t.path + " did not finish within " +
                         std::to_string(t.limit_ms) + " ms; not in the baseline");
  const std::string line = "baseline of " + std::to_string(b.ports.size()) + " ports and " +
                           std::to_string(b.pcie.size()) + " PCIe functions in " +
                           BaselinePath(c->state_dir);
  if (!c->baseline_replaced.empty())
    r.actions.push_back((c->dry ? "replace the " : "replacing the ") + c->baseline_replaced);
  if (c->dry) {
    r.actions.push_back("record " + line);
  } else {
    std::string err;
    if (!SaveBaseline(c->state_dir, b, &err) || !SaveRunState(c->state_dir, next, &err)) {
      r.problems.push_back(err);
      return kExitError;
    }
    r.actions.push_back("recorded " + line);
  }
  return r.problems.empty() ? kExitOk : kExitError;
}

int Run::CheckAndAct(Context* c) {
  const HealthConfig& health = c->setup->config.health;
  RunReport& r = c->report;

  Phase("judging");
  JudgeInput in;
  in.facts = &c->facts;
  for (const topo::Rail& rail : c->setup->topology.rails) in.rail_links.push_back(rail.link);
  in.nic_pci = c->type->nic_pci;
  in.gpus_expected = c->type->gpus;
  in.config = &health;
  in.baseline = c->baseline_status == LoadStatus::kOk ? &c->baseline : nullptr;
  in.baseline_path = BaselinePath(c->state_dir);
  in.last = c->last_status == LoadStatus::kOk ? &c->last : nullptr;
  in.now = c->now;
  c->judgement = Judge(in);
  const Judgement& j = c->judgement;
  r.verdict = &j.verdict;
  int code = ExitCode(j.verdict.level, c->mode);

  Phase("talking to slurmctld");
  std::string err;
  std::unique_ptr<SlurmApi> slurm = deps_.open_slurm(&err);
  SlurmNode sn;
  sn.name = c->node;
  bool slurm_ok = slurm && slurm->GetNode(c->node, &sn, &err);
  if (!slurm_ok) {
    r.problems.push_back(err);
    if (c->dry) r.problems.push_back("the plan below assumes the node is not drained");
  }
  Plan plan = PlanActions(j.verdict, sn, j.next, health, c->setup->config.placement.healthy_feature,
                          c->now);
  r.actions = plan.lines;
  if (!c->dry && slurm_ok && !plan.update.empty() &&
      !slurm->UpdateNode(c->node, plan.update, &err)) {
    r.problems.push_back(err);
    slurm_ok = false;
  }
  if (!c->dry && slurm_ok) {
    // Only a plan Slurm carried out is history; and without the node's Extra every unhealthy
    // rail would look like a change. A log that cannot be written is a warning: the verdict
    // and the exit code stay what the hardware says.
    Phase("writing the event log");
    const std::vector<HealthEvent> events = EventsForRun(
        sn, j.verdict, plan, j.history, c->setup->config.placement.healthy_feature, c->now);
    const std::string log = ExpandNode(health.events_log, c->node);
    if (!events.empty()) {
      if (AppendEvents(log, events, &err)) {
        for (const HealthEvent& e : events) r.events.push_back(EventLabel(e));
        r.events_log = log;
      } else {
        r.warnings.push_back("event log not written: " + err);
      }
    }
  }
  if (!c->dry) {
    Phase("writing the state file");
    // Without Slurm the plan was not carried out: keep the streaks and counts of the last
    // run, but still record the counters so that rates stay right.
    RunState next = plan.next;
    if (!slurm_ok && c->last_status == LoadStatus::kOk) {
      next.clean_streak = c->last.clean_streak;
      next.drain_free_streak = c->last.drain_free_streak;
      next.feature_held = c->last.feature_held;
      next.drains = c->last.drains;
      next.resumes = c->last.resumes;
    }
    if (!SaveRunState(c->state_dir, next, &err)) r.problems.push_back(err);
  }
  // After a job the node needs no requeue: an Epilog that drained the node (or found it
  // drained) succeeds; it fails only when the node should be drained and railcheck could not,
  // so that Slurm drains it itself ("Epilog error").
  if (c->mode == Mode::kEpilog && code == kExitDrain && !c->dry && slurm_ok &&
      (sn.drain || plan.update.drain_reason))
    code = kExitOk;
  // Slurm and state problems fail a periodic run (slurmd logs its output then); a Prolog or
  // Epilog keeps the verdict's code, because a failing one makes Slurm drain a node whose
  // hardware is fine.
  if (!r.problems.empty() && !c->dry && !IsHook(c->mode) && code != kExitDrain) code = kExitError;
  return code;
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
       "checks and their default actions (health.actions changes them):\n";
  s += CheckTableHelp();
  s += "\n"
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
