// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric baseline: the counters of an earlier sweep, read back from the JSON that
// `railctl fabric sweep --json` writes (fabric/render.h), so that a sweep judges what grew
// since then instead of what a port counted since its last reset.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "base/diag.h"
#include "base/text_file.h"
#include "fabric/sweep.h"

namespace railguard::fabric {

// The sweep JSON, as ReadTextFile names and bounds it.
constexpr InputKind kSweepJsonInput{"a fabric sweep JSON (railctl fabric sweep --json)",
                                    256u << 20};

// Counters by (node GUID, port) of every end whose counters the earlier sweep read.
struct SweepBaseline {
  std::map<std::pair<uint64_t, int>, std::array<uint64_t, kCounterCount>> ports;
  double time = -1;  // the sweep's "summary": {"time"} (Unix seconds); -1 when it has none

  // The baseline of `guid` port `port`, or nullptr.
  const std::array<uint64_t, kCounterCount>* Find(uint64_t guid, int port) const;
};

// Parses sweep JSON held in `text` (`filename` names it in diagnostics): an object whose
// "links" array holds objects with ends "a" and "b", each with "guid" ("0x" + 16 hex digits),
// "port" (1..254) and "counters" (null, or an object with every name of kCounterNames as a
// non-negative integer), and optionally "summary": {"time": Unix seconds, a number >= 0}.
// Problems are appended to `*errors` as
// "file:line:column: <what>; expected <form>" (at most 20). Returns true when there was none.
bool ParseSweepBaseline(std::string_view text, const std::string& filename, SweepBaseline* out,
                        Diags* errors);

// As ParseSweepBaseline, reading `path`; a file that cannot be read is one error.
bool LoadSweepBaseline(const std::string& path, SweepBaseline* out, Diags* errors);

}  // namespace railguard::fabric
