// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric sweep as the report reads it: the links, their ends (name, port, width, speed) and
// findings, and the HCAs the sweep did not find, from `railctl fabric sweep --json`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/diag.h"

namespace railguard::report {

// One end of a swept link.
struct SweepEnd {
  std::string name;  // "n005 mlx5_3", "su1-rail3", "spine1"
  int port = 0;
  int width_active = 0, width_enabled = 0;  // lanes, 0 unknown
  std::string speed_active, speed_enabled;  // "NDR", "" unknown
};

// One finding of the sweep on a link (fabric/judge.h's LinkFinding).
struct SweepFinding {
  std::string kind;  // "errors", "width", "speed", "unread"
  std::string side;  // "host", "leaf", "spine", "switch" or "both"
  std::string message;
};

struct SweepLink {
  std::string kind;       // "host" (a = HCA, b = leaf), "uplink" (a = leaf, b = spine), ...
  std::string su, rail;   // names, "" when the sweep mapped none
  std::string host, hca;  // host links
  SweepEnd a, b;
  std::vector<SweepFinding> findings;
};

// An HCA the topology expects that the sweep did not find.
struct SweepMissing {
  std::string su, rail, host, hca;
};

struct SweepInput {
  std::string file;  // where it was read from
  double time = 0;   // summary.time of the sweep; its file's modification time when it has none
  bool complete = true;
  std::vector<SweepLink> links;
  std::vector<SweepMissing> missing;
};

// Parses sweep JSON held in `text` (`filename` names it in diagnostics): an object with
// "complete" (boolean), "links" (array of {kind, su, rail, host, hca: string or null; a, b:
// {name: string, port: 1..254, width: {active, enabled: integer}, speed: {active, enabled:
// string}}; findings: array of {kind, side, message: string}}) and "missing" (array of {su,
// rail, host, hca: string}). Other members are ignored. Problems go to `*errors` as
// "file:line:column: <what>; expected <form>" (at most 20). True when there was none.
bool ParseSweepJson(std::string_view text, const std::string& filename, SweepInput* out,
                    Diags* errors);

// As ParseSweepJson, reading `path`; `time` is the file's modification time when the JSON has
// no summary.time (sweeps written before it had one).
bool LoadSweepJson(const std::string& path, SweepInput* out, Diags* errors);

}  // namespace railguard::report
