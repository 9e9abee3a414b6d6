// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/railcheck.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <sstream>
#include <thread>

#include "base/args.h"
#include "config/load.h"
#include "config/locate.h"
#include "healthcheck/check_table.h"
#include "healthcheck/checks.h"
#include "healthcheck/confirm.h"
#include "healthcheck/fabric_input.h"
#include "healthcheck/gather.h"
#include "healthcheck/isolate.h"
#include "healthcheck/report.h"
#include "healthcheck/run_events.h"
#include "healthcheck/state.h"
#include "healthcheck/state_file.h"

namespace railguard::health {
namespace {

// Where the running kernel mounts sysfs: the only root at which libibverbs and the ethtool
// ioctl describe the same devices as the files read.
constexpr char kLiveSysfs[] = "/sys";

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

// NodeBaseline: every readable counter of each rail port, and the AER totals of each function.
NodeBaseline MakeNodeBaseline(const NodeFacts& f, double now) {
  NodeBaseline b;
  b.node = f.node;
  b.time = now;
  if (f.boot_id.ok()) b.boot_id = *f.boot_id.value;
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
std::string EventLabel(const wire::HealthEvent& e) {
  const std::string kind = wire::EventKindName(e.kind);
  return e.rail >= 0 ? "rail" + std::to_string(e.rail) + " " + kind : kind;
}

// What the command line asks for.
struct Options {
  Mode mode = Mode::kPeriodic;
  bool dry = false;
  bool json = false;
  std::string config_path;                // --config; LocateConfig() finds it without
  std::string node;                       // --node, else $SLURMD_NODENAME; may be ""
  std::optional<std::string> sysfs_root;  // --sysfs-root
};

// The configuration, the node and where its files are.
struct Setup {
  std::shared_ptr<const RailSetup> rails;
  std::string node;
  const topo::NodeType* type = nullptr;
  std::string sysfs_root;
  std::string state_dir;
  int time_limit_seconds = 0;  // the mode's hard limit
  std::optional<NodeFabric> fabric;  // fresh fabric evidence (health.fabric_evidence)
  std::string fabric_note;           // why evidence there was not used, or ""

  const HealthConfig& health() const { return rails->config.health; }
  const std::string& feature() const { return rails->config.placement.healthy_feature; }
};

// The state files as read, and the lock on them (held for the whole run, not in --dry-run).
struct StateFiles {
  StateLock lock;
  NodeBaseline baseline;
  LoadStatus baseline_status = LoadStatus::kMissing;
  std::string baseline_replaced;  // baseline mode: what is wrong with the old baseline
  RunState last;
  LoadStatus last_status = LoadStatus::kMissing;
};

// What a mode handler works from.
struct RunInput {
  const Options& options;
  const Setup& setup;
  const StateFiles& state;
  const NodeFacts& facts;
  double now;
};

// What a handler leaves: the report, and the judgement it points into.
struct RunOutput {
  Judgement judgement;
  RunReport report;
};

// What the act phase found and did in Slurm.
struct Acted {
  SlurmNode node;         // as slurmctld has it (only the name when unreachable)
  Plan plan;              // the changes for Slurm and the next run state
  bool slurm_ok = false;  // the node was read and the plan carried out (or dry)
};

JudgeInput JudgeInputOf(const RunInput& in);

// The phase in which the child reads sysfs (and libibverbs): while in it, the parent gives
// the child read_timeout_ms and this much more (the child's own gather ends at the first).
constexpr const char* kReadingPhase = "reading sysfs";
constexpr int kReadingGraceMs = 500;

// What the parent keeps of a run's time limit for answering a late child itself.
int LateReserveMs(int limit_ms) { return std::max(250, std::min(3000, limit_ms / 4)); }

class Run;
using Handler = int (Run::*)(const RunInput& in, RunOutput* out);

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

// One run, phase by phase: options, setup, state files, gather, then the mode's handler
// (judge, act, record the state; or record the baseline), then the report.
class Run {
 public:
  Run(const CliEnv& env, const CliDeps& deps) : env_(env), deps_(deps) {}

  int Main(const std::vector<std::string>& args);
  // Gather (or take `*late_facts`), then the mode's handler and the report.
  int GatherJudgeAct(const Options& o, const Setup& s, const StateFiles& st,
                     const NodeFacts* late_facts);
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();

  // Judge, act, record the state: --prolog, --epilog, --periodic.
  int CheckAndAct(const RunInput& in, RunOutput* out);
  // `railcheck baseline`.
  int RecordBaseline(const RunInput& in, RunOutput* out);

 private:
  // The command line into `*o`. -1 when the run goes on, else the exit code (usage or help
  // printed).
  int ParseOptions(const std::vector<std::string>& args, Options* o);
  // Config and topology, the node and its node type, the folders: false with `*err`.
  bool LoadSetup(const Options& o, Setup* s, std::string* err);
  // The state folder, the lock and the two state files: false with `*err`.
  bool LoadState(const Options& o, const Setup& s, StateFiles* st, std::string* err);
  // GatherJudgeAct in a child process (CliDeps::gather_in_child); a late child is answered for.
  int GatherInChild(const Options& o, const Setup& s, const StateFiles& st);
  // The node's facts from sysfs (and libibverbs on a live node); in a judging mode with
  // transient findings re-read (confirm.h), what the re-reads showed into `*notes`.
  NodeFacts GatherFacts(const Options& o, const Setup& s, const StateFiles& st,
                        std::vector<std::string>* notes);
  // Slurm's view of the node, the plan, and its update; problems into `*r`.
  Acted Act(const RunInput& in, const Judgement& j, RunReport* r);
  // The event log, once Slurm carried out the plan.
  void WriteEvents(const RunInput& in, const Judgement& j, const Acted& a, RunReport* r);
  // The next run state (not in --dry-run).
  void RecordState(const RunInput& in, const Acted& a, RunReport* r);

  int Fail(std::string msg) {
    while (!msg.empty() && msg.back() == '\n') msg.pop_back();
    *deps_.err << "railcheck: " << msg << "\n";
    return kExitError;
  }
  void Phase(const char* p) {
    if (deps_.set_phase) deps_.set_phase(p);
  }
  // Prints the report with exit code `code` and returns it.
  int Finish(RunReport* r, int code, bool as_json) {
    r->exit_code = code;
    r->total_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
            .count();
    *deps_.out << (as_json ? ReportJson(*r) : ReportText(*r));
    return code;
  }

  const CliEnv& env_;
  const CliDeps& deps_;
  bool late_ = false;                   // answering for a late gather child
  std::vector<std::string> warnings_;  // for the report
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
  Options o;
  if (const int code = ParseOptions(args, &o); code >= 0) return code;
  Setup setup;
  StateFiles state;
  std::string err;
  if (!LoadSetup(o, &setup, &err) || !LoadState(o, setup, &state, &err)) return Fail(err);
  if (deps_.gather_in_child) return GatherInChild(o, setup, state);
  return GatherJudgeAct(o, setup, state, nullptr);
}

int Run::GatherJudgeAct(const Options& o, const Setup& setup, const StateFiles& state,
                        const NodeFacts* late_facts) {
  std::vector<std::string> notes;
  const NodeFacts facts = late_facts ? *late_facts : GatherFacts(o, setup, state, &notes);
  const RunInput in{o, setup, state, facts, deps_.now()};

  RunOutput out;
  RunReport& r = out.report;
  r.node = setup.node;
  r.mode = EntryOf(o.mode).name;
  r.dry_run = o.dry;
  r.facts = &facts;
  r.gpus_expected = setup.type->gpus;
  r.warnings = warnings_;
  r.warnings.insert(r.warnings.end(), notes.begin(), notes.end());
  if (!setup.fabric_note.empty()) r.warnings.push_back(setup.fabric_note);
  const int code = (this->*EntryOf(o.mode).handler)(in, &out);
  return Finish(&r, code, o.json);
}

int Run::GatherInChild(const Options& o, const Setup& s, const StateFiles& st) {
  const int limit_ms = 1000 * s.time_limit_seconds;
  ChildLimits limits;
  limits.deadline = start_ + std::chrono::milliseconds(limit_ms - LateReserveMs(limit_ms));
  limits.bounded_phase = kReadingPhase;
  limits.bounded_phase_ms = s.health().read_timeout_ms + kReadingGraceMs;
  Phase("gathering in a child process");
  const ChildOutcome c = RunInChild(
      [&](ChildReporter& rep, std::string* out, std::string* err) {
        std::ostringstream os;
        std::ostringstream es;
        CliDeps d = deps_;
        d.fs = std::make_shared<ReportingSysfs>(deps_.fs, &rep);
        d.open_verbs = [this, &rep]() -> std::shared_ptr<Verbs> {
          const uint64_t t = rep.ReadBegin("libibverbs' device list");
          std::shared_ptr<Verbs> v = deps_.open_verbs ? deps_.open_verbs() : nullptr;
          rep.ReadEnd(t);
          return v ? std::make_shared<ReportingVerbs>(v, &rep) : nullptr;
        };
        d.set_phase = [&rep](const char* p) { rep.Phase(p); };
        d.arm_time_limit = nullptr;
        d.out = &os;
        d.err = &es;
        d.gather_in_child = false;
        Run child(env_, d);
        child.start_ = start_;
        const int code = child.GatherJudgeAct(o, s, st, nullptr);
        *out = os.str();
        *err = es.str();
        return code;
      },
      limits);
  if (c.finished) {
    *deps_.out << c.out;
    *deps_.err << c.err;
    return c.code;
  }
  if (!c.started) {
    warnings_.push_back("gathered in this process: " + c.why);
    return GatherJudgeAct(o, s, st, nullptr);
  }
  const std::string pid = std::to_string(c.pid);
  const std::string where = c.phase.empty() ? "starting" : c.phase;
  // A read still in flight is what holds the child (the run went on past it or not).
  if (c.stuck.empty() || o.mode == Mode::kBaseline)
    return Fail("the run's child process " + pid + " " + c.why + " while " + where +
                (c.reaped ? "" : "; left behind"));
  Phase("answering for the late gather");
  late_ = true;
  warnings_.push_back("the gather (process " + pid + ") " + c.why + "; answered without it" +
                      (c.reaped ? std::string()
                                : " and left it behind (killed once its stuck read returns)"));
  if (c.stuck.size() > 1) {
    std::string others;
    for (size_t i = 1; i < c.stuck.size() && i < 4; ++i)
      others += (i > 1 ? ", " : "") + c.stuck[i].what;
    warnings_.push_back(std::to_string(c.stuck.size() - 1) + " later read(s) were in flight " +
                        "too: " + others + (c.stuck.size() > 4 ? ", ..." : ""));
  }
  warnings_.push_back("rails it had not read are not judged in this run; the state file and " +
                      std::string("the event log are left as they were"));
  const NodeFacts facts =
      FactsOfLateChild(c, s.node, s.sysfs_root, s.type->nics, s.health().read_timeout_ms);
  return GatherJudgeAct(o, s, st, &facts);
}

int Run::ParseOptions(const std::vector<std::string>& args, Options* o) {
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
    *deps_.err << "railcheck: " << a.error() << "\n" << RailcheckUsage(env_.default_slurm_conf);
    return kExitUsage;
  }
  if (a.Has("help")) {
    *deps_.out << RailcheckUsage(env_.default_slurm_conf);
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
      *deps_.err << "railcheck: unknown command '" << p << "'\n" << RailcheckUsage(env_.default_slurm_conf);
      return kExitUsage;
    }
    modes.push_back(Mode::kBaseline);
  }
  if (modes.size() > 1) {
    *deps_.err << "railcheck: give one mode at most (--prolog, --epilog, --periodic or "
                  "baseline)\n";
    return kExitUsage;
  }
  o->mode = modes.empty() ? Mode::kPeriodic : modes[0];
  o->dry = a.Has("dry-run");
  o->json = a.Has("json");
  o->config_path = LocateConfig(a.Get("config"), env_.slurm_conf.c_str(), env_.default_slurm_conf);
  o->node = a.Get("node", env_.slurmd_nodename);
  if (a.Has("sysfs-root")) o->sysfs_root = a.Get("sysfs-root");
  return -1;
}

bool Run::LoadSetup(const Options& o, Setup* s, std::string* err) {
  Phase("loading the configuration");
  Diags diags;
  s->rails = LoadRailSetup(o.config_path, &diags, &CheckCatalogOfTable());
  if (!s->rails) {
    *err = "cannot load the configuration:\n" + FormatDiags(diags);
    return false;
  }
  const HealthConfig& health = s->health();
  s->time_limit_seconds = IsHook(o.mode) ? health.prolog_time_limit_seconds
                                         : health.periodic_time_limit_seconds;
  if (deps_.arm_time_limit) deps_.arm_time_limit(s->time_limit_seconds);
  s->node = o.node.empty() ? env_.hostname : o.node;
  if (s->node.empty()) {
    *err = "no node name: give --node NAME (or set SLURMD_NODENAME)";
    return false;
  }
  s->type = s->rails->topology.TypeOfNode(s->node);
  if (!s->type) {
    *err = "node '" + s->node + "' is not in the rail topology " + s->rails->config.topology_path +
           "; expected a node of one of its scalable units (or --node NAME)";
    return false;
  }
  s->sysfs_root = o.sysfs_root ? *o.sysfs_root : ExpandNode(health.sysfs_root, s->node);
  // sysfs_root is where sysfs is mounted; "/" (what configs said before) means the kernel's.
  if (s->sysfs_root == "/") s->sysfs_root = kLiveSysfs;
  s->state_dir = ExpandNode(health.state_dir, s->node);
  const topo::NodeRef* ref = s->rails->topology.FindNode(s->node);
  NodeFabric fabric;
  // Leaf faults are matched by the node's one-hop domain (its SU's name when the SU has one).
  const topo::Topology& t = s->rails->topology;
  const std::string domain =
      ref && ref->domain >= 0 ? t.domains[ref->domain].name : ref ? t.sus[ref->su].name : "";
  // Under a limit of its own, in a child, when the run gathers in one (not in unit tests).
  const int evidence_ms = std::min(std::max(1000, 4 * health.read_timeout_ms),
                                   std::max(1000, 250 * s->time_limit_seconds));
  if (LoadNodeFabric(health, s->node, domain, deps_.now(), &fabric, &s->fabric_note,
                     deps_.gather_in_child ? BoundedEvidenceRead(evidence_ms) : ReadEvidenceHere))
    s->fabric = std::move(fabric);
  return true;
}

bool Run::LoadState(const Options& o, const Setup& s, StateFiles* st, std::string* err) {
  Phase("reading the state files");
  if (!o.dry) {
    if (!PrepareStateDir(s.state_dir, err)) return false;
    const int wait_ms = 1000 * std::min(s.health().prolog_time_limit_seconds, 5);
    if (!st->lock.Acquire(s.state_dir, wait_ms, err)) return false;
  }
  st->baseline_status = LoadBaseline(s.state_dir, s.node, &st->baseline, err);
  // Recording a new baseline is the way out of a corrupt one (the error says so): that run
  // replaces it instead of stopping on it.
  if (st->baseline_status == LoadStatus::kCorrupt && o.mode == Mode::kBaseline) {
    st->baseline_replaced = err->substr(0, err->find(" (recover: "));
  } else if (st->baseline_status == LoadStatus::kCorrupt ||
             st->baseline_status == LoadStatus::kError) {
    return false;
  }
  st->last_status = LoadRunState(s.state_dir, s.node, &st->last, err);
  return st->last_status != LoadStatus::kCorrupt && st->last_status != LoadStatus::kError;
}

NodeFacts Run::GatherFacts(const Options& o, const Setup& s, const StateFiles& st,
                           std::vector<std::string>* notes) {
  Phase(kReadingPhase);
  GatherSpec spec;
  spec.node = s.node;
  spec.sysfs_root = s.sysfs_root;
  spec.nics = s.type->nics;
  spec.gpu_pci = s.type->gpu_pci;
  spec.read_timeout_ms = s.health().read_timeout_ms;
  // RoCE rails' ethtool statistics: only the live node's netdevs can be asked.
  if (s.sysfs_root == kLiveSysfs && deps_.open_ethtool) spec.ethtool = deps_.open_ethtool();
  spec.boot_id_file = ExpandNode(s.health().boot_id_file, s.node);
  std::shared_ptr<Verbs> verbs =
      s.sysfs_root == kLiveSysfs && deps_.open_verbs ? deps_.open_verbs() : nullptr;
  NodeFacts facts = Gather(spec, deps_.fs, verbs);
  if (o.mode == Mode::kBaseline) return facts;
  Phase("judging transients");
  ConfirmSpec cs;
  cs.reads = s.health().confirm_reads;
  cs.delay_ms = s.health().confirm_delay_ms;
  cs.read_ms = s.health().read_timeout_ms;
  cs.budget_end = start_ + std::chrono::milliseconds(500 * s.time_limit_seconds);
  ConfirmDeps cd;
  const double now = deps_.now();
  cd.judge = [&](const NodeFacts& f) { return Judge(JudgeInputOf(RunInput{o, s, st, f, now})); };
  cd.reread = [&](const std::vector<int>& rails, bool gpus) {
    GatherSpec again = spec;
    again.nics.clear();
    for (int r : rails) again.nics.push_back(s.type->nics[r]);
    again.gpus = gpus;
    Phase(kReadingPhase);
    NodeFacts f = Gather(again, deps_.fs, verbs);
    Phase("judging transients");
    return f;
  };
  cd.sleep = [this](int ms) {
    Phase("waiting to re-read");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  };
  cd.now = [] { return std::chrono::steady_clock::now(); };
  return ConfirmTransients(std::move(facts), cs, cd, notes);
}

int Run::RecordBaseline(const RunInput& in, RunOutput* out) {
  Phase("recording the baseline");
  const StateFiles& st = in.state;
  const std::string& dir = in.setup.state_dir;
  NodeBaseline b = MakeNodeBaseline(in.facts, in.now);
  RunState next = st.last_status == LoadStatus::kOk ? st.last : RunState();
  next.node = in.setup.node;
  next.time = in.now;
  next.baseline_time = b.time;
  // The counters recorded are this boot's: the next run must not take them for a reboot's.
  next.boot_id = in.facts.boot_id.ok() ? *in.facts.boot_id.value : std::string();
  for (auto& kv : next.ports) kv.second.since_baseline.clear();
  for (auto& kv : next.pcie) kv.second.since_baseline = AerTotals();
  for (const auto& kv : b.ports) next.ports[kv.first].last = kv.second;
  for (const auto& kv : b.pcie) next.pcie[kv.first].last = kv.second;
  RunReport& r = out->report;
  for (const GatherTimeout& t : in.facts.timeouts)
    r.problems.push_back(t.task + ": reading " + t.path + " did not finish within " +
                         std::to_string(t.limit_ms) + " ms; not in the baseline");
  const std::string line = "baseline of " + std::to_string(b.ports.size()) + " ports and " +
                           std::to_string(b.pcie.size()) + " PCIe functions in " +
                           BaselinePath(dir);
  const bool dry = in.options.dry;
  if (!st.baseline_replaced.empty())
    r.actions.push_back((dry ? "replace the " : "replacing the ") + st.baseline_replaced);
  if (dry) {
    r.actions.push_back("record " + line);
  } else {
    std::string err;
    if (!SaveBaseline(dir, b, &err) || !SaveRunState(dir, next, &err)) {
      r.problems.push_back(err);
      return kExitError;
    }
    r.actions.push_back("recorded " + line);
  }
  return r.problems.empty() ? kExitOk : kExitError;
}

// What the checks judge this node with (pure).
JudgeInput JudgeInputOf(const RunInput& in) {
  JudgeInput j;
  j.facts = &in.facts;
  for (const topo::Rail& rail : in.setup.rails->topology.rails) j.rail_links.push_back(rail.link);
  j.nic_pci = in.setup.type->nic_pci;
  j.gpus_expected = in.setup.type->gpus;
  j.config = &in.setup.health();
  j.baseline = in.state.baseline_status == LoadStatus::kOk ? &in.state.baseline : nullptr;
  j.baseline_path = BaselinePath(in.setup.state_dir);
  j.last = in.state.last_status == LoadStatus::kOk ? &in.state.last : nullptr;
  j.now = in.now;
  j.fabric = in.setup.fabric ? &*in.setup.fabric : nullptr;
  return j;
}

Acted Run::Act(const RunInput& in, const Judgement& j, RunReport* r) {
  Phase("talking to slurmctld");
  std::string err;
  std::unique_ptr<SlurmApi> slurm = deps_.open_slurm(&err);
  ActRequest rq;
  rq.node = in.setup.node;
  rq.verdict = &j.verdict;
  rq.next = j.next;
  rq.health = &in.setup.health();
  rq.feature = in.setup.feature();
  rq.now = in.now;
  if (in.options.mode == Mode::kPeriodic)
    rq.options.extra_refresh_seconds = in.setup.health().extra_refresh_seconds;
  rq.dry = in.options.dry;
  rq.pause_before_write = TestPauseFromEnvironment();
  ActResult res = ActOnNode(slurm.get(), rq);
  if (!slurm) res.problems.insert(res.problems.begin(), err);
  Acted a{std::move(res.node), std::move(res.plan), res.ok};
  r->problems.insert(r->problems.end(), res.problems.begin(), res.problems.end());
  r->actions = a.plan.lines;
  r->slurm_reads = res.reads;
  r->slurm_writes = res.writes;
  return a;
}

void Run::WriteEvents(const RunInput& in, const Judgement& j, const Acted& a, RunReport* r) {
  // Only a plan Slurm carried out is history; and without the node's Extra every unhealthy
  // rail would look like a change. A log that cannot be written is a warning: the verdict
  // and the exit code stay what the hardware says.
  Phase("writing the event log");
  const std::vector<wire::HealthEvent> events =
      EventsForRun(a.node, j.verdict, a.plan, j.moves, in.setup.feature(), in.now);
  const std::string log = ExpandNode(in.setup.health().events_log, in.setup.node);
  if (events.empty()) return;
  std::string err;
  if (wire::AppendEvents(log, events, &err)) {
    for (const wire::HealthEvent& e : events) r->events.push_back(EventLabel(e));
    r->events_log = log;
  } else {
    r->warnings.push_back("event log not written: " + err);
  }
}

void Run::RecordState(const RunInput& in, const Acted& a, RunReport* r) {
  Phase("writing the state file");
  // Without Slurm the plan was not carried out: keep the streaks and counts of the last
  // run, but still record the counters so that rates stay right.
  RunState next = a.plan.next;
  const StateFiles& st = in.state;
  if (!a.slurm_ok && st.last_status == LoadStatus::kOk) {
    next.clean_streak = st.last.clean_streak;
    next.drain_free_streak = st.last.drain_free_streak;
    next.feature_held = st.last.feature_held;
    next.drains = st.last.drains;
    next.resumes = st.last.resumes;
  }
  std::string err;
  if (!SaveRunState(in.setup.state_dir, next, &err)) r->problems.push_back(err);
}

// The exit code of a judge-and-act run from its verdict and what acting on it met.
int CheckAndActCode(const Options& o, Level level, const Acted& a, const RunReport& r) {
  int code = ExitCode(level, o.mode);
  // After a job the node needs no requeue: an Epilog that drained the node (or found it
  // drained) succeeds; it fails only when the node should be drained and railcheck could not,
  // so that Slurm drains it itself ("Epilog error").
  if (o.mode == Mode::kEpilog && code == kExitDrain && !o.dry && a.slurm_ok &&
      (a.node.drain || a.plan.update.drain_reason))
    code = kExitOk;
  // Slurm and state problems fail a periodic run (slurmd logs its output then); a Prolog or
  // Epilog keeps the verdict's code, because a failing one makes Slurm drain a node whose
  // hardware is fine.
  if (!r.problems.empty() && !o.dry && !IsHook(o.mode) && code != kExitDrain) code = kExitError;
  return code;
}

int Run::CheckAndAct(const RunInput& in, RunOutput* out) {
  Phase("judging");
  out->judgement = Judge(JudgeInputOf(in));
  const Judgement& j = out->judgement;
  RunReport& r = out->report;
  r.verdict = &j.verdict;
  const Acted a = Act(in, j, &r);
  // Answering for a late gather, nothing else is touched: the disk may be what is stuck.
  if (!in.options.dry && a.slurm_ok && !late_) WriteEvents(in, j, a, &r);
  if (!in.options.dry && !late_) RecordState(in, a, &r);
  return CheckAndActCode(in.options, j.verdict.level, a, r);
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
