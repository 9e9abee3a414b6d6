// SPDX-License-Identifier: GPL-2.0-or-later
// Parser for the text that `ibnetdiscover` (infiniband-diags) prints: a graph of switches,
// channel adapters and routers, and the links between their ports.
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "topo/ib_fabric.h"

namespace railguard::topo {

// Parses ibnetdiscover output held in `text`; `filename` names it in diagnostics. Reads the
// default format and the grouped (-g) form with chassis headers and "[ext N]" ports, with or
// without -f's " s=.. w=.. v=.." tails, and keeps the LIDs and port GUIDs it prints in
// IbNode::addresses. The dump may be saved as admins save it: what a terminal capture wraps
// around it (topo/terminal_capture.h: byte-order mark, CR or CRLF line ends, a PuTTY or
// script(1) log's lines and shell prompts before the first record and after the last) is
// skipped and listed in out->capture_notes; tabs turned into spaces, or lost where the port
// count follows "Switch"/"Ca"/"Rt" at once ("Switch36 ..."), read as tabs. Error lines that
// ibnetdiscover itself interleaves ("src/query_smp.c:195; umad ... Connection timed out",
// "ibwarn: ...") become warnings in `out->warnings`. Anything else malformed is appended to
// `*errors` as "file:line: <what>; expected <form>" (at most 50, then one "too many errors"
// line), including any line in the middle of the dump that is not part of it. Returns true
// when there was no error; `*out` is then complete.
bool ParseIbnetdiscover(std::string_view text, const std::string& filename, IbFabric* out,
                        Diags* errors);

// As ParseIbnetdiscover, reading `path`. A file that cannot be read is one error.
bool ParseIbnetdiscoverFile(const std::string& path, IbFabric* out, Diags* errors);

}  // namespace railguard::topo
