// SPDX-License-Identifier: GPL-2.0-or-later
// The gather phase of a railcheck run: the node's facts from sysfs (and libibverbs and the
// ethtool ioctl on the live node), with transient findings re-read before they are judged.
#pragma once

#include <string>
#include <vector>

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// The phase in which sysfs (and libibverbs) is read: while a gather child is in it, the
// parent gives it read_timeout_ms and kReadingGraceMs more (the child's own gather ends at
// the first).
inline constexpr const char* kReadingPhase = "reading sysfs";
inline constexpr int kReadingGraceMs = 500;

// Reads the node's facts. In a judging mode, rails and GPUs with transient findings are
// re-read (confirm.h) within half the run's time limit, and what the re-reads showed is
// appended to `*notes`. Libibverbs and the ethtool ioctl are asked only when the sysfs root
// is the live one (kLiveSysfs).
NodeFacts GatherFacts(const RunContext& ctx, const Options& o, const Setup& s, const StateFiles& st,
                      std::vector<std::string>* notes);

}  // namespace railguard::health
