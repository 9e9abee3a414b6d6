// SPDX-License-Identifier: GPL-2.0-or-later
// The named checks (nic.present, port.rate, link.flap, pcie.width, ...): pure functions of a
// node's facts, its history (baseline, last run) and the health config, and the judge that
// turns their findings into per-rail status and one verdict for the node. The table of checks
// is check_table.h; the checks live in checks_port.cc, checks_counters.cc, checks_pcie.cc
// and checks_gpu.cc.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "healthcheck/facts.h"
#include "healthcheck/state.h"
#include "topo/model.h"
#include "wire/extra_json.h"

namespace railguard::health {

struct NodeFabric;  // fabric_input.h

// How bad one finding is for its rail.
enum class Severity {
  kNote,      // worth saying, changes nothing (a saturated counter, no baseline)
  kDegraded,  // the rail works below spec (rate, PCIe, error rates, flaps)
  kDown,      // the rail does not work (NIC missing, port down, fatal AER)
};

// A rail's health, in the words of the Extra JSON (wire/extra_json.h); railcheck judges
// kOk, kDegraded or kDown, never kUnknown.
using RailStatus = wire::RailState;

// What railcheck does about the node as a whole: the strongest action of its findings.
enum class Level { kOk, kWarn, kRestrict, kDrain };

const char* SeverityName(Severity s);  // "note", "degraded", "down"
const char* LevelName(Level l);        // "ok", "warn", "restrict", "drain"

// The longest message or reason a finding carries (longer ones are cut, with "...").
inline constexpr size_t kMaxMessageChars = 1000;

// One thing a check found.
struct Finding {
  std::string check;  // its name, e.g. "port.rate"
  int rail = -1;      // the rail it concerns; -1 for the node as a whole
  Severity severity = Severity::kDegraded;
  HealthAction action = HealthAction::kWarn;  // from health.actions (set by Judge)
  // Starts with the check name; says actual versus expected, e.g.
  // "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec (4X NDR)".
  std::string message;
  // The short form for Slurm's node reason, e.g. "rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s".
  // Both are printable ASCII (anything else read from sysfs becomes '?').
  std::string reason;
};

struct RailHealth {
  int rail = 0;
  std::string nic;
  RailStatus status = RailStatus::kOk;
};

struct Verdict {
  Level level = Level::kOk;
  std::vector<RailHealth> rails;  // every rail, in order
  std::vector<Finding> findings;  // strongest action first, then severity, check, rail
  std::vector<std::string> fw;    // per rail: its NIC's fw_ver, "" when unknown (Extra's "fw")
};

// Everything the checks look at. Pointers are borrowed; `baseline` and `last` may be null.
struct JudgeInput {
  const NodeFacts* facts = nullptr;
  std::vector<topo::LinkSpec> rail_links;  // the expected link of each rail
  std::vector<std::string> nic_pci;        // the node type's NIC functions, if it lists them
  int gpus_expected = 0;                   // the node type's GPU count
  const HealthConfig* config = nullptr;
  const NodeBaseline* baseline = nullptr;  // none recorded yet when null
  std::string baseline_path;           // where it is (or would be), for messages
  const RunState* last = nullptr;      // first run when null
  double now = 0;                      // seconds since the epoch
  // Fresh fabric evidence about this node (fabric_input.h); null when none, stale or bad.
  const NodeFabric* fabric = nullptr;
};

// How one counter moved between runs.
struct CounterMove {
  std::string key;                         // "symbol_error" or "hw_counters/<name>"
  uint64_t value = 0;                      // now
  std::optional<uint64_t> last;            // at the last run
  uint64_t since_last = 0;                 // increase since the last run
  bool went_backwards = false;             // value < last: the counters were reset
  std::optional<uint64_t> since_baseline;  // summed increase since the baseline
  bool saturated = false;                  // at the maximum of its width
  int bits = 0;                            // its width, 0 when unknown
  bool rebooted = false;  // the boot id changed since the last run: since_last = value
  // A counter health.link_error_limits judges: its increases inside the longest rate window,
  // this run's included (rate_window.h); empty for the others.
  RateHistory recent;
};

// A rail port's counters and flaps relative to its history.
struct PortMoves {
  int rail = 0;
  std::vector<CounterMove> moves;
  int downs_now = 0;               // flaps seen by this run (link_downed rise or ACTIVE -> not)
  std::string link_downed_change;  // "link_downed 3 -> 5", "" when unchanged
  std::string state_change;        // "state ACTIVE -> DOWN", "" when unchanged
  std::vector<double> flaps;       // flap times inside the window, this run's included
};

// AER totals of one PCI function relative to its history.
struct AerMove {
  std::string kind;  // "correctable", "nonfatal", "fatal"
  uint64_t value = 0;
  std::optional<uint64_t> last;
  uint64_t since_last = 0;
  std::optional<uint64_t> since_baseline;
  std::optional<uint64_t> at_baseline;
  bool rebooted = false;  // the boot id changed since the last run: since_last = value
  // Correctable and non-fatal: the increases inside the longest rate window, this run's
  // included; judge them with OverLimit (rate_window.h). Empty for fatal.
  RateHistory recent;
};

// A PCI function some check judges, with the rail it is charged to.
struct JudgedDevice {
  std::string bdf;
  int rail = -1;
  std::string label;              // "rail3 mlx5_5 0000:5e:00.0", "rail3 gpu3 bridge 0000:5c:00.0"
  std::string short_label;        // "rail3 mlx5_5", "rail3 gpu3": for reasons
  std::vector<std::string> path;  // the path it was found on (endpoint first)
  size_t index = 0;               // its place in `path`
};

// Counter moves, AER moves and the next run state, computed once for all checks.
struct CounterMoves {
  std::vector<PortMoves> ports;                     // rails with readable counters
  std::map<std::string, std::vector<AerMove>> aer;  // by PCI address
  std::vector<JudgedDevice> devices;                // each function once
  double since_last_seconds = 0;                    // 0 on a first run
  double since_baseline_seconds = 0;                // 0 without a baseline
  // "boot_id 1f0c... -> 9a3e..." when the node rebooted since the last run (its counters
  // restarted from zero), "" otherwise or when a boot id is not known.
  std::string boot_change;
  RunState next;  // `last` updated with this run's counters, sums and flaps (streaks not)
};

// Builds the counter and AER moves of `in` since the last run and the baseline (pure; moves.cc).
CounterMoves ComputeCounterMoves(const JudgeInput& in);

// The checks, one function per check of the table (check_table.h), which names them. Each
// appends its findings, severity and message set, action not yet; each reads `in`, and the
// ones that judge moves and flaps read `h` (ComputeCounterMoves(in)).
// checks_port.cc: a rail NIC, its port and its link.
void CheckNicPresent(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPortState(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPortLinkLayer(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPortRate(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckLinkFlap(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
// checks_firmware.cc: the rail NICs' fw_ver and board_id agree.
void CheckNicFirmware(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
// checks_counters.cc: a rail port's error counters.
void CheckLinkErrors(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckLinkCounters(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
// checks_pcie.cc: the PCIe paths of rail NICs and GPUs.
void CheckPcieSpeed(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPcieWidth(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPcieGpuSpeed(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPcieAer(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckPcieAerCorrectable(const JudgeInput& in, const CounterMoves& h,
                             std::vector<Finding>* out);
// checks_fabric.cc: the fabric evidence (in.fabric): the switch end of rail k's link (error
// counters; width or speed), and rail k's leaf with many ports erring (never more than
// restrict: Judge caps fabric.leaf, a leaf fault drains nothing by itself).
void CheckFabricSwitchErrors(const JudgeInput& in, const CounterMoves& h,
                             std::vector<Finding>* out);
void CheckFabricSwitchRate(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckFabricLeaf(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
// checks_gpu.cc: the GPUs, and the gather itself.
void CheckGpuCount(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckRailAffinity(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckGatherTimeout(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);

// checks_eth.cc: RoCE rails (port link_layer Ethernet) and their netdevs.
void CheckEthPresent(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckEthState(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckEthSpeed(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckEthFlap(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckEthErrors(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
void CheckEthCounters(const JudgeInput& in, const CounterMoves& h, std::vector<Finding>* out);
// The run-state key of NIC `nic`'s netdev record ("mlx5_0/eth").
std::string EthRecordKey(const std::string& nic);
// Puts each RoCE rail's netdev record (operstate, carrier_changes, judged ethtool
// statistics, flaps in the window) into `next` under EthRecordKey, for the next run's
// eth.flap and eth.errors (Judge calls it).
void RecordEthState(const JudgeInput& in, RunState* next);

// The judge's result: the verdict, the run state to record, and the counter moves and flaps
// the checks saw (for the event log; its `next` is empty, moved to `next` here).
struct Judgement {
  Verdict verdict;
  RunState next;
  CounterMoves moves;
};

// Runs every check of the table (judge.cc), applies health.actions (findings of "off" checks are
// dropped), orders the findings and derives each rail's status and the node's level.
Judgement Judge(const JudgeInput& in);

// "45 s", "5 min", "3.5 h", "2.0 days".
std::string FormatDuration(double seconds);

}  // namespace railguard::health
