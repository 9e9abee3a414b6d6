// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/job_options.h"

namespace railguard::plugin {
namespace {

// A value the job brought, as it may appear in a message: the user sees it and slurmctld logs
// it, so control characters (a newline would forge a log line) become '?' and it is cut.
std::string Quoted(std::string_view value) {
  constexpr size_t kMax = 40;
  std::string out;
  for (size_t i = 0; i < value.size() && i < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    out += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (value.size() > kMax) out += "...";
  return "'" + out + "'";
}

}  // namespace

bool ParsePlacementOption(std::string_view value, PlacementMode* out, std::string* err) {
  if (ParsePlacementMode(value, out)) return true;
  *err = "invalid --rail-placement value " + Quoted(value) + "; expected strict, prefer or off";
  return false;
}

bool ParseMaxSusOption(std::string_view value, int* out, std::string* err) {
  // Digits only: no sign, no spaces, no suffix; leading zeros are harmless.
  long n = 0;
  bool ok = !value.empty() && value.size() <= 9;
  // Stops at once on a value too long, before n could overflow.
  for (size_t i = 0; ok && i < value.size(); ++i) {
    const char c = value[i];
    if (c < '0' || c > '9') {
      ok = false;
      break;
    }
    n = n * 10 + (c - '0');
  }
  if (!ok || n < 1 || n > kMaxSusOption) {
    *err = "invalid --rail-max-sus value " + Quoted(value) +
           "; expected a whole number from 1 to " + std::to_string(kMaxSusOption);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

bool ParseHetjobOption(std::string_view value, bool* together, std::string* err) {
  if (value == "together" || value == "apart") {
    *together = value == "together";
    return true;
  }
  *err = "invalid --rail-hetjob value " + Quoted(value) + "; expected together or apart";
  return false;
}

}  // namespace railguard::plugin
