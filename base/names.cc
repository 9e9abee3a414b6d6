// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/names.h"

namespace railguard {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// True when `s` holds 1 to `max_bytes` bytes, each accepted by `ok`.
template <typename Pred>
bool AllOf(std::string_view s, size_t max_bytes, Pred ok) {
  if (s.empty() || s.size() > max_bytes) return false;
  for (char c : s)
    if (!ok(c)) return false;
  return true;
}

// Calls `visit` with each item of the comma-separated `list` in order (empty items too) until
// it returns false; returns whether it saw every item.
template <typename Visit>
bool EachItem(std::string_view list, Visit visit) {
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    if (!visit(list.substr(start, comma - start))) return false;
    start = comma + 1;
  }
  return true;
}

// strnatcmp's view of a string: '\0' past its end.
char At(std::string_view s, size_t k) { return k < s.size() ? s[k] : '\0'; }

// Runs without leading zeros: the longer run is larger, else the first differing digit.
int RightAligned(std::string_view a, size_t i, std::string_view b, size_t j) {
  int bias = 0;
  for (;; ++i, ++j) {
    const bool da = IsDigit(At(a, i));
    const bool db = IsDigit(At(b, j));
    if (!da && !db) return bias;
    if (!da) return -1;
    if (!db) return 1;
    if (bias == 0 && a[i] != b[j]) bias = a[i] < b[j] ? -1 : 1;
  }
}

// Runs with a leading zero compare like fractions: the first differing digit decides and
// a run that ends first is smaller.
int LeftAligned(std::string_view a, size_t i, std::string_view b, size_t j) {
  for (;; ++i, ++j) {
    const bool da = IsDigit(At(a, i));
    const bool db = IsDigit(At(b, j));
    if (!da && !db) return 0;
    if (!da) return -1;
    if (!db) return 1;
    if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
  }
}

}  // namespace

bool IsSafeName(std::string_view s) {
  return AllOf(s, kMaxSafeNameBytes, [](char c) {
    return IsLower(c) || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '-' || c == '_' || c == '.';
  });
}

bool IsStateWord(std::string_view s) {
  return AllOf(s, 64, [](char c) { return IsLower(c) || IsDigit(c) || c == '_'; });
}

bool IsCheckName(std::string_view s) {
  return AllOf(s, kMaxCheckNameBytes,
               [](char c) { return IsLower(c) || IsDigit(c) || c == '.' || c == '_'; });
}

bool NaturalLess(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (IsDigit(a[i]) && IsDigit(b[j])) {
      size_t ie = i;
      size_t je = j;
      while (ie < a.size() && IsDigit(a[ie])) ++ie;
      while (je < b.size() && IsDigit(b[je])) ++je;
      // Compare the numbers by value: skip leading zeros, then by length, then digit by digit.
      size_t is = i;
      size_t js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.substr(is, ie - is).compare(b.substr(js, je - js));
      if (c != 0) return c < 0;
      if (ie - i != je - j) return ie - i < je - j;
      i = ie;
      j = je;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

int SlurmNaturalCompare(std::string_view a, std::string_view b) {
  size_t i = 0;
  size_t j = 0;
  for (;;) {
    while (IsSpace(At(a, i))) ++i;
    while (IsSpace(At(b, j))) ++j;
    const char ca = At(a, i);
    const char cb = At(b, j);
    if (IsDigit(ca) && IsDigit(cb)) {
      const int r = (ca == '0' || cb == '0') ? LeftAligned(a, i, b, j) : RightAligned(a, i, b, j);
      if (r != 0) return r;
      // Equal runs are identical: step over them together.
      while (IsDigit(At(a, i))) {
        ++i;
        ++j;
      }
      continue;
    }
    if (ca == '\0' && cb == '\0') return 0;
    const signed char sa = static_cast<signed char>(ca);
    const signed char sb = static_cast<signed char>(cb);
    if (sa != sb) return sa < sb ? -1 : 1;
    ++i;
    ++j;
  }
}

bool HasFeature(std::string_view list, std::string_view feature) {
  return !feature.empty() &&
         !EachItem(list, [&](std::string_view item) { return item != feature; });
}

bool FeaturesWithin(std::string_view list, std::string_view of) {
  return EachItem(list,
                  [&](std::string_view item) { return item.empty() || HasFeature(of, item); });
}

std::string WithFeature(std::string_view list, std::string_view feature, bool present) {
  std::string out;
  bool have = false;
  EachItem(list, [&](std::string_view item) {
    if (item.empty()) return true;
    if (item == feature) {
      if (!present || have) return true;
      have = true;
    }
    if (!out.empty()) out += ',';
    out.append(item);
    return true;
  });
  if (present && !have) {
    if (!out.empty()) out += ',';
    out.append(feature);
  }
  return out;
}

}  // namespace railguard
