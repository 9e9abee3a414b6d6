// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/state_syntax.h"

#include <cstdio>
#include <vector>

namespace railguard::health {
namespace {

// What the token at some offset is, in nlohmann's terms: a token type ("number literal"), or
// a lexer error ("invalid literal") with what was read of it; `last` is the offset of the
// last byte read (the text's size at its end).
struct Token {
  std::string type;   // "unexpected " + type, when `error` is empty
  std::string error;  // "invalid literal", "invalid string: missing closing quote", ...
  std::string read;   // the bytes read of the token, for "last read: '...'"
  size_t last = 0;
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// A byte as "last read" shows it: control characters as <U+XXXX>.
std::string Shown(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[16];
      std::snprintf(buf, sizeof(buf), "<U+%04X>", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

Token Error(std::string_view s, size_t start, size_t at, const std::string& what) {
  Token t;
  t.error = what;
  t.last = at < s.size() ? at : s.size();
  t.read = Shown(s.substr(start, at < s.size() ? at - start + 1 : s.size() - start));
  return t;
}

Token Ok(const std::string& type, size_t last) {
  Token t;
  t.type = type;
  t.last = last;
  return t;
}

const char* const kControlNames[] = {"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL",
                                     "BS",  "HT",  "LF",  "VT",  "FF",  "CR",  "SO",  "SI",
                                     "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
                                     "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};

std::string ControlMessage(unsigned char c) {
  char buf[128];
  const char* shortcut = c == '\b'   ? " or \\b"
                         : c == '\t' ? " or \\t"
                         : c == '\n' ? " or \\n"
                         : c == '\f' ? " or \\f"
                         : c == '\r' ? " or \\r"
                                     : "";
  std::snprintf(buf, sizeof(buf),
                "invalid string: control character U+%04X (%s) must be escaped to \\u%04X%s", c,
                kControlNames[c], c, shortcut);
  return buf;
}

// Reads 4 hex digits at `at`; false with `*bad` = the offset of the first that is not one.
bool Hex4(std::string_view s, size_t at, unsigned* out, size_t* bad) {
  unsigned v = 0;
  for (size_t i = at; i < at + 4; ++i) {
    *bad = i;
    if (i >= s.size()) return false;
    const char c = s[i];
    const int d = IsDigit(c)               ? c - '0'
                  : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                  : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                           : -1;
    if (d < 0) return false;
    v = v * 16 + static_cast<unsigned>(d);
  }
  *out = v;
  return true;
}

// Checks the UTF-8 sequence at `at` byte by byte: its length, or 0 with `*bad` = the offset
// of the first byte out of range (the text's size when it ends inside the sequence).
size_t Utf8Length(std::string_view s, size_t at, size_t* bad) {
  const unsigned char c = static_cast<unsigned char>(s[at]);
  // The range of each following byte, by the lead byte (RFC 3629).
  unsigned char lo = 0x80, hi = 0xBF;
  size_t n = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *bad = at;
    return 0;
  }
  for (size_t i = 1; i < n; ++i) {
    const size_t k = at + i;
    const unsigned char b = k < s.size() ? static_cast<unsigned char>(s[k]) : 0;
    if (k >= s.size() || b < lo || b > hi) {
      *bad = k < s.size() ? k : s.size();
      return 0;
    }
    lo = 0x80;
    hi = 0xBF;
  }
  return n;
}

Token LexString(std::string_view s, size_t start) {
  for (size_t i = start + 1;; ++i) {
    if (i >= s.size()) return Error(s, start, i, "invalid string: missing closing quote");
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"') return Ok("string literal", i);
    if (c < 0x20) return Error(s, start, i, ControlMessage(c));
    if (c >= 0x80) {
      size_t bad = 0;
      const size_t n = Utf8Length(s, i, &bad);
      if (n == 0) return Error(s, start, bad, "invalid string: ill-formed UTF-8 byte");
      i += n - 1;
      continue;
    }
    if (c != '\\') continue;
    if (++i >= s.size())
      return Error(s, start, i, "invalid string: forbidden character after backslash");
    if (std::string_view("\"\\/bfnrt").find(s[i]) != std::string_view::npos) continue;
    if (s[i] != 'u')
      return Error(s, start, i, "invalid string: forbidden character after backslash");
    unsigned cp = 0;
    size_t bad = 0;
    if (!Hex4(s, i + 1, &cp, &bad))
      return Error(s, start, bad, "invalid string: '\\u' must be followed by 4 hex digits");
    i += 4;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
      return Error(s, start, i,
                   "invalid string: surrogate U+DC00..U+DFFF must follow U+D800..U+DBFF");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      const char* const kLow =
          "invalid string: surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF";
      if (i + 1 >= s.size() || s[i + 1] != '\\') return Error(s, start, i + 1, kLow);
      if (i + 2 >= s.size() || s[i + 2] != 'u') return Error(s, start, i + 2, kLow);
      unsigned low = 0;
      if (!Hex4(s, i + 3, &low, &bad))
        return Error(s, start, bad, "invalid string: '\\u' must be followed by 4 hex digits");
      if (low < 0xDC00 || low > 0xDFFF) return Error(s, start, i + 6, kLow);
      i += 6;
    }
  }
}

Token LexNumber(std::string_view s, size_t start) {
  size_t i = start;
  if (s[i] == '-') ++i;
  auto digit = [&](size_t at) { return at < s.size() && IsDigit(s[at]); };
  if (!digit(i)) return Error(s, start, i, "invalid number; expected digit after '-'");
  if (s[i] == '0') {
    ++i;
  } else {
    while (digit(i)) ++i;
  }
  if (i < s.size() && s[i] == '.') {
    if (!digit(++i)) return Error(s, start, i, "invalid number; expected digit after '.'");
    while (digit(i)) ++i;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
      if (!digit(++i))
        return Error(s, start, i, "invalid number; expected digit after exponent sign");
    } else if (!digit(i)) {
      return Error(s, start, i, "invalid number; expected '+', '-', or digit after exponent");
    }
    while (digit(i)) ++i;
  }
  return Ok("number literal", i - 1);
}

// The token that starts at `at`, as nlohmann's lexer reads it; what it read of an invalid
// literal counts from `reset`, the start of the last string or number before it.
Token LexAt(std::string_view s, size_t at, size_t reset) {
  if (at >= s.size()) return Ok("end of input", s.size());
  const char c = s[at];
  if (std::string_view("{}[],:").find(c) != std::string_view::npos)
    return Ok(std::string("'") + c + "'", at);
  if (c == '"') return LexString(s, at);
  if (c == '-' || IsDigit(c)) return LexNumber(s, at);
  for (std::string_view word : {"true", "false", "null"}) {
    if (c != word[0]) continue;
    for (size_t i = 1; i < word.size(); ++i)
      if (at + i >= s.size() || s[at + i] != word[i])
        return Error(s, reset, at + i, "invalid literal");
    return Ok(std::string(word) + " literal", at + word.size() - 1);
  }
  return Error(s, reset, at, "invalid literal");
}

// What the valid text before offset `at` says about the token at `at`.
struct ScanBefore {
  size_t token = 0;    // where the string or number `at` is inside of starts
  size_t reset = 0;    // where the last string or number before `at` starts (0: none)
  bool key = false;    // that string is an object key
  char container = 0;  // '{' or '[' around `at`, 0 at the top
};

ScanBefore Scan(std::string_view s, size_t at) {
  ScanBefore b;
  bool in_string = false;
  std::vector<char> open;
  char last = 0;  // the last structural byte
  for (size_t i = 0; i < at && i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      b.token = b.reset = i;
      b.key = last == '{' || (last == ',' && !open.empty() && open.back() == '{');
    } else if (c == '-' || IsDigit(c)) {
      const bool inside = i > 0 && (IsDigit(s[i - 1]) || std::string_view("+-.eE").find(s[i - 1]) !=
                                                             std::string_view::npos);
      if (!inside) b.token = b.reset = i;
      b.key = false;
    } else if (std::string_view("{}[],:").find(c) != std::string_view::npos) {
      last = c;
      if (c == '{' || c == '[') open.push_back(c);
      if ((c == '}' || c == ']') && !open.empty()) open.pop_back();
    }
  }
  b.container = open.empty() ? 0 : open.back();
  return b;
}

bool EndsWith(const std::string& s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The byte offset of 1-based `line` and `column` in `s`.
size_t OffsetOf(std::string_view s, int line, int column) {
  size_t off = 0;
  for (int l = 1; l < line && off < s.size(); ++off)
    if (s[off] == '\n') ++l;
  return off + static_cast<size_t>(column > 0 ? column - 1 : 0);
}

// "FILE:LINE:COLUMN" of offset `off`, counted as the file's old reader counted.
std::string Where(std::string_view s, const std::string& file, size_t off) {
  off = off < s.size() ? off : s.size();
  size_t line = 1;
  for (size_t i = 0; i < off; ++i) line += s[i] == '\n' ? 1 : 0;
  const size_t nl = off == 0 ? std::string_view::npos : s.rfind('\n', off - 1);
  const size_t column = off - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

}  // namespace

std::string StateSyntaxError(std::string_view text, const JsonError& e, const std::string& file) {
  const size_t at = OffsetOf(text, e.line, e.column);
  const std::string& m = e.message;
  if (m.rfind("number ", 0) == 0 && m.find(" is out of range") != std::string::npos) {
    const size_t end = LexNumber(text, at).last + 1;
    return file + ": number overflow parsing '" + std::string(text.substr(at, end - at)) + "'";
  }
  // The context and the expected token of the place the reader stopped at.
  struct Place {
    std::string_view tail;
    const char* context;
    const char* expected;
  };
  const Place kPlaces[] = {
      {"; expected a JSON value", "value", "'[', '{', or a literal"},
      {"after the JSON value; expected the end", "value", "end of input"},
      {"; expected '\"' (a key)", "object key", "string literal"},
      {"; expected ':'", "object separator", "':'"},
      {"; expected ',' or '}'", "object", "'}'"},
      {"; expected ',' or ']'", "array", "']'"},
  };
  const Place* place = nullptr;
  for (const Place& p : kPlaces)
    if (EndsWith(m, p.tail)) place = &p;
  if (m.rfind("empty input", 0) == 0) place = &kPlaces[0];
  const ScanBefore before = Scan(text, at);
  Token t;
  std::string context, expected;
  if (m.rfind("leading zero", 0) == 0) {
    // nlohmann read "0" as a whole number and stopped at the digit after it.
    t = LexAt(text, at, before.token);
    context = before.container == '{' ? "object" : before.container == '[' ? "array" : "value";
    expected = before.container == '{' ? "'}'" : before.container == '[' ? "']'" : "end of input";
  } else if (place) {
    t = LexAt(text, at, before.reset);
    context = place->context;
    // A lexer error where a value goes is reported without the expected token.
    if (!(t.error.size() && place == &kPlaces[0])) expected = place->expected;
  } else if (m.find(" in a \\u escape") != std::string::npos ||
             m.find("string") != std::string::npos || m.find("escape") != std::string::npos ||
             m.find("UTF-8") != std::string::npos || m.find("surrogate") != std::string::npos ||
             m.find("number") != std::string::npos || m.find("'-'") != std::string::npos) {
    // Refused inside a string or number: lex that token from its start.
    t = LexAt(text, before.token, before.token);
    context = before.key ? "object key" : "value";
    if (before.key) expected = "string literal";
  } else {
    // Not a syntax error nlohmann knew (a duplicate key, nesting too deep): the reader's words.
    return Where(text, file, at) + ": " + m;
  }
  std::string out = Where(text, file, t.last) + ": syntax error while parsing " + context + " - ";
  out += t.error.empty() ? "unexpected " + t.type : t.error + "; last read: '" + t.read + "'";
  if (!expected.empty()) out += "; expected " + expected;
  return out;
}

}  // namespace railguard::health
