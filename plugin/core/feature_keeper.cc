// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/feature_keeper.h"

#include "base/names.h"
#include "wire/extra_json.h"

namespace railguard::plugin {

bool ExtraSaysHealthy(const std::string& extra) {
  wire::RailcheckExtra report;
  std::string err;
  if (wire::ReadExtra(extra, wire::ExtraReadMode::kStrict, &report, &err) !=
      wire::ExtraStatus::kOk)
    return false;
  // Judged in observe mode: nothing was to be kept out then. After a switch to enforce the
  // node's next railcheck run decides, within the drain budget.
  if (report.would) return true;
  if (report.healthy) return *report.healthy;  // railcheck's own decision on the feature
  if (report.verdict != "ok" && report.verdict != "warn") return false;
  for (wire::RailState s : report.rails)
    if (s != wire::RailState::kOk) return false;
  return true;
}

bool ExtraHealthCache::Healthy(const std::string& node, const std::string& extra) {
  auto it = by_node_.find(node);
  if (it != by_node_.end() && it->second.extra == extra) return it->second.healthy;
  const bool healthy = ExtraSaysHealthy(extra);
  ++parses_;
  if (it == by_node_.end()) {
    if (by_node_.size() >= kMaxNodes) by_node_.clear();
    it = by_node_.emplace(node, Seen()).first;
  }
  it->second.extra = extra;
  it->second.healthy = healthy;
  return healthy;
}

std::optional<FeatureFix> FixFeatures(const std::string& features, const std::string& features_act,
                                      bool healthy, const std::string& feature, bool restore,
                                      bool rail_node) {
  const std::string& active = features_act.empty() ? features : features_act;
  const bool available_has = HasFeature(features, feature);
  const bool active_has = HasFeature(active, feature);
  const bool active_want = healthy && (restore || active_has);
  const bool available_want = available_has || active_want || (restore && rail_node);
  if (active_want == active_has && available_want == available_has) return std::nullopt;
  return FeatureFix{WithFeature(features, feature, available_want),
                    WithFeature(active, feature, active_want)};
}

}  // namespace railguard::plugin
