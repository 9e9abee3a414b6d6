// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for config/load: the config with and without a catalog of checks, the bounded file
// reads, and the config + topology pair the plugins and railcheck load.
#include "config/load.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "healthcheck/check_table.h"

namespace railguard {
namespace config_load_test {

// A catalog of two checks, so that defaults and overrides are easy to tell apart.
const CheckCatalog kTwoChecks = {{"a.one", HealthAction::kDrain}, {"b.two", HealthAction::kWarn}};

// The diagnostics of loading `text` as /etc/slurm/railguard.yaml with `checks`, one per line;
// "" when it loads (then `*out`, if given, holds the config).
std::string Load(const std::string& text, const CheckCatalog* checks, Config* out = nullptr) {
  Config c;
  Diags diags;
  const bool ok = LoadConfigString(text, "/etc/slurm/railguard.yaml", &c, &diags, checks);
  EXPECT_EQ(ok, diags.empty()) << FormatDiags(diags);
  if (out) *out = c;
  return FormatDiags(diags);
}

// A fresh folder under the test's temporary directory.
std::string TempFolder() {
  std::string tmpl = ::testing::TempDir() + "/rg-load-XXXXXX";
  EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(LoadCatalog, UnnamedChecksGetTheCatalogDefaultAndNamedOnesTheirOverride) {
  Config c;
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {b.two: off}\n", &kTwoChecks, &c), "");
  const std::map<std::string, HealthAction> want = {{"a.one", HealthAction::kDrain},
                                                    {"b.two", HealthAction::kOff}};
  EXPECT_EQ(c.health.actions, want);
  EXPECT_EQ(Load("topology: t.yaml\n", &kTwoChecks, &c), "");
  EXPECT_EQ(c.health.actions, DefaultActions(kTwoChecks));
}

TEST(LoadCatalog, ANameOutsideTheCatalogIsRefusedWithTheCatalogListed) {
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {c.three: off}\n", &kTwoChecks),
            "/etc/slurm/railguard.yaml:3:13: unknown check 'c.three' in health.actions; "
            "expected one of: a.one, b.two\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: [a.one]\n", &kTwoChecks),
            "/etc/slurm/railguard.yaml:3:12: health.actions must be a mapping of check name to "
            "drain, restrict, warn or off; checks: a.one, b.two\n");
}

TEST(LoadCatalog, ADefaultHealthConfigNamesNoCheckSoTheCheckTableDefaultsApply) {
  EXPECT_TRUE(HealthConfig().actions.empty());
}

TEST(LoadNoCatalog, AnyCheckNameIsTakenAndOnlyTheNamedOnesAreKept) {
  Config c;
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {nic.rate: restrict, x: off}\n",
                 nullptr, &c),
            "");
  const std::map<std::string, HealthAction> want = {{"nic.rate", HealthAction::kRestrict},
                                                    {"x", HealthAction::kOff}};
  EXPECT_EQ(c.health.actions, want);
  EXPECT_EQ(Load("topology: t.yaml\n", nullptr, &c), "");
  EXPECT_TRUE(c.health.actions.empty());
}

TEST(LoadNoCatalog, ActionsMustStillBeAMappingOfNamesToKnownActions) {
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {nic.rate: reboot}\n", nullptr),
            "/etc/slurm/railguard.yaml:3:23: invalid action 'reboot' for nic.rate; expected "
            "drain, restrict, warn or off\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: drain\n", nullptr),
            "/etc/slurm/railguard.yaml:3:12: health.actions must be a mapping of check name to "
            "drain, restrict, warn or off\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {x: off, x: warn}\n", nullptr),
            "/etc/slurm/railguard.yaml:3:21: check 'x' appears twice in health.actions\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  actions: {[a]: off}\n", nullptr),
            "/etc/slurm/railguard.yaml:3:13: expected a check name as each key of "
            "health.actions\n");
}

TEST(LoadRailSetupCatalog, TheCatalogReachesTheConfigAndThePluginsTakeAnyName) {
  const std::string dir = TempFolder();
  const std::string conf = dir + "/railguard.yaml";
  WriteFile(conf, "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\n"
                  "health:\n  actions: {nic.rate: warn}\n");
  Diags diags;
  EXPECT_EQ(LoadRailSetup(conf, &diags, &health::CheckCatalogOfTable()), nullptr);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_NE(diags[0].message.find("unknown check 'nic.rate'"), std::string::npos)
      << diags[0].message;
  diags.clear();
  SetupHolder state;  // as topology/rail, job_submit/rail and SPANK load it: no catalog
  ASSERT_TRUE(state.Reload(conf, &diags)) << FormatDiags(diags);
  ASSERT_NE(state.current(), nullptr);
  EXPECT_EQ(state.current()->topology.cluster, "raildev");
  EXPECT_EQ(state.current()->config.health.actions.size(), 1u);
}

TEST(LoadSetupFiles, TheConfigAndTheTopologyMustBeRegularFiles) {
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadSetupConfig("/dev/null", &c, &diags));
  topo::Topology t;
  EXPECT_FALSE(LoadSetupTopology(RAILGUARD_SOURCE_DIR "/etc", &t, &diags));
  EXPECT_EQ(FormatDiags(diags),
            "/dev/null: not a regular file; expected a YAML file\n" RAILGUARD_SOURCE_DIR
            "/etc: not a regular file; expected a YAML file\n");
  diags.clear();
  EXPECT_TRUE(LoadSetupTopology(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml", &t, &diags))
      << FormatDiags(diags);
}

TEST(RailSetup, LoadsTheConfigAndTheTopologyItNames) {
  Diags diags;
  auto setup = LoadRailSetup(RAILGUARD_SOURCE_DIR "/etc/railguard.yaml", &diags);
  ASSERT_NE(setup, nullptr) << FormatDiags(diags);
  EXPECT_EQ(setup->topology.cluster, "raildev");
  EXPECT_EQ(setup->config.topology_path, RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml");
}

TEST(SetupHolder, AFailedReloadKeepsTheLastGoodSetup) {
  SetupHolder state;
  Diags diags;
  ASSERT_TRUE(state.Reload(RAILGUARD_SOURCE_DIR "/etc/railguard.yaml", &diags));
  auto good = state.current();
  EXPECT_FALSE(state.Reload("/nonexistent/railguard.yaml", &diags));
  EXPECT_EQ(state.current(), good);
  EXPECT_EQ(FormatDiags(diags),
            "/nonexistent/railguard.yaml: cannot open: No such file or directory\n");
}

TEST(SetupHolder, ADirectoryIsNotTakenForAConfigFile) {
  Diags diags;
  // The SuperPOD reference has no problems; a directory where a file should be does.
  const std::string dir = RAILGUARD_SOURCE_DIR "/etc";
  EXPECT_EQ(LoadRailSetup(dir, &diags), nullptr);
  EXPECT_EQ(FormatDiags(diags), dir + ": not a regular file; expected a YAML file\n");
}

}  // namespace config_load_test
}  // namespace railguard
