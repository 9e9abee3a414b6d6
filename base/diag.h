// SPDX-License-Identifier: GPL-2.0-or-later
// Diagnostics: errors as values, each pinned to the place in the input that caused it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railguard {

// One problem found in some input. Lines and columns are 1-based; 0 means unknown and is
// left out of ToString().
struct Diag {
  std::string file;     // path as the user gave it, or "<string>" for in-memory input
  int line = 0;
  int column = 0;
  std::string message;  // says what was found and what was expected

  // "file:line:column: message", omitting the parts that are unknown.
  std::string ToString() const;
};

using Diags = std::vector<Diag>;

// All diagnostics, one per line, each ending with '\n'.
std::string FormatDiags(const Diags& diags);

// `text` safe to print in a message: control bytes other than tab, DEL and bytes that are
// not part of well-formed UTF-8 become "\xNN" (lower-case hex); everything else is kept.
std::string EscapeNonPrintable(std::string_view text);

}  // namespace railguard
