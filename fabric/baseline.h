// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric baseline: the counters of an earlier sweep, read back from the JSON that
// `railctl fabric sweep --json` writes (fabric/render.h), so that a sweep judges what grew
// since then instead of what a port counted since its last reset; and, for the previous sweep,
// the discovery it used, which the next sweep may keep (fabric/sweep.h's KeptDiscovery).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/diag.h"
#include "fabric/sweep.h"
#include "wire/sweep_json.h"

namespace railguard::fabric {

// Counters by (node GUID, port) of every end whose counters the earlier sweep read.
struct SweepBaseline {
  std::map<std::pair<uint64_t, int>, std::array<uint64_t, kCounterCount>> ports;
  double time = -1;  // the sweep's "summary": {"time"} (Unix seconds); -1 when it has none

  // With LoadSweepBaseline's `with_discovery`: the discovery the sweep used, or why there is
  // none to keep (no_discovery: "it records no discovery (...)").
  std::optional<KeptDiscovery> discovery;
  std::string no_discovery;

  // The baseline of `guid` port `port`, or nullptr.
  const std::array<uint64_t, kCounterCount>* Find(uint64_t guid, int port) const;
};

// The discovery `d` (read with SweepParts::kDiscovery or kAll) recorded: its nodes rebuilt from
// both ends of every link (node facts, LIDs, link states, counters), its time and LIDs. false
// with `*why` when `d` has none (a sweep written before discoveries were kept) or its ends
// contradict each other (one GUID as a switch and an HCA, or with two descriptions or switch
// LIDs, one port twice).
bool KeptDiscoveryOf(const wire::SweepDocument& d, KeptDiscovery* out, std::string* why);

// Reads the counters of sweep JSON held in `text` (`filename` names it in diagnostics) with
// wire/sweep_json.h's reader (SweepParts::kCounters: each link end's "guid", "port" and
// "counters", and "summary": {"time"}; nothing else is required). Problems are appended to
// `*errors` as "file:line:column: <what>; expected <form>" (at most 20). Returns true when
// there was none.
bool ParseSweepBaseline(std::string_view text, const std::string& filename, SweepBaseline* out,
                        Diags* errors);

// As ParseSweepBaseline, reading `path`; a file that cannot be read is one error. With
// `with_discovery` (the previous sweep), each end's lid, width, speed and extended_counters
// are required too (SweepParts::kDiscovery), and `out->discovery` is filled when the sweep
// recorded its discovery.
bool LoadSweepBaseline(const std::string& path, SweepBaseline* out, Diags* errors,
                       bool with_discovery = false);

}  // namespace railguard::fabric
