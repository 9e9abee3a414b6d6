// SPDX-License-Identifier: GPL-2.0-or-later
// The first phase of a railcheck run: the configuration and topology, the node and its
// folders, fresh fabric evidence, then the state files under their lock.
#pragma once

#include <string>

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// Loads the config and topology of `o`, finds the node (--node, else the host name) and its
// node type, expands its folders, arms the mode's time limit (CliDeps::arm_time_limit) and
// reads the node's fabric evidence into `*s`. False with `*err` when the config cannot be
// loaded or the node has no name or is not in the topology.
bool LoadSetup(const RunContext& ctx, const Options& o, Setup* s, std::string* err);

// Prepares the state folder and takes its lock (not in --dry-run), then reads the baseline
// and the run state into `*st`. False with `*err` when the folder or the lock cannot be had
// or a state file cannot be read or is corrupt; a corrupt baseline is no error in baseline
// mode, which replaces it (StateFiles::baseline_replaced says why).
bool LoadState(const RunContext& ctx, const Options& o, const Setup& s, StateFiles* st,
               std::string* err);

}  // namespace railguard::health
