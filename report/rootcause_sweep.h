// SPDX-License-Identifier: GPL-2.0-or-later
// The fabric sweep's part of the root cause: which end of each link errs, leaf ports from the
// sweep, and the suspects node health cannot see (switch-side errors, a leaf's ports, a spine).
//
// Per link, from the sweep's findings ("unread" ones aside):
//   error counters on the host end only      end "host"   (NIC, transceiver, host end of cable)
//   error counters on the switch end only    end "switch" (switch port or its transceiver)
//   error counters on both ends              end "both"   (the cable or its optics)
//   width or speed below the rail's          the end that enables less ("host"/"switch"), or
//                                            "both" when neither does (cable or optics)
// A leaf with findings on at least kLeafMinNodes of its host ports and kLeafMinFraction of
// them is one suspect (end "leaf"); a spine with findings on at least kSpineMinPorts uplinks
// is one (end "spine"); other uplinks with findings are each one ("spine" when the spine end
// errs, else the leaf's end). In a three-tier fabric the links from spines to core switches
// are judged alike: a core switch with findings on at least kSpineMinPorts spine links is one
// suspect (kind "core", end "core"), any other such link one ("core-link"). An HCA the sweep
// did not find is a suspect "link-down".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "report/report.h"
#include "report/sweep_input.h"

namespace railguard::report {

constexpr int kSpineMinPorts = 2;

// The leaf rule above: `bad` of a leaf's `links` host ports with findings make a leaf fault.
bool LeafFaultRule(int bad, int links);

// The sweep's host links by (host, rail name) and missing HCAs, for lookups.
class SweepIndex {
 public:
  explicit SweepIndex(const SweepInput& sweep);
  const SweepInput& sweep() const { return sweep_; }
  // The host link of `host` on the rail named `rail`, or nullptr.
  const SweepLink* HostLink(const std::string& host, const std::string& rail) const;
  // True when the sweep lists that HCA as missing.
  bool Missing(const std::string& host, const std::string& rail) const;

 private:
  const SweepInput& sweep_;
  std::map<std::pair<std::string, std::string>, const SweepLink*> host_;
  std::map<std::pair<std::string, std::string>, bool> missing_;
};

// Which end of `l` errs ("" when the sweep found nothing on it) and the findings that say so.
struct EndVerdict {
  std::string end;                    // as Suspect::end
  std::string what;                   // "errors" (counters decide first), "width", "speed"
  std::vector<std::string> messages;  // the findings' messages
};
EndVerdict JudgeEnds(const SweepLink& l);

// A link suspect's title: the end's phrase, what was negotiated down by which end, `where`.
std::string LinkTitle(const EndVerdict& v, const std::string& where);

// What to call an end in a title: "host side only: NIC, transceiver or host end of the
// cable", ... ; "" for "".
std::string EndPhrase(const std::string& end);

// Adds the sweep's facts to `*suspects` (built from node health by FindSuspects): the end of
// each cable/nic suspect's link, the sweep's view of leaf suspects, and new suspects for
// findings no suspect covers (see the header comment). Does not rank.
void ApplySweep(const Report& r, const SweepIndex& sweep, std::vector<Suspect>* suspects);

}  // namespace railguard::report
