// SPDX-License-Identifier: GPL-2.0-or-later
// The schema of railguard.yaml (placement: and health:), its defaults and ranges; loaded by
// config/load.h, found by config/locate.h.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"

namespace railguard {

// How a multi-node job is kept inside scalable units (SUs).
enum class PlacementMode {
  kStrict,  // fewest SUs that hold the job; Slurm waits the full bound for them
  kPrefer,  // the same SUs, but Slurm waits a quarter of the bound before spreading
  kOff,     // the job is left as submitted
};

// "strict", "prefer" or "off".
const char* PlacementModeName(PlacementMode mode);

// Parses "strict", "prefer" or "off" (exact, lower case). Returns false for anything else;
// `*out` is then unchanged.
bool ParsePlacementMode(std::string_view text, PlacementMode* out);

// The `placement:` section. Every field has its default here and nowhere else.
struct PlacementConfig {
  // When the job names no mode. strict: one-SU placement for every job that fits one SU is
  // the point of railguard, and the wait stays bounded (wait_max_seconds, max_switch_wait).
  PlacementMode default_mode = PlacementMode::kStrict;
  std::string healthy_feature = "rail_healthy";  // node feature the health checks maintain
  // How long Slurm may hold a job for its SUs (wait4switch): base + per_node * nodes, at most
  // max. The defaults give 2 nodes 70 s, 8 nodes 100 s, 32 nodes 220 s, 48 and more 300 s,
  // and never exceed Slurm's own default max_switch_wait (300 s).
  int wait_base_seconds = 60;
  int wait_per_node_seconds = 5;
  int wait_max_seconds = 300;
  // Most SUs one job may span unless it says otherwise (--rail-max-sus); 0 = no limit.
  int max_sus_default = 0;
};

// Ranges the loader accepts, for messages and for the SPANK option check.
constexpr int kMaxWaitBaseSeconds = 86400;
constexpr int kMaxWaitPerNodeSeconds = 3600;
constexpr int kMaxWaitMaxSeconds = 604800;
constexpr int kMaxSusLimit = 4096;

// --- health: the `health:` section, read by railcheck (healthcheck/) ------------------------

// What railcheck does about the findings of one named check.
enum class HealthAction {
  kDrain,     // drain the node (reason "railcheck: ..."); it also loses the healthy feature
  kRestrict,  // the node loses the healthy feature: single-node jobs only, not drained
  kWarn,      // reported (output, the node's Extra field), nothing else
  kOff,       // the check is not judged at all
};

// "drain", "restrict", "warn" or "off".
const char* HealthActionName(HealthAction action);

// Parses "drain", "restrict", "warn" or "off" (exact, lower case). Returns false for anything
// else; `*out` is then unchanged.
bool ParseHealthAction(std::string_view text, HealthAction* out);

// InfiniBand PortCounters error counters (sysfs ports/N/counters/<name>) that
// health.link_error_limits may name. link_downed is not among them: link.flap judges it.
const std::vector<std::string>& LinkErrorCounterNames();

// One check a caller runs (railcheck's check table): its name, a key of health.actions, and
// the action its findings get unless health.actions says otherwise.
struct CheckInfo {
  std::string name;
  HealthAction default_action = HealthAction::kDrain;
};

// The checks of a caller, in report order. The loader validates health.actions against it.
using CheckCatalog = std::vector<CheckInfo>;

// Name -> default action of every check of `checks`.
std::map<std::string, HealthAction> DefaultActions(const CheckCatalog& checks);

// The names of `checks`, in their order.
std::vector<std::string> CheckNames(const CheckCatalog& checks);

// The `health:` section. Every field has its default here (or in DefaultLinkErrorLimits()
// and the caller's CheckCatalog) and nowhere else.
// Whether railguard acts on what railcheck finds (health.mode).
enum class HealthMode {
  kEnforce,  // drain, restrict and requeue as the actions say
  kObserve,  // judge, record and report what would be done; change nothing in Slurm
};

// "enforce" or "observe".
const char* HealthModeName(HealthMode mode);

struct HealthConfig {
  // enforce, or observe: railcheck judges and records every run (state file, event log, the
  // node's Extra with what it would do), but drains, resumes, restricts and requeues nothing;
  // job_submit/rail does not require the healthy feature and its keeper leaves features
  // alone. Sites start in observe and switch to enforce with this one line.
  HealthMode mode = HealthMode::kEnforce;
  // The drain budget: the most nodes railcheck keeps out of multi-node jobs at one time
  // (drained with a railcheck: reason, or restricted: its Extra says not healthy), cluster
  // wide: `drain_budget_nodes` nodes when > 0, else `drain_budget_percent` percent of the
  // rail topology's nodes, rounded down, at least kMinPercentDrainBudget (so that the default
  // does not stop a small cluster at its first fault). A node whose finding would take it out
  // beyond the budget is recorded and reported, and stays in service (healthcheck/budget.h).
  // railguard.yaml: `drain_budget: 16` or `drain_budget: 5%`.
  int drain_budget_nodes = 0;
  int drain_budget_percent = 5;
  // Where sysfs is mounted. "%n" in it becomes the node name (test clusters give every node
  // its own tree). Absolute.
  std::string sysfs_root = "/sys";
  // Folder of railcheck's state files (baseline.json, state.json); "%n" as above. Absolute.
  std::string state_dir = "/var/lib/railguard/health";
  // The health event log railcheck appends to and `railctl report` reads (format:
  // wire/event_log.h, whose kDefaultEventLogPath this default equals); "%n" as above,
  // for a log per node on a shared folder. Absolute.
  std::string events_log = "/var/lib/railguard/events.log";
  // The job fabric log the Epilog appends each job's per-rail record to and `railctl job`
  // reads (format: wire/job_log.h, whose kDefaultJobLogPath this default equals); "%n" as
  // above. Absolute.
  std::string job_log = "/var/lib/railguard/jobs.log";
  // Where jobs leave their own numbers for `railctl job` (report/job_apps.h: nccl-tests
  // output, NCCL Inspector logs, a step-time file), "%j" the job id; usually on a shared
  // file system, e.g. /shared/railguard/apps/%j. "" = none. Absolute. Read by railctl only.
  std::string job_app_dir;
  // The link_layer every rail port must have: "InfiniBand" or "Ethernet" (RoCE).
  std::string link_layer = "InfiniBand";
  // A node railcheck drained (or took the healthy feature from) gets it back after this many
  // consecutive runs without a finding at that level: hysteresis against flapping links.
  int resume_after_clean_runs = 3;
  // A rise of link_downed, or a port state change between runs, keeps link.flap failing for
  // this long; 0 = only in the run that saw it.
  int flap_window_seconds = 3600;
  // Error rates (per hour) are computed over at least this interval, so that two runs a few
  // seconds apart do not turn one error into thousands per hour: with an hour, runs less
  // than an hour apart compare their plain increase with the per-hour limit.
  int min_rate_interval_seconds = 3600;
  // Every sysfs read of one run must be done within this; a read still pending then is
  // reported by check gather.timeout, naming the file.
  int read_timeout_ms = 500;
  // Hard limit on a whole --prolog/--epilog run, Slurm calls included.
  int prolog_time_limit_seconds = 10;
  // Hard limit on a --periodic (HealthCheckProgram) or admin run. Slurm kills a
  // HealthCheckProgram after 60 s, so at most 59.
  int periodic_time_limit_seconds = 50;
  // A finding of port.state, port.rate or gather.timeout (what can pass in a moment: a link
  // in LinkErrorRecovery, a slow driver read) counts only when its rail still fails after up
  // to this many re-reads (0: counted at once), each after confirm_delay_ms; re-reads stop
  // at half the run's time limit.
  int confirm_reads = 2;
  int confirm_delay_ms = 250;
  // Check name -> what its findings do. Loaded with a CheckCatalog: one entry per check of
  // the catalog, its default action unless health.actions names another. Loaded without one
  // (the Slurm plugins, which run no checks): only the checks health.actions names.
  // Default-constructed: empty. A check with no entry gets the default action of railcheck's
  // check table (healthcheck/check_table.h), which is also the catalog railcheck loads with.
  std::map<std::string, HealthAction> actions;
  // Error counter -> the most increase per hour (since the baseline and since the last run)
  // before link.errors fails. A port counter of LinkErrorCounterNames(), or
  // "hw_counters/<name>" for a driver counter in ports/N/hw_counters. Counters not listed
  // are not judged.
  std::map<std::string, long long> link_error_limits;
  // PCIe AER: the most correctable (pcie.aer_correctable) and non-fatal (pcie.aer) errors
  // per hour per device; any fatal error above the baseline fails pcie.aer.
  long long aer_correctable_per_hour = 100;
  long long aer_nonfatal_per_hour = 0;
  // RoCE rails (link_layer Ethernet): ethtool statistic of the rail's netdev -> the most
  // increase per hour since the last run before eth.errors fails (rates over at least
  // min_rate_interval_seconds). Statistics not listed are not judged. Defaults: the mlx5
  // physical-layer error counters that count errors FEC did not correct, at the limit
  // link_error_limits gives the IB symbol_error and port_rcv_errors (ibcheckerrors: 10).
  std::map<std::string, long long> eth_error_limits = {
      {"rx_symbol_err_phy", 10}, {"rx_pcs_symbol_err_phy", 10}, {"rx_crc_errors_phy", 10}};
  // The sliding windows error rates are judged over (link.errors; AER through
  // healthcheck/rate_window.h), shortest first: a counter fails when its increase inside a
  // window, averaged over the window, is above its per-hour limit. A limit of 0 (any
  // increase) is judged over the shortest window only. The run state keeps the increases
  // of the longest one.
  std::vector<int> rate_windows_seconds = {3600, 86400};
  // The kernel's boot id, read each run: another value than at the last run means the node
  // rebooted, so its counters count from zero again. "%n" as above. Absolute.
  std::string boot_id_file = "/proc/sys/kernel/random/boot_id";
  // Extra holds the node's health, not a run time: railcheck rewrites it when the health
  // (verdict, rails, failed checks) changes, and a --periodic run (never a Prolog or Epilog)
  // also when what is there was published this many seconds ago or more, so that `railctl
  // report` (stale after 2 h) can tell a node whose railcheck stopped; 0 = never.
  int extra_refresh_seconds = 3600;
  // Fabric evidence (wire/fabric_evidence.h, written by `railctl fabric-evidence` from a
  // fabric sweep): a switch-side problem on rail k counts like a host-side failure of rail k
  // (checks fabric.switch_errors, fabric.switch_rate), a leaf fault restricts every node of
  // its SU (fabric.leaf). "" = none read. Absolute; "%n" as above.
  std::string fabric_evidence;
  // Evidence whose sweep is older than this (or from the future by more than it) is stale:
  // ignored, never drains. Missing evidence is ignored the same way.
  int fabric_evidence_max_age_seconds = 1800;

