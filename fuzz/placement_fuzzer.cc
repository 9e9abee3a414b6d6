// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes job_submit/rail's reading of what a user submits (DecidePlacement with GpuCount,
// RequireFeature and ParseMaxSwitchWait underneath). The input is text, one field per line:
//   1 min_nodes   2 num_tasks   3 ntasks_per_node   (decimal; saturating)
//   4 --constraint   5 tres_per_job   6 tres_per_task   7 SchedulerParameters
//   8 flags: s = --switches given (3 switches), n = --nodelist naming every node,
//     u = no node of the partition carries the healthy feature,
//     S / P / O = default_mode strict / prefer / off
//   9 and on: SPANK environment entries, "NAME=value"
// Checks that a decision stays within the fabric and the site's limits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "plugin/core/placement.h"

namespace railguard::fuzz {
namespace {

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Leading digits of `s`, saturating at UINT32_MAX; 0 without digits.
uint32_t Number(std::string_view s) {
  uint64_t n = 0;
  for (size_t i = 0; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i)
    n = std::min<uint64_t>(n * 10 + static_cast<uint64_t>(s[i] - '0'), UINT32_MAX);
  return static_cast<uint32_t>(n);
}

void Decide(const plugin::JobFacts& job, const PlacementConfig& config,
            const plugin::Fabric& fabric) {
  const plugin::Decision d = plugin::DecidePlacement(job, config, fabric);
  if (!d.message.empty())
    RG_FUZZ_CHECK(d.message.rfind("railguard: ", 0) == 0, "message '" + d.message + "'");
  if (d.refuse != plugin::Decision::kAccept)
    RG_FUZZ_CHECK(!d.message.empty() && !d.set_switches && !d.set_features,
                  "a refusal that changes the job or does not say why");
  if (d.set_switches) {
    RG_FUZZ_CHECK(d.req_switch >= 1 && d.req_switch <= fabric.su_sizes.size(),
                  "req_switch " + std::to_string(d.req_switch));
    RG_FUZZ_CHECK(d.wait4switch <= job.max_switch_wait,
                  "wait4switch " + std::to_string(d.wait4switch) + " above max_switch_wait " +
                      std::to_string(job.max_switch_wait));
  }
  if (d.set_features)
    RG_FUZZ_CHECK(d.features.find(config.healthy_feature) != std::string::npos,
                  "features '" + d.features + "' lack " + config.healthy_feature);
  if (d.hold)
    RG_FUZZ_CHECK(job.may_hold && d.refuse == plugin::Decision::kAccept && d.hold_nodes >= 2 &&
                      d.hold_nodes > job.healthy_nodes &&
                      d.message.rfind("railguard: held: ", 0) == 0,
                  "a hold for " + std::to_string(d.hold_nodes) + " nodes: '" + d.message + "'");
}

void FuzzPlacement(std::string_view text) {
  std::vector<std::string_view> f = Lines(text);
  f.resize(std::max<size_t>(f.size(), 8));
  plugin::JobFacts job;
  job.min_nodes = Number(f[0]);
  job.num_tasks = Number(f[1]);
  job.ntasks_per_node = Number(f[2]);
  job.features = std::string(f[3]);
  job.tres_per_job = std::string(f[4]);
  job.tres_per_task = std::string(f[5]);
  job.max_switch_wait = plugin::ParseMaxSwitchWait(f[6]);
  PlacementConfig config;
  for (char c : f[7]) {
    if (c == 's') {
      job.has_switches = true;
      job.user_switches = 3;
    }
    if (c == 'n') job.nodelist_count = UINT32_MAX;
    if (c == 'u') job.healthy_nodes = 0;
    if (c == 'h') job.healthy_nodes = 3;
    if (c == 'm') job.may_hold = false;  // an update
    if (c == 'S') config.default_mode = PlacementMode::kStrict;
    if (c == 'P') config.default_mode = PlacementMode::kPrefer;
    if (c == 'O') config.default_mode = PlacementMode::kOff;
  }
  for (size_t i = 8; i < f.size(); ++i) job.spank_env.emplace_back(f[i]);

  const plugin::Constraint c = plugin::RequireFeature(job.features, config.healthy_feature);
  if (c.kind == plugin::Constraint::kAdded)
    RG_FUZZ_CHECK(c.features.find(config.healthy_feature) != std::string::npos &&
                      c.features.find(job.features) != std::string::npos,
                  "'" + c.features + "' from '" + job.features + "'");

  Decide(job, config, plugin::Fabric{{8, 8, 8, 8}, 8});  // etc/dev-4su.yaml
  config.max_sus_default = 2;
  Decide(job, config, plugin::Fabric{{32, 16, 1}, 0});  // node types that differ
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzPlacement(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
