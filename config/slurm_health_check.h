// SPDX-License-Identifier: GPL-2.0-or-later
// slurm.conf's settings for slurmd's HealthCheckProgram (HealthCheckInterval,
// HealthCheckNodeState, HealthCheckTimeout; slurm.conf(5) of Slurm 22.05 to 26.05), read from
// the slurm.conf libslurm reads, and what they mean for railcheck run as that program.
#pragma once

#include <string>

#include "base/diag.h"

namespace railguard {

// The HealthCheckNodeState words (slurm.conf(5)), as bits.
enum HealthCheckState : unsigned {
  kHcAny = 1u << 0,
  kHcAlloc = 1u << 1,
  kHcMixed = 1u << 2,
  kHcIdle = 1u << 3,
  kHcNondrainedIdle = 1u << 4,
  kHcCycle = 1u << 5,
  kHcStartOnly = 1u << 6,   // 25.11+
  kHcRebootOnly = 1u << 7,  // 26.05+
};

// Slurm's defaults where slurm.conf says nothing.
struct SlurmHealthCheck {
  std::string program;          // HealthCheckProgram; "" = none (slurmd runs no health check)
  int interval = 0;             // HealthCheckInterval, seconds; 0: never periodically
  unsigned states = kHcAny;     // HealthCheckNodeState; ANY when no state word is given
  std::string states_text;      // as written ("" = not set)
  int timeout = 60;             // HealthCheckTimeout (26.05); slurmd before 26.05 kills at 60
  // "FILE:LINE" of each setting, "" where Slurm's default holds.
  std::string program_at, interval_at, states_at, timeout_at;
};

// Reads the health-check settings of `slurm_conf` and the files it includes. The syntax is
// Slurm's: Key=Value tokens separated by blanks, keys in any case, '#' starts a comment
// (unless escaped as "\#"), a line ending in '\' continues on the next, values may be quoted,
// "Include FILE" (any case; FILE relative to `slurm_conf`'s folder whichever file includes it, glob patterns
// allowed, at most 8 levels deep) reads FILE there; the last setting wins. Other keys are
// not looked at. False with diagnostics (file:line and the expected form) for a file that
// cannot be read, an interval or timeout that is not a whole number in Slurm's range
// (interval 0-65535, timeout 1-65535), an unknown node state word, START_ONLY or
// REBOOT_ONLY combined with another word, or includes nested too deep.
bool ReadSlurmHealthCheck(const std::string& slurm_conf, SlurmHealthCheck* out, Diags* diags);

// Whether slurmd runs the program on a node that is drained and idle (what resumes a node
// railcheck drained): ANY or IDLE, and neither START_ONLY nor REBOOT_ONLY.
bool RunsOnDrainedIdle(const SlurmHealthCheck& hc);

// The seconds railcheck --periodic may take so that it answers before slurmd kills it at
// hc.timeout: the timeout less max(2, timeout / 10), at least 1.
int AnswerWithin(const SlurmHealthCheck& hc);

}  // namespace railguard
