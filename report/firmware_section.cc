// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/firmware_section.h"

#include <algorithm>
#include <map>
#include <string>

namespace railguard::report {

std::vector<FirmwareRail> BuildFirmware(const std::vector<NodeRow>& nodes, size_t rails) {
  std::vector<FirmwareRail> out(rails);
  for (size_t k = 0; k < rails; ++k) {
    FirmwareRail& fr = out[k];
    fr.rail = static_cast<int>(k);
    std::map<std::string, int> count;
    for (const NodeRow& n : nodes)
      if (k < n.fw.size() && !n.fw[k].empty()) ++count[n.fw[k]];
    for (const auto& kv : count) fr.versions.push_back(FirmwareVersion{kv.first, kv.second});
    std::stable_sort(
        fr.versions.begin(), fr.versions.end(),
        [](const FirmwareVersion& a, const FirmwareVersion& b) { return a.nodes > b.nodes; });
    if (fr.versions.empty()) continue;
    if (fr.versions.size() == 1 || fr.versions[0].nodes > fr.versions[1].nodes)
      fr.majority = fr.versions[0].fw;
    if (fr.versions.size() == 1) continue;
    for (size_t i = 0; i < nodes.size(); ++i) {
      const NodeRow& n = nodes[i];
      if (k < n.fw.size() && !n.fw[k].empty() && n.fw[k] != fr.majority)
        fr.differ.push_back(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace railguard::report
