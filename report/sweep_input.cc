// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric sweep's JSON for the report.
#include "report/sweep_input.h"

#include <sys/stat.h>

#include <utility>

namespace railguard::report {

bool ParseSweepJson(std::string_view text, const std::string& filename, SweepInput* out,
                    Diags* errors) {
  out->file = filename;
  wire::SweepDocument d;
  if (!wire::ParseSweepDocument(text, filename, wire::SweepParts::kAll, &d, errors)) return false;
  if (d.summary.time > 0) out->time = d.summary.time;
  out->complete = d.complete;
  out->links = std::move(d.links);
  out->missing = std::move(d.missing);
  return true;
}

bool LoadSweepJson(const std::string& path, SweepInput* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, wire::kSweepJsonInput, &text, errors)) return false;
  struct stat st;
  if (stat(path.c_str(), &st) == 0) out->time = static_cast<double>(st.st_mtime);
  return ParseSweepJson(text, path, out, errors);
}

}  // namespace railguard::report
