// SPDX-License-Identifier: GPL-2.0-or-later
// Line reading shared by the capture parsers (topo/capture_line.h).
#include "topo/capture_line.h"

#include <cctype>

namespace railguard::topo {
namespace {

bool IsLineDigit(char c) { return c >= '0' && c <= '9'; }

int LineHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool LineStartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

bool IsCaptureSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view TrimCapture(std::string_view s) {
  while (!s.empty() && IsCaptureSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsCaptureSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool LineCursor::SkipSpace() {
  const size_t start = i_;
  while (i_ < s_.size() && IsCaptureSpace(s_[i_])) ++i_;
  return i_ > start;
}

bool LineCursor::Consume(char c) {
  if (!Peek(c)) return false;
  ++i_;
  return true;
}

bool LineCursor::Consume(std::string_view word) {
  if (!LineStartsWith(s_.substr(i_), word)) return false;
  i_ += word.size();
  return true;
}

bool LineCursor::ReadInt(long lo, long hi, long* out) {
  size_t j = i_;
  long v = 0;
  while (j < s_.size() && IsLineDigit(s_[j]) && j - i_ < 10) v = v * 10 + (s_[j++] - '0');
  if (j == i_ || (j < s_.size() && IsLineDigit(s_[j])) || v < lo || v > hi) return false;
  i_ = j;
  *out = v;
  return true;
}

bool LineCursor::ReadHex(uint64_t* out) {
  size_t j = i_;
  uint64_t v = 0;
  while (j < s_.size() && LineHexValue(s_[j]) >= 0 && j - i_ < 16)
    v = v << 4 | static_cast<uint64_t>(LineHexValue(s_[j++]));
  if (j == i_ || (j < s_.size() && LineHexValue(s_[j]) >= 0)) return false;
  i_ = j;
  *out = v;
  return true;
}

bool LineCursor::ReadHexGuid(uint64_t* out) {
  const size_t save = i_;
  if (Consume("0x") && ReadHex(out)) return true;
  i_ = save;
  return false;
}

bool LineCursor::ReadBracketInt(long lo, long hi, long* out) {
  const size_t save = i_;
  if (Consume('[') && ReadInt(lo, hi, out) && Consume(']')) return true;
  i_ = save;
  return false;
}

std::string_view LineCursor::ReadWord() {
  size_t j = i_;
  while (j < s_.size() && !IsCaptureSpace(s_[j])) ++j;
  std::string_view w = s_.substr(i_, j - i_);
  i_ = j;
  return w;
}

bool IsIbToolDiagnostic(std::string_view line) {
  for (std::string_view p :
       {"ibwarn:", "ibpanic:", "iberror:", "ibdebug:", "ibnetdiscover:", "iblinkinfo:"})
    if (LineStartsWith(line, p)) return true;
  if (line.find(" iberror: ") != std::string_view::npos) return true;
  // libibnetdisc's IBND_ERROR: "<source file>.c:<line>; <message>".
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  std::string_view head = line.substr(0, semi);
  size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == head.size()) return false;
  for (char c : head.substr(colon + 1))
    if (!IsLineDigit(c)) return false;
  std::string_view file = head.substr(0, colon);
  if (file.size() < 3 || file.substr(file.size() - 2) != ".c") return false;
  for (char c : file)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
          c == '-'))
      return false;
  return true;
}

std::string ShownLine(std::string_view line) {
  std::string shown(line.substr(0, 60));
  if (line.size() > 60) shown += "...";
  return shown;
}

bool CaptureErrors::Add(int line, const std::string& what, const std::string& form) {
  ++count_;
  if (count_ <= kMax) {
    out_->push_back(Diag{file_, line, 0,
                         EscapeNonPrintable(form.empty() ? what : what + "; expected " + form)});
  } else if (count_ == kMax + 1) {
    out_->push_back(Diag{file_, line, 0, "too many errors; giving up"});
  }
  return false;
}

}  // namespace railguard::topo
