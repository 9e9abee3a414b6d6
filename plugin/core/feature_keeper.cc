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

bool ExtraHealthCache::Healthy(size_t slot, std::string_view extra) {
  if (slot >= kMaxSlots || extra.size() > UINT32_MAX) {
    ++parses_;
    return ExtraSaysHealthy(std::string(extra));
  }
  if (slot >= by_slot_.size()) by_slot_.resize(slot + 1);
  Seen& seen = by_slot_[slot];
  const uint64_t digest = std::hash<std::string_view>{}(extra);
  const auto size = static_cast<uint32_t>(extra.size());
  if (seen.known && seen.size == size && seen.digest == digest) return seen.healthy;
  seen.healthy = ExtraSaysHealthy(std::string(extra));
  seen.digest = digest;
  seen.size = size;
  seen.known = true;
  ++parses_;
  return seen.healthy;
}

std::optional<FeatureFix> FixFeatures(std::string_view features, std::string_view features_act,
                                      bool healthy, std::string_view feature, bool restore,
                                      bool rail_node) {
  const std::string_view active = features_act.empty() ? features : features_act;
  const bool available_has = HasFeature(features, feature);
  const bool active_has = HasFeature(active, feature);
  const bool active_want = healthy && (restore || active_has);
  const bool available_want = available_has || active_want || (restore && rail_node);
  if (active_want == active_has && available_want == available_has) return std::nullopt;
  return FeatureFix{WithFeature(features, feature, available_want),
                    WithFeature(active, feature, active_want)};
}

}  // namespace railguard::plugin
