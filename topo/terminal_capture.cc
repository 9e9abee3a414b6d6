// SPDX-License-Identifier: GPL-2.0-or-later
// Undoing what a terminal capture adds around a tool's output (topo/terminal_capture.h).
#include "topo/terminal_capture.h"

#include <algorithm>
#include <cctype>
#include <utility>

namespace railguard::topo {
namespace {

bool HasPrefix(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool BlankChar(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && BlankChar(s.front())) s.remove_prefix(1);
  while (!s.empty() && BlankChar(s.back())) s.remove_suffix(1);
  return s;
}

// `line` without terminal control sequences: CSI (ESC [ params final-byte), OSC (ESC ] ...
// ending in BEL or ESC \) and other two-byte ESC sequences; lone BELs go too.
std::string WithoutControlSequences(std::string_view line) {
  std::string out;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '\a') continue;
    if (c != '\x1b') {
      out += c;
      continue;
    }
    if (i + 1 >= line.size()) break;
    const char kind = line[++i];
    if (kind == '[') {  // parameters and intermediates, then one final byte in @..~
      while (i + 1 < line.size() && !(line[i + 1] >= '@' && line[i + 1] <= '~')) ++i;
      ++i;
    } else if (kind == ']') {  // up to BEL or ESC backslash
      while (i + 1 < line.size() && line[i + 1] != '\a' &&
             !(line[i + 1] == '\x1b' && i + 2 < line.size() && line[i + 2] == '\\'))
        ++i;
      if (i + 1 < line.size()) i += line[i + 1] == '\a' ? 1 : 2;
    }
  }
  return out;
}

bool PuttyBanner(std::string_view line) {
  return HasPrefix(line, "=~=~=~=") && line.find(" PuTTY log ") != std::string_view::npos;
}

bool HostChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// The length of a shell prompt at the start of `line` ("[user@host dir]# ", "user@host:~$ ",
// "host# ", "bash-5.1$ ", "$ ", after an optional "(venv) "), or 0 when it starts with none.
size_t PromptLength(std::string_view line) {
  size_t i = 0;
  if (HasPrefix(line, "(")) {  // a virtualenv or conda tag
    const size_t close = line.find(") ");
    if (close == std::string_view::npos || close < 2) return 0;
    i = close + 2;
  }
  if (i < line.size() && line[i] == '[') {
    const size_t close = line.find(']', i);
    if (close == std::string_view::npos || close < i + 2) return 0;
    i = close + 1;
  } else if (i < line.size() && line[i] != '$') {
    const size_t word = i;
    while (i < line.size() && HostChar(line[i])) ++i;
    if (i == word) return 0;
    if (i < line.size() && line[i] == '@') {
      ++i;
      const size_t host = i;
      while (i < line.size() && HostChar(line[i])) ++i;
      if (i == host) return 0;
    }
    if (i < line.size() && line[i] == ':') {  // the working folder
      ++i;
      while (i < line.size() && !BlankChar(line[i]) && line[i] != '$' && line[i] != '#') ++i;
    }
  }
  if (i >= line.size() || (line[i] != '#' && line[i] != '$' && line[i] != '%' && line[i] != '>'))
    return 0;
  ++i;
  if (i < line.size() && line[i] != ' ') return 0;
  return i < line.size() ? i + 1 : i;
}

// What a line before (`after` false) or after the output is, as a note; "" when it is output.
std::string Wrapper(std::string_view raw, bool after) {
  const std::string cleaned = WithoutControlSequences(raw);
  const std::string_view line = TrimBlanks(cleaned);
  if (line.empty()) return raw.empty() || TrimBlanks(raw).empty() ? "" : "terminal control codes";
  if (!after && PuttyBanner(line)) return "a PuTTY log banner";
  if (!after && HasPrefix(line, "Script started on ")) return "script(1)'s start line";
  if (after && HasPrefix(line, "Script done on ")) return "script(1)'s end line";
  if (after && (line == "exit" || line == "logout")) return "a shell's " + std::string(line);
  const size_t n = PromptLength(line);
  if (n == 0) return "";
  return TrimBlanks(line.substr(n)).empty() ? "a shell prompt" : "a shell prompt and command";
}

}  // namespace

std::string StripTerminalCapture(std::string_view text, std::vector<std::string>* notes) {
  if (HasPrefix(text, "\xEF\xBB\xBF")) {
    text.remove_prefix(3);
    notes->push_back("a UTF-8 byte-order mark");
  }
  // Every line end a '\n': CRs just before a LF merge into it, any other CR ends a line.
  std::string out;
  if (text.find('\r') == std::string_view::npos) {
    out.assign(text);
  } else {
    out.reserve(text.size());
    bool lone_cr = false;
    for (size_t i = 0; i < text.size();) {
      const size_t cr = text.find('\r', i);
      if (cr == std::string_view::npos) {
        out.append(text.substr(i));
        break;
      }
      out.append(text.substr(i, cr - i));
      size_t j = cr;
      while (j < text.size() && text[j] == '\r') ++j;
      if (j == text.size() || text[j] != '\n') {
        out += '\n';
        lone_cr = true;
        i = cr + 1;
      } else {
        i = j;  // the LF ends the line
      }
    }
    if (lone_cr) notes->push_back("lines ended by a carriage return alone");
  }

  auto blank = [&](size_t start, size_t end, long number, const std::string& what) {
    std::fill(out.begin() + start, out.begin() + end, ' ');
    notes->push_back(what + " (line " + std::to_string(number) + ")");
  };
  // From the first line on, to the first line of output.
  size_t first_output = std::string::npos;
  long number = 0;
  for (size_t pos = 0;;) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    ++number;
    const std::string_view line = std::string_view(out).substr(pos, end - pos);
    if (!TrimBlanks(line).empty()) {
      const std::string what = Wrapper(line, false);
      if (what.empty()) {
        first_output = pos;
        break;
      }
      blank(pos, end, number, what);
    }
    if (end == out.size()) break;
    pos = end + 1;
  }
  if (first_output == std::string::npos) return out;  // wrappers and blank lines only
  // From the last line back, to the last line of output.
  number = static_cast<long>(std::count(out.begin(), out.end(), '\n')) + 1;
  std::vector<std::pair<std::pair<size_t, size_t>, std::pair<long, std::string>>> trailing;
  for (size_t end = out.size();; --number) {
    const size_t nl = end == 0 ? std::string::npos : out.rfind('\n', end - 1);
    const size_t start = nl == std::string::npos ? 0 : nl + 1;
    if (start <= first_output) break;
    const std::string_view line = std::string_view(out).substr(start, end - start);
    if (!TrimBlanks(line).empty()) {
      const std::string what = Wrapper(line, true);
      if (what.empty()) break;
      trailing.push_back({{start, end}, {number, what}});
    }
    end = start - 1;
  }
  // Notes in the order of the lines.
  for (auto it = trailing.rbegin(); it != trailing.rend(); ++it)
    blank(it->first.first, it->first.second, it->second.first, it->second.second);
  return out;
}

}  // namespace railguard::topo
