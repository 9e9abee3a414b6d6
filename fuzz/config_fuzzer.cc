// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the railguard.yaml loader (LoadConfigString), as railcheck loads it (with its catalog
// of checks) and as the Slurm plugins do (without). A load that fails must say why; a config
// that loads must hold only values inside the documented ranges, and what loads with the
// catalog loads without it.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_check.h"
#include "config/load.h"
#include "healthcheck/check_table.h"

namespace railguard::fuzz {
namespace {

void FuzzConfig(const std::string& text) {
  Config plain;
  Diags plain_diags;
  const bool plain_ok =
      LoadConfigString(text, "/etc/slurm/railguard.yaml", &plain, &plain_diags, nullptr);
  RG_FUZZ_CHECK(plain_ok == plain_diags.empty(),
                "without a catalog: ok " + std::to_string(plain_ok) + " with diagnostics:\n" +
                    FormatDiags(plain_diags));
  Config c;
  Diags diags;
  if (!LoadConfigString(text, "/etc/slurm/railguard.yaml", &c, &diags,
                        &health::CheckCatalogOfTable())) {
    RG_FUZZ_CHECK(!diags.empty(), std::string("the load failed without a diagnostic"));
    return;
  }
  RG_FUZZ_CHECK(diags.empty(), "the load succeeded with diagnostics:\n" + FormatDiags(diags));
  RG_FUZZ_CHECK(plain_ok, "loads with the catalog but not without:\n" + FormatDiags(plain_diags));
  RG_FUZZ_CHECK(c.health.actions.size() == health::CheckCatalogOfTable().size(),
                "actions for " + std::to_string(c.health.actions.size()) + " checks");
  const PlacementConfig& p = c.placement;
  RG_FUZZ_CHECK(c.path == "/etc/slurm/railguard.yaml", "path " + c.path);
  RG_FUZZ_CHECK(c.topology_path.size() > 1 && c.topology_path[0] == '/',
                "topology path '" + c.topology_path + "' is not absolute");
  PlacementMode mode = PlacementMode::kOff;
  RG_FUZZ_CHECK(
      ParsePlacementMode(PlacementModeName(p.default_mode), &mode) && mode == p.default_mode,
      std::string("default_mode does not name itself"));
  RG_FUZZ_CHECK(!p.healthy_feature.empty() && p.healthy_feature.size() <= 64, "healthy_feature");
  RG_FUZZ_CHECK(p.wait_base_seconds >= 0 && p.wait_base_seconds <= kMaxWaitBaseSeconds,
                "wait_base_seconds " + std::to_string(p.wait_base_seconds));
  RG_FUZZ_CHECK(p.wait_per_node_seconds >= 0 && p.wait_per_node_seconds <= kMaxWaitPerNodeSeconds,
                "wait_per_node_seconds " + std::to_string(p.wait_per_node_seconds));
  RG_FUZZ_CHECK(
      p.wait_max_seconds >= p.wait_base_seconds && p.wait_max_seconds <= kMaxWaitMaxSeconds,
      "wait_max_seconds " + std::to_string(p.wait_max_seconds));
  RG_FUZZ_CHECK(p.max_sus_default >= 0 && p.max_sus_default <= kMaxSusLimit,
                "max_sus_default " + std::to_string(p.max_sus_default));
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzConfig(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
