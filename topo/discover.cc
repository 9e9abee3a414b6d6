// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/discover.h"

#include "base/words.h"
#include "topo/discover_audit.h"
#include "topo/discover_infer.h"

namespace railguard::topo {

std::string Finding::ToString() const { return kind + ": " + message; }

std::string FindingsText(const std::vector<Finding>& findings, bool all, size_t first_few) {
  std::string out;
  for (size_t i = 0; i < findings.size();) {
    size_t end = i;
    while (end < findings.size() && findings[end].kind == findings[i].kind) ++end;
    if (all || end - i <= first_few) {
      for (size_t k = i; k < end; ++k) out += findings[k].ToString() + "\n";
    } else {
      out += findings[i].kind + ": " + std::to_string(end - i) +
             " findings (--all lists each), the first " + std::to_string(first_few) + ": ";
      for (size_t k = i; k < i + first_few; ++k)
        out += (k > i ? "; " : "") + findings[k].message;
      out += "\n";
    }
    i = end;
  }
  return out;
}

bool CompileExclude(const std::string& pattern, std::optional<std::regex>* out, std::string* err) {
  try {
    *out = std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    *err = "invalid regular expression '" + pattern + "': " + e.what();
    return false;
  }
  return true;
}

Discovery Discover(const IbFabric& fabric, const DiscoverOptions& opts) {
  const Inference in = Infer(fabric, opts);
  Discovery d;
  d.findings = Audit(fabric, in);
  d.topology = BuildTopology(fabric, in, opts);
  d.counts = in.counts;
  d.counts.spines = static_cast<int>(d.topology.spines.size());
  d.counts.cores = static_cast<int>(d.topology.cores.size());
  d.switches = ReportSwitches(fabric, in);
  return d;
}

std::string DiscoverySummary(const Discovery& d) {
  const DiscoveryCounts& c = d.counts;
  const Topology& t = d.topology;
  const std::string domains =
      t.domains.size() > t.sus.size()
          ? " (" + Plural(static_cast<long>(t.domains.size()), "one-hop domain") + ")"
          : std::string();
  return "discovered " + Plural(static_cast<long>(t.sus.size()), "scalable unit") + domains + ", " +
         Plural(c.hosts, "host") + ", " + Plural(static_cast<long>(t.rails.size()), "rail") + ", " +
         Plural(c.leaves, "leaf", "leaves") + (c.cores ? ", " : " and ") +
         Plural(c.spines, "spine") +
         (c.cores ? " and " + Plural(c.cores, "core switch", "core switches") : "") + " from " +
         Plural(c.switches, "switch", "switches") + ", " + Plural(c.cas, "CA") + " (" +
         std::to_string(c.hcas) + " compute HCAs, " + std::to_string(c.unnamed) + " unnamed, " +
         std::to_string(c.non_compute) + " non-compute) and " + Plural(c.links, "link") + "; " +
         Plural(static_cast<long>(d.findings.size()), "finding");
}

}  // namespace railguard::topo
