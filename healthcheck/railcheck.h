// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck's command line as a library function: a table of modes (--prolog, --epilog,
// --periodic, baseline), each gather -> judge -> act over injectable sysfs, libibverbs and
// Slurm, so tests run it whole with fakes.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "config/locate.h"
#include "config/slurm_health_check.h"
#include "healthcheck/act.h"
#include "healthcheck/ethtool.h"
#include "healthcheck/sysfs.h"
#include "healthcheck/verbs.h"

namespace railguard::health {

// Exit codes.
constexpr int kExitOk = 0;        // healthy, or warnings only (--prolog/--epilog: also restrict)
constexpr int kExitDrain = 1;     // drain verdict: in --prolog Slurm requeues the job; in
                                  // --epilog only when railcheck could not drain the node
constexpr int kExitUsage = 2;     // bad command line
constexpr int kExitRestrict = 3;  // restrict verdict (--periodic, --dry-run, no mode)
constexpr int kExitError = 4;     // could not judge: config, topology, node, state file, Slurm

// What the process environment says.
struct CliEnv {
  std::string argv0;            // "railcheck-prolog" etc. select a mode (Slurm passes no args)
  std::string slurmd_nodename;  // $SLURMD_NODENAME (Prolog, Epilog, HealthCheckProgram)
  std::string slurm_conf;       // $SLURM_CONF: railguard.yaml is looked for beside it
  std::string slurm_job_id;     // $SLURM_JOB_ID (Prolog, Epilog): whose fabric record it is
  // Without $SLURM_CONF, beside this one: the slurm.conf libslurm reads then
  // (LibslurmDefaultConf(); Debian's default here).
  std::string default_slurm_conf = kDefaultSlurmConf;
  // The node's own railguard.yaml, read when there is none beside the slurm.conf (configless
  // Slurm); tests point it elsewhere.
  std::string node_config = kNodeLocalConfig;
  std::string hostname;         // short host name, the last resort for the node name
  // $SLURM_NODE_IS_HEALTHY as slurmd 26.05 sets it for the HealthCheckProgram: slurmctld's
  // view of the node ("yes"; "no": DOWN, DRAIN, FAIL or MAINT); nullopt when unset.
  std::optional<std::string> node_is_healthy;
};

// What railcheck talks to. Every member must be set but arm_time_limit and set_phase, which
// may be empty.
struct CliDeps {
  std::shared_ptr<const Sysfs> fs;
  // libibverbs for the real sysfs; called only when the sysfs root is "/". May return null.
  std::function<std::shared_ptr<Verbs>()> open_verbs;
  // The ethtool ioctl for RoCE rails; called only when the sysfs root is "/". May be empty
  // or return null: the statistics are then not read.
  std::function<std::shared_ptr<EthtoolIoctl>()> open_ethtool;
  std::function<std::unique_ptr<SlurmApi>(std::string* err)> open_slurm;
  // slurm.conf's HealthCheck* settings (config/slurm_health_check.h) for a --periodic run:
  // false with `*err` when they cannot be read. May be empty (tests): then not asked.
  std::function<bool(SlurmHealthCheck* out, std::string* err)> read_health_check;
  std::function<double()> now;  // wall clock, seconds since the epoch
  // Told the run's hard time limit once the config is read (main() arms a watchdog), and
  // each phase as it starts, so that the watchdog can say what ran out of time.
  std::function<void(int seconds)> arm_time_limit;
  std::function<void(const char* phase)> set_phase;
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  // Gather, judge and act in a child process (isolate.h) that says what it reads: when it is
  // late (a read stuck in the kernel), this process answers Slurm itself with gather.timeout
  // naming the stuck read, and leaves the child behind. main() sets it; tests that look at
  // the fake Slurm after a whole run leave it off (the child's updates stay in the child).
  bool gather_in_child = false;
};

// Runs railcheck with `args` (argv without argv[0]) and returns its exit code. Never throws.
int RunRailcheck(const std::vector<std::string>& args, const CliEnv& env, const CliDeps& deps);

// The usage text (--help); `default_slurm_conf` is CliEnv::default_slurm_conf (named in
// --config's default).
std::string RailcheckUsage(const std::string& default_slurm_conf = kDefaultSlurmConf);

// `templ` with every "%n" replaced by `node`.
std::string ExpandNode(const std::string& templ, const std::string& node);

}  // namespace railguard::health
