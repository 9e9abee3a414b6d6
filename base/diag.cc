#include "base/diag.h"

namespace railguard {

std::string Diag::ToString() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!out.empty()) out += ": ";
  return out + message;
}

std::string FormatDiags(const Diags& diags) {
  std::string out;
  for (const Diag& d : diags) out += d.ToString() + "\n";
  return out;
}

}  // namespace railguard
