// SPDX-License-Identifier: GPL-2.0-or-later
// One run, phase by phase: options (railcheck_cli), setup and state files (railcheck_setup),
// gather (railcheck_gather, here or in a child process), then the mode's handler (judge and
// act: railcheck_judge_act; or record the baseline: railcheck_baseline), then the report.
#include "healthcheck/railcheck.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "healthcheck/isolate.h"
#include "healthcheck/railcheck_cli.h"
#include "healthcheck/railcheck_gather.h"
#include "healthcheck/railcheck_run.h"
#include "healthcheck/railcheck_setup.h"

namespace railguard::health {
namespace {

// What the parent keeps of a run's time limit for answering a late child itself.
int LateReserveMs(int limit_ms) { return std::max(250, std::min(3000, limit_ms / 4)); }

int Fail(const RunContext& ctx, std::string msg) {
  while (!msg.empty() && msg.back() == '\n') msg.pop_back();
  *ctx.deps.err << "railcheck: " << msg << "\n";
  return kExitError;
}

// Prints the report with exit code `code` and returns it.
int Finish(const RunContext& ctx, RunReport* r, int code, bool as_json) {
  r->exit_code = code;
  r->total_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - ctx.start)
          .count();
  *ctx.deps.out << (as_json ? ReportJson(*r) : ReportText(*r));
  return code;
}

// Gathers (or takes `*late_facts`), then runs the mode's handler and prints the report.
int GatherJudgeAct(const RunContext& ctx, const Options& o, const Setup& setup,
                   const StateFiles& state, const NodeFacts* late_facts) {
  std::vector<std::string> notes;
  const NodeFacts facts = late_facts ? *late_facts : GatherFacts(ctx, o, setup, state, &notes);
  const RunInput in{o, setup, state, facts, ctx.deps.now()};

  RunOutput out;
  RunReport& r = out.report;
  r.node = setup.node;
  r.mode = ModeEntryOf(o.mode).name;
  r.dry_run = o.dry;
  r.facts = &facts;
  r.gpus_expected = setup.type->gpus;
  r.warnings = ctx.warnings;
  r.warnings.insert(r.warnings.end(), notes.begin(), notes.end());
  if (!setup.fabric_note.empty()) r.warnings.push_back(setup.fabric_note);
  r.warnings.insert(r.warnings.end(), setup.slurm_notes.begin(), setup.slurm_notes.end());
  const int code = ModeEntryOf(o.mode).handler(ctx, in, &out);
  return Finish(ctx, &r, code, o.json);
}

// GatherJudgeAct in a child process (CliDeps::gather_in_child); a late child is answered
// for here.
int GatherInChild(RunContext& ctx, const Options& o, const Setup& s, const StateFiles& st) {
  const CliDeps& deps = ctx.deps;
  const int limit_ms = 1000 * s.time_limit_seconds;
  ChildLimits limits;
  limits.deadline = ctx.start + std::chrono::milliseconds(limit_ms - LateReserveMs(limit_ms));
  limits.bounded_phase = kReadingPhase;
  limits.bounded_phase_ms = s.health().read_timeout_ms + kReadingGraceMs;
  ctx.Phase("gathering in a child process");
  const ChildOutcome c = RunInChild(
      [&](ChildReporter& rep, std::string* out, std::string* err) {
        std::ostringstream os;
        std::ostringstream es;
        CliDeps d = deps;
        d.fs = std::make_shared<ReportingSysfs>(deps.fs, &rep);
        d.open_verbs = [&deps, &rep]() -> std::shared_ptr<Verbs> {
          const uint64_t t = rep.ReadBegin("libibverbs' device list");
          std::shared_ptr<Verbs> v = deps.open_verbs ? deps.open_verbs() : nullptr;
          rep.ReadEnd(t);
          return v ? std::make_shared<ReportingVerbs>(v, &rep) : nullptr;
        };
        d.set_phase = [&rep](const char* p) { rep.Phase(p); };
        d.arm_time_limit = nullptr;
        d.out = &os;
        d.err = &es;
        d.gather_in_child = false;
        RunContext child{ctx.env, d, ctx.start};
        const int code = GatherJudgeAct(child, o, s, st, nullptr);
        *out = os.str();
        *err = es.str();
        return code;
      },
      limits);
  if (c.finished) {
    *deps.out << c.out;
    *deps.err << c.err;
    return c.code;
  }
  if (!c.started) {
    ctx.warnings.push_back("gathered in this process: " + c.why);
    return GatherJudgeAct(ctx, o, s, st, nullptr);
  }
  const std::string pid = std::to_string(c.pid);
  const std::string where = c.phase.empty() ? "starting" : c.phase;
  // A read still in flight is what holds the child (the run went on past it or not).
  if (c.stuck.empty() || o.mode == Mode::kBaseline)
    return Fail(ctx, "the run's child process " + pid + " " + c.why + " while " + where +
                         (c.reaped ? "" : "; left behind"));
  ctx.Phase("answering for the late gather");
  ctx.late = true;
  ctx.warnings.push_back(
      "the gather (process " + pid + ") " + c.why + "; answered without it" +
      (c.reaped ? std::string() : " and left it behind (killed once its stuck read returns)"));
  if (c.stuck.size() > 1) {
    std::string others;
    for (size_t i = 1; i < c.stuck.size() && i < 4; ++i)
      others += (i > 1 ? ", " : "") + c.stuck[i].what;
    ctx.warnings.push_back(std::to_string(c.stuck.size() - 1) +
                           " later read(s) were in flight too: " + others +
                           (c.stuck.size() > 4 ? ", ..." : ""));
  }
  ctx.warnings.push_back(
      "rails it had not read are not judged in this run; the state file and the event log "
      "are left as they were");
  const NodeFacts facts =
      FactsOfLateChild(c, s.node, s.sysfs_root, s.type->nics, s.health().read_timeout_ms);
  return GatherJudgeAct(ctx, o, s, st, &facts);
}

int Main(RunContext& ctx, const std::vector<std::string>& args) {
  Options o;
  if (const int code = ParseOptions(ctx, args, &o); code >= 0) return code;
  Setup setup;
  StateFiles state;
  std::string err;
  if (!LoadSetup(ctx, o, &setup, &err) || !LoadState(ctx, o, setup, &state, &err))
    return Fail(ctx, err);
  if (ctx.deps.gather_in_child) return GatherInChild(ctx, o, setup, state);
  return GatherJudgeAct(ctx, o, setup, state, nullptr);
}

}  // namespace

int RunRailcheck(const std::vector<std::string>& args, const CliEnv& env, const CliDeps& deps) {
  try {
    RunContext ctx{env, deps};
    return Main(ctx, args);
  } catch (const std::exception& e) {
    *deps.err << "railcheck: internal error: " << e.what() << "\n";
    return kExitError;
  }
}

}  // namespace railguard::health
