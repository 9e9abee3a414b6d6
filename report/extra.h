// Reading railcheck's per-rail health from a node's Slurm Extra field:
// {"railcheck":{"time":T,"verdict":"drain|restrict|warn|ok","rails":["ok","degraded",...],
//  "failed":["rail3:port.rate","node:gpu.count"]}} (other top-level keys are someone else's).
#pragma once

#include <string>
#include <vector>

namespace railguard::report {

// The health of one rail of one node.
enum class RailState { kOk, kDegraded, kDown, kUnknown };

// "ok", "degraded", "down", "unknown".
const char* RailStateName(RailState s);

// One failed check of the Extra "failed" list.
struct FailedCheck {
  int rail = -1;      // -1: the node as a whole ("node:gpu.count")
  std::string check;  // "port.rate"
};

// What railcheck published.
struct RailcheckExtra {
  double time = 0;               // when railcheck judged (seconds since the epoch)
  std::string verdict;           // "drain", "restrict", "warn" or "ok"
  std::vector<RailState> rails;  // rail k's state; never kUnknown
  std::vector<FailedCheck> failed;
};

// The most rails and failed entries accepted in one Extra value.
constexpr size_t kMaxExtraRails = 64;
constexpr size_t kMaxExtraFailed = 256;
constexpr size_t kMaxExtraBytes = 64 * 1024;

enum class ExtraStatus {
  kNone,   // Extra is empty, or a JSON object without a "railcheck" key
  kOk,     // `*out` holds railcheck's report
  kError,  // `*err` says what is wrong, with the column inside Extra and the expected form
};

// Parses `extra`. Text that is not a JSON object is an error (railcheck only ever writes an
// object there and never overwrites other text, so such a node has no railcheck report).
ExtraStatus ParseRailcheckExtra(const std::string& extra, RailcheckExtra* out, std::string* err);

}  // namespace railguard::report
