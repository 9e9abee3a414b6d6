// SPDX-License-Identifier: GPL-2.0-or-later
// Reading the lines of a fabric capture, shared by its parsers (ibnetdiscover, its -p ports
// report, iblinkinfo, ibdiagnet2.lst): a cursor over one line, the lines one by one, the error
// list with its cap, and the lines the diagnostic tools print about their own trouble.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "base/diag.h"
#include "base/lines.h"

namespace railguard::topo {

// Blanks as the capture parsers skip them: space, tab, CR, VT, FF.
bool IsCaptureSpace(char c);

// `s` without leading and trailing blanks.
std::string_view TrimCapture(std::string_view s);

// A read position in one line; every Read* leaves the position unchanged on failure.
class LineCursor {
 public:
  explicit LineCursor(std::string_view s) : s_(s) {}

  bool AtEnd() const { return i_ >= s_.size(); }
  size_t Pos() const { return i_; }
  void SetPos(size_t i) { i_ = i < s_.size() ? i : s_.size(); }
  std::string_view Line() const { return s_; }
  std::string_view Rest() const { return s_.substr(i_); }
  // Skips blanks; true when there were any.
  bool SkipSpace();
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool Consume(char c);
  bool Consume(std::string_view word);
  // A decimal integer in [lo, hi] of at most 10 digits.
  bool ReadInt(long lo, long hi, long* out);
  // 1 to 16 hex digits.
  bool ReadHex(uint64_t* out);
  // "0x" and 1 to 16 hex digits.
  bool ReadHexGuid(uint64_t* out);
  // "[<n>]" with n in [lo, hi].
  bool ReadBracketInt(long lo, long hi, long* out);
  // The next run of non-blank characters ("" at the end).
  std::string_view ReadWord();

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// Lines that libibnetdisc, libibmad or the tools print about their own trouble
// ("ibwarn: ...", "src/query_smp.c:195; umad ... timed out"); they end up in a capture when
// stderr was saved with stdout.
bool IsIbToolDiagnostic(std::string_view line);

// A line shortened for a message: its first 60 characters and "..." when longer.
std::string ShownLine(std::string_view line);

// The errors of one capture: "file:line: <what>", at most 50, then one "too many errors;
// giving up" line.
class CaptureErrors {
 public:
  // `*out` must outlive this object.
  CaptureErrors(std::string file, Diags* out) : file_(std::move(file)), out_(out) {}

  // Records "file:line: <what>" (with "; expected <form>" when `form` is not empty), control
  // characters escaped. Returns false, so that callers can `return errors.Add(...)`.
  bool Add(int line, const std::string& what, const std::string& form = "");

  int count() const { return count_; }
  // The file name the errors carry.
  const std::string& file() const { return file_; }
  // True once the cap is passed: the parser should stop.
  bool full() const { return count_ > kMax; }

 private:
  static constexpr int kMax = 50;
  std::string file_;
  Diags* out_;
  int count_ = 0;
};

// Calls read(line, line_no) for each line of `text` (base/lines.h: the first is line 1, a CR
// before '\n' is not part of the line) until `errors` is full.
template <typename Read>
void ForEachCaptureLine(std::string_view text, const CaptureErrors& errors, Read read) {
  if (errors.full()) return;
  ForEachLine(text, [&](int line_no, std::string_view line) {
    read(line, line_no);
    return !errors.full();
  });
}

}  // namespace railguard::topo
