// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck's command line: the table of modes (flag, name, help, handler) and the parse of
// the arguments into Options. RailcheckUsage (railcheck.h) is defined beside them.
#pragma once

#include <string>
#include <vector>

#include "healthcheck/railcheck_run.h"

namespace railguard::health {

// One mode: its flag (or subcommand), its name in reports, one line of help, its handler.
struct ModeEntry {
  const char* flag;
  const char* name;
  Mode mode;
  const char* help;
  ModeHandler handler;
};

// The table entry of mode `m` (every Mode has one).
const ModeEntry& ModeEntryOf(Mode m);

// `args` (argv without argv[0]) and the name the process runs under (ctx.env.argv0) into
// `*o`. Returns -1 when the run goes on; else the exit code, with the usage or help printed
// to ctx.deps.err or ctx.deps.out.
int ParseOptions(const RunContext& ctx, const std::vector<std::string>& args, Options* o);

}  // namespace railguard::health
