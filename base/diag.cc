// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/diag.h"

namespace railguard {

std::string Diag::ToString() const {
  std::string out = file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  if (!out.empty()) out += ": ";
  return out + message;
}

std::string FormatDiags(const Diags& diags) {
  std::string out;
  for (const Diag& d : diags) out += d.ToString() + "\n";
  return out;
}

namespace {

// Length of the well-formed UTF-8 sequence at text[i] (2 to 4), or 0.
size_t Utf8Length(std::string_view text, size_t i) {
  const unsigned char c = static_cast<unsigned char>(text[i]);
  size_t n = 0;
  unsigned min = 0;
  if (c >= 0xc2 && c <= 0xdf) {
    n = 2, min = 0x80;
  } else if (c >= 0xe0 && c <= 0xef) {
    n = 3, min = 0x800;
  } else if (c >= 0xf0 && c <= 0xf4) {
    n = 4, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  unsigned cp = c & (0x7f >> n);
  for (size_t k = 1; k < n; ++k) {
    const unsigned char cc = static_cast<unsigned char>(text[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return n;
}

}  // namespace

std::string EscapeNonPrintable(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || c == '\t') {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const size_t n = c >= 0x80 ? Utf8Length(text, i) : 0;
    if (n > 0) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 0xf];
    ++i;
  }
  return out;
}

}  // namespace railguard
