// SPDX-License-Identifier: GPL-2.0-or-later
// The node's per-rail health that railcheck publishes in Slurm's Extra field, its writer
// and its one reader:
// {"railcheck":{"time":T,"verdict":"drain|restrict|warn|ok","rails":["ok","degraded",...],
//  "failed":["rail3:port.rate","node:gpu.count"],"fw":["28.39.1002",...],"healthy":B,
//  "would":["drain","requeue"],"budget":"over"}} (other top-level keys are someone else's;
// "fw", "healthy", "would" and "budget" are optional).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace railguard::wire {

// The health of one rail of one node. railcheck judges ok, degraded or down; kUnknown is
// only for readers (a node without a usable report) and is never written.
enum class RailState { kOk, kDegraded, kDown, kUnknown };

// "ok", "degraded", "down", "unknown".
const char* RailStateName(RailState s);

// One failed check of the "failed" list.
struct FailedCheck {
  int rail = -1;      // -1: the node as a whole ("node:gpu.count")
  std::string check;  // "port.rate"
};

// What railcheck publishes.
struct RailcheckExtra {
  double time = 0;               // when railcheck judged (seconds since the epoch)
  std::string verdict;           // "drain", "restrict", "warn" or "ok"
  std::vector<RailState> rails;  // rail k's state; never kUnknown
  std::vector<FailedCheck> failed;
  // Whether railcheck gives the node the healthy feature after this run (it withholds it
  // for resume_after_clean_runs clean runs after a fault). Optional in what is read: older
  // railchecks do not write it. job_submit/rail's feature keeper restores the feature from
  // it after slurmctld drops run-time features.
  std::optional<bool> healthy;
  // "fw": the fw_ver of rail k's NIC ("" when unknown), for the fleet's firmware in
  // `railctl report`; written only when one is known, optional for readers (older railchecks
  // do not write it). Each at most kMaxExtraFwChars printable ASCII characters.
  std::vector<std::string> fw;
  // "would": in observe mode (health.mode: observe) what railcheck would have done in
  // enforce mode and did not: kWouldActions words in that order. Written (an array, maybe
  // empty) only in observe mode; absent = enforce (older railchecks do not write it).
  std::optional<std::vector<std::string>> would;
  // "budget":"over": the node's finding would take it out of multi-node jobs, but the drain
  // budget (healthcheck/budget.h) is spent: it stays in service. Absent otherwise.
  bool over_budget = false;
};

// The words of "would", in the order they are written: drain (the node), restrict (take the
// healthy feature away: single-node jobs only), requeue (fail the Prolog: Slurm requeues the
// job), resume (a node railcheck drained before observe mode).
inline constexpr const char* kWouldActions[] = {"drain", "restrict", "requeue", "resume"};

// The longest "fw" entry the strict reader accepts (IB_FW_VERSION_NAME_MAX, ib_verbs.h).
constexpr size_t kMaxExtraFwChars = 64;

// The most rails and failed entries the strict reader accepts in one Extra value.
constexpr size_t kMaxExtraRails = 64;
constexpr size_t kMaxExtraFailed = 256;
constexpr size_t kMaxExtraBytes = 64 * 1024;

enum class ExtraStatus {
  kNone,   // Extra is empty, or a JSON object without a "railcheck" key
  kOk,     // `*out` holds railcheck's report
  kError,  // strict only: `*err` says what is wrong, with the column inside Extra and the
           // expected form
};

enum class ExtraReadMode {
  // The report's reading: every field checked; text that is not a JSON object is an error
  // (railcheck only ever writes an object there and never overwrites other text).
  kStrict,
  // railcheck's reading of what it published last time: only "rails" matters; Extra that
  // is not such an object is kNone (never kError), and a rail word other than "degraded"
  // or "down" reads as ok. `time`, `verdict` and `failed` are left empty.
  kLenient,
};

// Reads `extra` in `mode`. `*out` is reset first.
ExtraStatus ReadExtra(const std::string& extra, ExtraReadMode mode, RailcheckExtra* out,
                      std::string* err);

// Extra with `mine` under "railcheck", as compact JSON with keys sorted: time (whole seconds,
// rounded down), verdict, rails, failed (each "railN:check" or "node:check" once, in order).
// When `current` already holds a JSON object its other keys are kept; when it holds other
// text nullopt is returned (railcheck does not overwrite what someone else put there).
std::optional<std::string> WriteExtra(const RailcheckExtra& mine, const std::string& current);

}  // namespace railguard::wire
