// SPDX-License-Identifier: GPL-2.0-or-later
// The check that a node's rail NICs run one firmware on one board: nic.firmware compares
// class/infiniband/<nic>/fw_ver and board_id across the rail NICs of the node.
#include <map>
#include <string>
#include <vector>

#include "healthcheck/check_util.h"
#include "healthcheck/checks.h"

namespace railguard::health {
namespace {

using check_util::Make;
using check_util::RailNic;

// One attribute of the rail NICs that must agree: fw_ver or board_id.
struct Attr {
  const char* file;                   // "fw_ver"
  const char* brief;                  // "fw": for reasons
  Fact<std::string> NicFacts::*fact;  // where it was read into
  bool NicFacts::*present;            // nullptr: every device has the file
};

// Judges one attribute: unreadable files, then NICs that differ from the others.
void JudgeAttr(const NodeFacts& f, const Attr& a, std::vector<Finding>* out) {
  std::map<std::string, std::vector<const NicFacts*>> by_value;
  for (const NicFacts& n : f.nics) {
    if (!n.complete || !n.present) continue;
    if (a.present && !(n.*a.present)) continue;
    const Fact<std::string>& v = n.*a.fact;
    if (!v.ok() && v.error.empty()) continue;  // not read
    if (!v.ok()) {
      out->push_back(Make("nic.firmware", n.rail, Severity::kNote, RailNic(n) + " " + v.error,
                          RailNic(n) + " " + a.file + " unreadable"));
      continue;
    }
    by_value[*v.value].push_back(&n);
  }
  if (by_value.size() < 2) return;
  size_t total = 0, most = 0, ties = 0;
  const std::string* majority = nullptr;
  for (const auto& kv : by_value) {
    total += kv.second.size();
    if (kv.second.size() > most) {
      most = kv.second.size();
      majority = &kv.first;
      ties = 1;
    } else if (kv.second.size() == most) {
      ++ties;
    }
  }
  if (ties > 1) {
    // No value most NICs share: one finding for the node, listing every group.
    std::string groups;
    for (const auto& kv : by_value) {
      std::string names;
      for (const NicFacts* n : kv.second) names += (names.empty() ? "" : ", ") + RailNic(*n);
      groups += (groups.empty() ? "" : "; ") + kv.first + " (" + names + ")";
    }
    out->push_back(Make("nic.firmware", -1, Severity::kNote,
                        std::string("rail NICs disagree on ") + a.file + ": " + groups +
                            "; expected one " + a.file + " on every rail NIC",
                        std::string("rail NICs ") + a.brief + " differ"));
    return;
  }
  for (const auto& kv : by_value) {
    if (&kv.first == majority) continue;
    for (const NicFacts* n : kv.second) {
      out->push_back(Make("nic.firmware", n->rail, Severity::kNote,
                          RailNic(*n) + " " + a.file + " " + kv.first + ", the other rail NICs " +
                              *majority + " (" + std::to_string(most) + " of " +
                              std::to_string(total) + "); expected one " + a.file +
                              " on every rail NIC",
                          RailNic(*n) + " " + a.brief + " " + kv.first + " != " + *majority));
    }
  }
}

}  // namespace

// nic.firmware. Reads: no health.* (fw_ver and board_id of the rail NICs).
void CheckNicFirmware(const JudgeInput& in, const CounterMoves&, std::vector<Finding>* out) {
  JudgeAttr(*in.facts, Attr{"fw_ver", "fw", &NicFacts::fw_ver, nullptr}, out);
  JudgeAttr(*in.facts, Attr{"board_id", "board", &NicFacts::board_id, &NicFacts::board_id_present},
            out);
}

}  // namespace railguard::health
