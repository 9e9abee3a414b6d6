// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric sweep as the report reads it: the links, their ends (name, port, width, speed) and
// findings, and the HCAs the sweep did not find, from `railctl fabric sweep --json` (the format
// and its reader: wire/sweep_json.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"
#include "wire/sweep_json.h"

namespace railguard::report {

using SweepEnd = wire::SweepEnd;
using SweepFinding = wire::SweepFinding;
using SweepLink = wire::SweepLink;
using SweepMissing = wire::SweepMissing;

struct SweepInput {
  std::string file;  // where it was read from
  double time = 0;   // summary.time of the sweep; its file's modification time when it has none
  bool complete = true;
  std::vector<SweepLink> links;
  std::vector<SweepMissing> missing;
};

// Parses sweep JSON held in `text` (`filename` names it in diagnostics) with wire/sweep_json.h's
// reader (SweepParts::kAll: "complete", "links" and "missing" required; see there). `time` is
// kept unless the sweep has a summary.time above 0. Problems go to `*errors` as
// "file:line:column: <what>; expected <form>" (at most 20). True when there was none.
bool ParseSweepJson(std::string_view text, const std::string& filename, SweepInput* out,
                    Diags* errors);

// As ParseSweepJson, reading `path`; `time` is the file's modification time when the JSON has
// no summary.time (sweeps written before it had one).
bool LoadSweepJson(const std::string& path, SweepInput* out, Diags* errors);

}  // namespace railguard::report
