// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck's records between runs: the commissioning baseline of every port's counters and
// the run state (last counters, sums since the baseline, flaps, clean-run streaks), with
// their JSON files.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace railguard::health {

// AER error totals of one PCI function (TOTAL_ERR_* of each aer_dev_* file it has).
struct AerTotals {
  std::optional<uint64_t> correctable;
  std::optional<uint64_t> nonfatal;
  std::optional<uint64_t> fatal;
};

// Readable counters of one port at one moment; "N/A" and malformed counters are left out.
struct PortCounters {
  std::map<std::string, uint64_t> counters;
  std::map<std::string, uint64_t> hw_counters;
};

// baseline.json: what `railcheck baseline` recorded at commissioning.
struct NodeBaseline {
  std::string node;
  double time = 0;                            // seconds since the epoch
  std::map<std::string, PortCounters> ports;  // by NIC name
  std::map<std::string, AerTotals> pcie;      // by PCI address
  // The kernel's boot id when it was recorded; "" = not known (or an older file). AER
  // totals count from boot: after a reboot the recorded ones no longer apply.
  std::string boot_id;
};

// One increase of a judged counter, as the run that saw it recorded it: `count` more between
// `from` (the run before) and `to` (that run). Runs close together share one sample
// (rate_window.h says how), so a history stays small.
struct RateSample {
  double from = 0;
  double to = 0;
  uint64_t count = 0;
};

// The increases of one counter inside the longest of health.rate_windows_seconds, oldest
// first; runs that saw no increase leave no sample.
using RateHistory = std::vector<RateSample>;

// What one port looked like at the last run, and its history.
struct PortRecord {
  std::string state;  // state name at the last run ("ACTIVE"); "" when unknown
  PortCounters last;  // counter values at the last run
  // Increase of each counter since the baseline, summed run by run so that counter resets
  // (reboots) do not lose it. Keys: counter name, or "hw_counters/<name>".
  std::map<std::string, uint64_t> since_baseline;
  std::vector<double> flaps;  // times of flaps still inside flap_window_seconds
  // The recent increases of each counter health.link_error_limits judges (keys as above),
  // which link.errors judges over health.rate_windows_seconds. Absent in files written
  // before railcheck kept it (read as empty).
  std::map<std::string, RateHistory> recent;
};

// What one PCI function's AER totals were at the last run.
struct PcieRecord {
  AerTotals last;
  AerTotals since_baseline;
  // Recent increases of the "correctable" and "nonfatal" totals (as PortRecord::recent).
  std::map<std::string, RateHistory> recent;
};

// state.json: carried from run to run.
struct RunState {
  std::string node;
  double time = 0;            // when the last run judged; 0 = never
  long long runs = 0;         // runs recorded
  long long drains = 0;       // times railcheck drained this node
  long long resumes = 0;      // times railcheck resumed it
  int clean_streak = 0;       // consecutive runs without a drain or restrict finding
  int drain_free_streak = 0;  // consecutive runs without a drain finding
  bool feature_held = false;  // railcheck removed the healthy feature and has not restored it
  double baseline_time = 0;   // the baseline `since_baseline` counts from; 0 = none
  // The kernel's boot id (/proc/sys/kernel/random/boot_id) at the last run; "" = not known
  // (unreadable, or a file written before railcheck kept it). Another boot id now means the
  // node rebooted and its counters count from zero again.
  std::string boot_id;
  // The health railcheck's Extra held in slurmctld after the last run that read the node and
  // carried out its plan (act.h Plan::health), and the time in that Extra; "" and 0 when not
  // known (that run could not, or a file written before railcheck kept them).
  std::string published_health;
  double published_time = 0;
  std::map<std::string, PortRecord> ports;  // by NIC name
  std::map<std::string, PcieRecord> pcie;   // by PCI address
};

// JSON text of each record (one object, keys in a fixed order, ending in a newline).
std::string BaselineToJson(const NodeBaseline& b);
std::string RunStateToJson(const RunState& s);

// Parses the text of a baseline / state file named `file`. On failure returns false with
// `*err` = "FILE: where: what was found; expected what" (JSON syntax errors with line and
// column). Values are checked: counters non-negative integers, times numbers, and so on.
bool BaselineFromJson(const std::string& text, const std::string& file, NodeBaseline* out,
                      std::string* err);
bool RunStateFromJson(const std::string& text, const std::string& file, RunState* out,
                      std::string* err);

// The files in a node's state folder.
std::string BaselinePath(const std::string& state_dir);
std::string RunStatePath(const std::string& state_dir);

// kCorrupt: the file is a regular file railcheck may read but not what it writes (cut short,
// not JSON, wrong values): replacing it is the way out. kError: anything else that stops a
// run (a symlink or FIFO where the file goes, a record of another node, an I/O error).
enum class LoadStatus { kOk, kMissing, kCorrupt, kError };

// Reads and parses the node's baseline / run state. kMissing when there is none yet. On
// kCorrupt and kError `*err` says what is wrong and how to recover (re-record the baseline;
// delete the run state). A record of another node is an error: every node needs its own
// folder.
LoadStatus LoadBaseline(const std::string& state_dir, const std::string& node, NodeBaseline* out,
                        std::string* err);
LoadStatus LoadRunState(const std::string& state_dir, const std::string& node, RunState* out,
                        std::string* err);

// Writes them atomically (state_file.h). False with `*err`.
bool SaveBaseline(const std::string& state_dir, const NodeBaseline& b, std::string* err);
bool SaveRunState(const std::string& state_dir, const RunState& s, std::string* err);

}  // namespace railguard::health
