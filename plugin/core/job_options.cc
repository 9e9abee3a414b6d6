#include "plugin/core/job_options.h"

namespace railguard::plugin {

bool ParsePlacementOption(std::string_view value, PlacementMode* out, std::string* err) {
  if (ParsePlacementMode(value, out)) return true;
  *err =
      "invalid --rail-placement value '" + std::string(value) + "'; expected strict, prefer or off";
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
    *err = "invalid --rail-max-sus value '" + std::string(value) +
           "'; expected a whole number from 1 to " + std::to_string(kMaxSusOption);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

}  // namespace railguard::plugin
