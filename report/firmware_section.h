// SPDX-License-Identifier: GPL-2.0-or-later
// The report's firmware section: the rail NICs' firmware versions across the fleet, per rail,
// from the "fw" list railcheck publishes in Extra, and the nodes that differ from the majority.
#pragma once

#include <vector>

#include "report/report.h"

namespace railguard::report {

// The firmware of each topology rail over `nodes` (their NodeRow::fw; nodes without one are
// left out): every version with its node count, most nodes first (ties: by version text), the
// majority version (the one most nodes run, when no other has as many) and the nodes that run
// another one (all of them when there is no majority), in node order. One entry per rail of
// `rails`; a rail no node reported has no versions.
std::vector<FirmwareRail> BuildFirmware(const std::vector<NodeRow>& nodes, size_t rails);

}  // namespace railguard::report