  HealthConfig();
};

// The default per-hour limits (sources in etc/railguard.yaml): symbol_error 120, the IBTA
// 1e-12 bit error rate bound as NVSentinel applies it; local_link_integrity_errors and
// excessive_buffer_overrun_errors 0 (any increase), as NVSentinel treats them; the others
// ibcheckerrors' default thresholds (10 for link_error_recovery and port_rcv_errors, 100
// for the rest), applied per hour.
std::map<std::string, long long> DefaultLinkErrorLimits();

// Limits the loader accepts.
constexpr int kMaxResumeAfterCleanRuns = 1000;
constexpr int kMaxDrainBudgetNodes = 1000000;
// The smallest budget a percentage gives (5% of a 32-node cluster would be 1 node); a count
// (`drain_budget: 1`) may be smaller.
constexpr int kMinPercentDrainBudget = 4;
constexpr int kMaxFlapWindowSeconds = 7 * 86400;
constexpr int kMaxMinRateIntervalSeconds = 86400;
constexpr int kMaxReadTimeoutMs = 60000;
constexpr int kMaxConfirmReads = 10;
constexpr int kMaxConfirmDelayMs = 10000;
constexpr int kMaxPrologTimeLimitSeconds = 300;
constexpr int kMaxPeriodicTimeLimitSeconds = 59;
constexpr int kMaxFabricEvidenceMaxAgeSeconds = 7 * 86400;
constexpr int kMaxExtraRefreshSeconds = 7 * 86400;
constexpr long long kMaxErrorLimitPerHour = 1000000000000LL;
constexpr int kMinRateWindowSeconds = 60;
constexpr int kMaxRateWindowSeconds = 7 * 86400;
constexpr size_t kMaxRateWindows = 4;

// A loaded railguard.yaml.
struct Config {
  std::string path;           // the file it came from, as given
  std::string topology_path;  // the rail topology YAML; relative values resolved against
                              // the folder of `path`
  PlacementConfig placement;
  HealthConfig health;
};

// The folder part of `path` with its trailing '/', or "" when `path` has no '/'.
std::string DirName(const std::string& path);

}  // namespace railguard
