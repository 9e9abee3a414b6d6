// SPDX-License-Identifier: GPL-2.0-or-later
// The helpers of render.h that the renderers share: node state text, observe mode's
// phrases and escaping.
#include "base/json_reader.h"
#include "report/render.h"

namespace railguard::report {

std::string NodeStateText(const NodeRow& n, const char* absent) {
  if (!n.in_slurm) return absent;
  std::string s = n.state;
  for (const std::string& f : n.flags) s += "+" + f;
  return s;
}

const char* WouldPhrase(size_t a) {
  static const char* const kPhrases[kWouldActionCount] = {"drain", "restrict", "requeue jobs on",
                                                          "resume"};  // kWouldActions order
  return a < kWouldActionCount ? kPhrases[a] : "";
}

std::string HtmlEscape(std::string_view s) {
  const std::string valid = ValidUtf8(s);
  std::string out;
  out.reserve(valid.size() + valid.size() / 8);
  for (char ch : valid) {
    const unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if ((c < 0x20 && ch != '\t' && ch != '\n') || c == 0x7F) break;
        out.push_back(ch);
    }
  }
  return out;
}

std::string NodeAnchor(std::string_view node) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "node-";
  for (char ch : node) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
        c == '-') {
      out.push_back(ch);
    } else {
      out.push_back('_');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string PrometheusLabelValue(std::string_view s) {
  const std::string valid = ValidUtf8(s);
  std::string out;
  out.reserve(valid.size());
  for (char ch : valid) {
    switch (ch) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(ch);
    }
  }
  return out;
}

std::string TerminalSafe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  const std::string valid = ValidUtf8(s);
  for (size_t i = 0; i < valid.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(valid[i]);
    // U+FFFD stands for bytes that were not UTF-8: show '?' like other unprintables. C1
    // controls (U+0080..U+009F, "\xC2\x80".."\xC2\x9F") can start terminal sequences too.
    if (c == 0xEF && valid.compare(i, 3, "\xEF\xBF\xBD") == 0) {
      out.push_back('?');
      i += 2;
    } else if (c == 0xC2 && i + 1 < valid.size() &&
               static_cast<unsigned char>(valid[i + 1]) < 0xA0) {
      out.push_back('?');
      i += 1;
    } else if (c < 0x20 || c == 0x7F) {
      out.push_back('?');
    } else {
      out.push_back(valid[i]);
    }
  }
  return out;
}

}  // namespace railguard::report
