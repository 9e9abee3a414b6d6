#include "topo/discover.h"

#include <cctype>

#include "topo/discover_audit.h"
#include "topo/discover_infer.h"

namespace railguard::topo {

std::string Finding::ToString() const { return kind + ": " + message; }

bool NaturalLess(const std::string& a, const std::string& b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i]));
    const bool db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      size_t ie = i;
      size_t je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      // Compare the numbers by value: skip leading zeros, then by length, then digit by digit.
      size_t is = i;
      size_t js = j;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (js + 1 < je && b[js] == '0') ++js;
      if (ie - is != je - js) return ie - is < je - js;
      const int c = a.compare(is, ie - is, b, js, je - js);
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
  d.switches = ReportSwitches(fabric, in);
  return d;
}

std::string DiscoverySummary(const Discovery& d) {
  const DiscoveryCounts& c = d.counts;
  const Topology& t = d.topology;
  return "discovered " + Plural(static_cast<long>(t.sus.size()), "scalable unit") + ", " +
         Plural(c.hosts, "host") + ", " + Plural(static_cast<long>(t.rails.size()), "rail") + ", " +
         Plural(c.leaves, "leaf", "leaves") + " and " + Plural(c.spines, "spine") + " from " +
         Plural(c.switches, "switch", "switches") + ", " + Plural(c.cas, "CA") + " (" +
         std::to_string(c.hcas) + " compute HCAs, " + std::to_string(c.unnamed) + " unnamed, " +
         std::to_string(c.non_compute) + " non-compute) and " + Plural(c.links, "link") + "; " +
         Plural(static_cast<long>(d.findings.size()), "finding");
}

}  // namespace railguard::topo
