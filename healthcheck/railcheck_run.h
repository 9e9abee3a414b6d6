// SPDX-License-Identifier: GPL-2.0-or-later
// The types of one railcheck run, shared by its phases (railcheck_cli, railcheck_setup,
// railcheck_gather, railcheck_judge_act, railcheck_baseline) and the orchestration in
// railcheck.cc: the mode, the options, the setup, the state files, and the run's context.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/load.h"
#include "healthcheck/checks.h"
#include "healthcheck/fabric_input.h"
#include "healthcheck/facts.h"
#include "healthcheck/railcheck.h"
#include "healthcheck/report.h"
#include "healthcheck/state.h"
#include "healthcheck/state_file.h"

namespace railguard::health {

// Where the running kernel mounts sysfs: the only root at which libibverbs and the ethtool
// ioctl describe the same devices as the files read.
inline constexpr char kLiveSysfs[] = "/sys";

// What a run does: judge and act (after a job, before one, or periodically), or record the
// commissioning baseline.
enum class Mode { kPeriodic, kProlog, kEpilog, kBaseline };

// True for the modes Slurm runs around a job (Prolog, Epilog), whose failure drains the node.
inline bool IsHook(Mode m) { return m == Mode::kProlog || m == Mode::kEpilog; }

// What the command line asks for.
struct Options {
  Mode mode = Mode::kPeriodic;
  bool dry = false;
  bool json = false;
  std::string config_path;                // --config; FindConfig() finds it without
  std::string config_missing;             // when it found none: where it looked (the error)
  std::string node;                       // --node, else $SLURMD_NODENAME; may be ""
  std::optional<std::string> sysfs_root;  // --sysfs-root
};

// The configuration, the node and where its files are.
struct Setup {
  std::shared_ptr<const RailSetup> rails;
  std::string node;
  const topo::NodeType* type = nullptr;  // the node's type in rails->topology; never null
  std::string sysfs_root;
  std::string state_dir;
  int time_limit_seconds = 0;        // the mode's hard limit
  std::optional<NodeFabric> fabric;  // fresh fabric evidence (health.fabric_evidence)
  std::string fabric_note;           // why evidence there was not used, or ""
  std::vector<std::string> slurm_notes;  // what slurm.conf's HealthCheck* settings mean here

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

// What every phase of one run works in: the process environment, what the run talks to,
// when it started, and what the orchestration learned on the way.
struct RunContext {
  // A run started at `started`; `env` and `deps` must outlive it.
  RunContext(const CliEnv& env, const CliDeps& deps,
             std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now())
      : env(env), deps(deps), start(started) {}

  const CliEnv& env;
  const CliDeps& deps;
  std::chrono::steady_clock::time_point start;
  bool late = false;                  // answering for a late gather child: no files written
  std::vector<std::string> warnings;  // for the report

  // Tells CliDeps::set_phase, when set, that phase `p` starts (`p` must outlive the run).
  void Phase(const char* p) const {
    if (deps.set_phase) deps.set_phase(p);
  }
};

// A mode's work once the facts are in: fills `*out` and returns the exit code.
using ModeHandler = int (*)(const RunContext& ctx, const RunInput& in, RunOutput* out);

}  // namespace railguard::health
