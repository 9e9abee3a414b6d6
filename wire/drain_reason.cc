// SPDX-License-Identifier: GPL-2.0-or-later
#include "wire/drain_reason.h"

#include <algorithm>
#include <cctype>

namespace railguard::wire {

std::string FormatDrainReason(std::string_view first, size_t more) {
  const std::string tail = more > 0 ? " (+" + std::to_string(more) + " more)" : std::string();
  std::string reason = std::string(kReasonPrefix) + " " + std::string(first);
  if (reason.size() + tail.size() > kMaxReasonChars)
    reason = reason.substr(0, kMaxReasonChars - tail.size() - 3) + "...";
  return reason + tail;
}

std::string_view ReasonHeadline(std::string_view reason) {
  const size_t open = reason.rfind(" (+");
  const std::string_view tail = " more)";
  if (open == std::string_view::npos || reason.size() < tail.size() ||
      reason.substr(reason.size() - tail.size()) != tail)
    return reason;
  const std::string_view digits = reason.substr(open + 3, reason.size() - tail.size() - open - 3);
  if (digits.empty() || digits.size() > 4) return reason;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return reason;
  return reason.substr(0, open);
}

bool IsRailcheckReason(std::string_view reason) {
  return reason.substr(0, sizeof kReasonPrefix - 1) == kReasonPrefix;
}

std::vector<int> RailsInReason(std::string_view reason, size_t rails) {
  std::vector<int> out;
  size_t pos = 0;
  while ((pos = reason.find("rail", pos)) != std::string_view::npos) {
    const bool word_start = pos == 0 || !std::isalnum(static_cast<unsigned char>(reason[pos - 1]));
    pos += 4;
    if (!word_start) continue;
    size_t end = pos;
    long value = 0;
    while (end < reason.size() && end - pos < 4 &&
           std::isdigit(static_cast<unsigned char>(reason[end])))
      value = value * 10 + (reason[end++] - '0');
    if (end == pos ||
        (end < reason.size() && std::isalnum(static_cast<unsigned char>(reason[end]))))
      continue;
    if (static_cast<size_t>(value) < rails &&
        std::find(out.begin(), out.end(), static_cast<int>(value)) == out.end())
      out.push_back(static_cast<int>(value));
  }
  return out;
}

}  // namespace railguard::wire
