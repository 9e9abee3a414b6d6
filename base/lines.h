// SPDX-License-Identifier: GPL-2.0-or-later
// Walking the lines of a text as tools write it and admins save it: a UTF-8 byte-order mark
// at the start is skipped, lines end at '\n', a '\r' before it (CRLF) is not part of the
// line, and a last line without '\n' counts.
#pragma once

#include <string_view>

namespace railguard {

// Calls `visit(line_no, line)` (1-based numbers, as they were in the text) for every line of
// `text`, blank ones included, until `visit` returns false.
template <typename Visit>
void ForEachLine(std::string_view text, Visit visit) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!visit(line_no, line)) return;
  }
}

// True when `line` holds only spaces and tabs.
inline bool IsBlankLine(std::string_view line) {
  return line.find_first_not_of(" \t") == std::string_view::npos;
}

}  // namespace railguard
