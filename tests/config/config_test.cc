// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for loading and validating the railguard config (railguard.yaml), as railcheck
// loads it: with its catalog of checks.
#include "config/load.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "healthcheck/check_table.h"
#include "tests/text_edit.h"

namespace railguard {
namespace config_config_test {

// The catalog railcheck passes (health.actions is validated against it).
const CheckCatalog* Checks() { return &health::CheckCatalogOfTable(); }

// Every key, each with a value other than its default; the tests break it one line at a time.
const char kFull[] =
    "topology: rails/dev.yaml\n"      // 1
    "placement:\n"                    // 2
    "  default_mode: prefer\n"        // 3
    "  healthy_feature: fabric_ok\n"  // 4
    "  wait_base_seconds: 30\n"       // 5
    "  wait_per_node_seconds: 2\n"    // 6
    "  wait_max_seconds: 120\n"       // 7
    "  max_sus_default: 3\n";         // 8

using railguard::testing::ReplaceOnce;

// Loads `text` as /etc/slurm/railguard.yaml and returns its diagnostics, one per line.
std::string Errors(const std::string& text) {
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigString(text, "/etc/slurm/railguard.yaml", &c, &diags, Checks()));
  return FormatDiags(diags);
}

TEST(Config, EveryKeyIsReadAndARelativeTopologyIsResolvedAgainstTheConfigFolder) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString(kFull, "/etc/slurm/railguard.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  EXPECT_EQ(c.path, "/etc/slurm/railguard.yaml");
  EXPECT_EQ(c.topology_path, "/etc/slurm/rails/dev.yaml");
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kPrefer);
  EXPECT_EQ(c.placement.healthy_feature, "fabric_ok");
  EXPECT_EQ(c.placement.wait_base_seconds, 30);
  EXPECT_EQ(c.placement.wait_per_node_seconds, 2);
  EXPECT_EQ(c.placement.wait_max_seconds, 120);
  EXPECT_EQ(c.placement.max_sus_default, 3);
}

TEST(Config, OnlyTheTopologyIsRequiredAndEverythingElseHasItsDefault) {
  Config c;
  Diags diags;
  ASSERT_TRUE(
      LoadConfigString("topology: /srv/rails.yaml\n", "railguard.yaml", &c, &diags, Checks()));
  EXPECT_EQ(c.topology_path, "/srv/rails.yaml");
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kStrict);
  EXPECT_EQ(c.placement.healthy_feature, "rail_healthy");
  EXPECT_EQ(c.placement.wait_base_seconds, 60);
  EXPECT_EQ(c.placement.wait_per_node_seconds, 5);
  EXPECT_EQ(c.placement.wait_max_seconds, 300);
  EXPECT_EQ(c.placement.max_sus_default, 0);
}

TEST(Config, ARelativeTopologyBesideAConfigWithoutFolderStaysRelative) {
  Config c;
  Diags diags;
  ASSERT_TRUE(
      LoadConfigString("topology: dev.yaml\n", "railguard.yaml", &c, &diags, Checks()));
  EXPECT_EQ(c.topology_path, "dev.yaml");
}

TEST(Config, AnEmptyPlacementSectionMeansDefaults) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\nplacement:\n", "r.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kStrict);
}

// Found by fuzz_config: "topology: /" was taken as the topology's path.
TEST(Config, ATopologyPathThatNamesAFolderIsAnError) {
  EXPECT_EQ(Errors("topology: /\n"),
            "/etc/slurm/railguard.yaml:1:11: invalid topology '/'; expected a file, not a "
            "folder, such as /etc/slurm/rails.yaml\n");
  EXPECT_EQ(Errors("topology: rails/\n"),
            "/etc/slurm/railguard.yaml:1:11: invalid topology 'rails/'; expected a file, not a "
            "folder, such as /etc/slurm/rails.yaml\n");
}

TEST(Config, UnknownTopLevelKeyIsAnErrorThatListsTheKeys) {
  EXPECT_EQ(Errors(std::string(kFull) + "monitoring:\n  interval: 60\n"),
            "/etc/slurm/railguard.yaml:9:1: unknown key 'monitoring' in the railguard config; "
            "expected one of: topology, placement, health\n");
}

TEST(Config, UnknownPlacementKeyIsAnErrorThatListsTheKeys) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "  max_sus_default: 3\n", "  max_sus: 3\n")),
            "/etc/slurm/railguard.yaml:8:3: unknown key 'max_sus' in placement; expected one "
            "of: default_mode, healthy_feature, wait_base_seconds, wait_per_node_seconds, "
            "wait_max_seconds, max_sus_default\n");
}

TEST(Config, RepeatedKeyIsAnError) {
  EXPECT_EQ(Errors(std::string(kFull) + "topology: other.yaml\n"),
            "/etc/slurm/railguard.yaml:9:1: key 'topology' appears twice in the railguard "
            "config\n");
}

TEST(Config, MissingTopologyIsAnError) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "topology: rails/dev.yaml\n", "")),
            "/etc/slurm/railguard.yaml:1:1: missing key 'topology' in the railguard config\n");
}

TEST(Config, EmptyTopologyIsAnError) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "topology: rails/dev.yaml", "topology:")),
            "/etc/slurm/railguard.yaml:1:1: expected a non-empty path for topology, such as "
            "/etc/slurm/rails.yaml\n");
}

TEST(Config, BadModeSaysWhichModesExist) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "default_mode: prefer", "default_mode: Strict")),
            "/etc/slurm/railguard.yaml:3:17: invalid default_mode 'Strict'; expected strict, "
            "prefer or off\n");
}

TEST(Config, FeatureWithAConstraintOperatorIsRefused) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "healthy_feature: fabric_ok", "healthy_feature: a&b")),
            "/etc/slurm/railguard.yaml:4:20: invalid healthy_feature 'a&b'; expected a node "
            "feature name of 1 to 64 letters, digits, '-', '_' or '.'\n");
}

TEST(Config, BadNumbersSayTheRange) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "wait_base_seconds: 30", "wait_base_seconds: -1")),
            "/etc/slurm/railguard.yaml:5:22: invalid wait_base_seconds '-1'; expected an "
            "integer from 0 to 86400\n");
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "wait_per_node_seconds: 2", "wait_per_node_seconds: 2s")),
            "/etc/slurm/railguard.yaml:6:26: invalid wait_per_node_seconds '2s'; expected an "
            "integer from 0 to 3600\n");
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "wait_max_seconds: 120", "wait_max_seconds: 999999999")),
            "/etc/slurm/railguard.yaml:7:21: invalid wait_max_seconds '999999999'; expected an "
            "integer from 0 to 604800\n");
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "max_sus_default: 3", "max_sus_default: [3]")),
            "/etc/slurm/railguard.yaml:8:20: invalid max_sus_default ''; expected an integer "
            "from 0 to 4096\n");
}

TEST(Config, WaitMaxBelowWaitBaseIsAnError) {
  EXPECT_EQ(Errors(ReplaceOnce(kFull, "wait_max_seconds: 120", "wait_max_seconds: 20")),
            "/etc/slurm/railguard.yaml:7:21: wait_max_seconds 20 is less than "
            "wait_base_seconds 30; expected at least 30\n");
}

TEST(Config, PlacementMustBeAMapping) {
  EXPECT_EQ(Errors("topology: t.yaml\nplacement: strict\n"),
            "/etc/slurm/railguard.yaml:2:12: placement must be a mapping with keys: "
            "default_mode, healthy_feature, wait_base_seconds, wait_per_node_seconds, "
            "wait_max_seconds, max_sus_default\n");
}

TEST(Config, EmptyFileAndNonMappingSayWhatIsExpected) {
  EXPECT_EQ(Errors(""), "/etc/slurm/railguard.yaml:1:1: expected a mapping with keys: topology, "
                        "placement, health\n");
  EXPECT_EQ(Errors("- topology\n"), "/etc/slurm/railguard.yaml:1:1: expected a mapping with "
                                    "keys: topology, placement, health\n");
}

TEST(Config, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(Errors("topology: t.yaml\nplacement: {default_mode: strict\n"),
            "/etc/slurm/railguard.yaml:3:1: YAML syntax error: end of map flow not found\n");
}

TEST(Config, EveryProblemIsReportedInOneRun) {
  std::string text = ReplaceOnce(kFull, "default_mode: prefer", "default_mode: maybe");
  text = ReplaceOnce(text, "wait_base_seconds: 30", "wait_base_seconds: x");
  text += "extra: 1\n";
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigString(text, "r.yaml", &c, &diags, Checks()));
  EXPECT_EQ(diags.size(), 3u) << FormatDiags(diags);
}

TEST(Config, MissingFileIsOneClearError) {
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigFile("/nonexistent/railguard.yaml", &c, &diags, Checks()));
  EXPECT_EQ(FormatDiags(diags),
            "/nonexistent/railguard.yaml: cannot open: No such file or directory\n");
}

TEST(Config, TheShippedExampleConfigLoads) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigFile(RAILGUARD_SOURCE_DIR "/etc/railguard.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  // It lists the defaults, so loading it changes none of them.
  const PlacementConfig defaults;
  EXPECT_EQ(c.placement.default_mode, defaults.default_mode);
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kStrict);
  EXPECT_EQ(c.placement.healthy_feature, defaults.healthy_feature);
  EXPECT_EQ(c.placement.wait_base_seconds, defaults.wait_base_seconds);
  EXPECT_EQ(c.placement.wait_per_node_seconds, defaults.wait_per_node_seconds);
  EXPECT_EQ(c.placement.wait_max_seconds, defaults.wait_max_seconds);
  EXPECT_EQ(c.placement.max_sus_default, defaults.max_sus_default);
}

TEST(Config, PlacementModesRoundTripThroughTheirNames) {
  for (PlacementMode m : {PlacementMode::kStrict, PlacementMode::kPrefer, PlacementMode::kOff}) {
    PlacementMode back = PlacementMode::kOff;
    ASSERT_TRUE(ParsePlacementMode(PlacementModeName(m), &back));
    EXPECT_EQ(back, m);
  }
  PlacementMode unchanged = PlacementMode::kPrefer;
  EXPECT_FALSE(ParsePlacementMode("STRICT", &unchanged));
  EXPECT_FALSE(ParsePlacementMode("", &unchanged));
  EXPECT_EQ(unchanged, PlacementMode::kPrefer);
}

// --- the health: section (railcheck) ------------------------------------------------------

// Every health key, each with a value other than its default.
const char kHealth[] =
    "topology: t.yaml\n"                                      // 1
    "health:\n"                                               // 2
    "  sysfs_root: /srv/fixtures/%n\n"                        // 3
    "  state_dir: /var/lib/rc/%n\n"                           // 4
    "  link_layer: Ethernet\n"                                // 5
    "  resume_after_clean_runs: 5\n"                          // 6
    "  flap_window_seconds: 600\n"                            // 7
    "  min_rate_interval_seconds: 30\n"                       // 8
    "  read_timeout_ms: 250\n"                                // 9
    "  prolog_time_limit_seconds: 4\n"                        // 10
    "  periodic_time_limit_seconds: 40\n"                     // 11
    "  actions: {port.rate: restrict, link.counters: off}\n"  // 12
    "  link_error_limits: {symbol_error: 50, VL15_dropped: off, "
    "hw_counters/out_of_buffer: 1000}\n"                                 // 13
    "  aer_limits: {correctable_per_hour: 10, nonfatal_per_hour: 2}\n";  // 14

TEST(HealthConfig, EveryKeyIsRead) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString(kHealth, "/etc/slurm/railguard.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  const HealthConfig& h = c.health;
  EXPECT_EQ(h.sysfs_root, "/srv/fixtures/%n");
  EXPECT_EQ(h.state_dir, "/var/lib/rc/%n");
  EXPECT_EQ(h.link_layer, "Ethernet");
  EXPECT_EQ(h.resume_after_clean_runs, 5);
  EXPECT_EQ(h.flap_window_seconds, 600);
  EXPECT_EQ(h.min_rate_interval_seconds, 30);
  EXPECT_EQ(h.read_timeout_ms, 250);
  EXPECT_EQ(h.prolog_time_limit_seconds, 4);
  EXPECT_EQ(h.periodic_time_limit_seconds, 40);
  EXPECT_EQ(h.actions.at("port.rate"), HealthAction::kRestrict);
  EXPECT_EQ(h.actions.at("link.counters"), HealthAction::kOff);
  EXPECT_EQ(h.actions.at("nic.present"), HealthAction::kDrain);  // untouched default
  EXPECT_EQ(h.link_error_limits.at("symbol_error"), 50);
  EXPECT_FALSE(h.link_error_limits.count("VL15_dropped"));
  EXPECT_EQ(h.link_error_limits.at("hw_counters/out_of_buffer"), 1000);
  EXPECT_EQ(h.link_error_limits.at("port_rcv_errors"), 10);  // untouched default
  EXPECT_EQ(h.aer_correctable_per_hour, 10);
  EXPECT_EQ(h.aer_nonfatal_per_hour, 2);
}

TEST(HealthConfig, WithoutAHealthSectionEveryDefaultHolds) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\n", "r.yaml", &c, &diags, Checks()));
  const HealthConfig& h = c.health;
  EXPECT_EQ(h.sysfs_root, "/sys");
  EXPECT_EQ(h.state_dir, "/var/lib/railguard/health");
  EXPECT_EQ(h.link_layer, "InfiniBand");
  EXPECT_EQ(h.resume_after_clean_runs, 3);
  EXPECT_EQ(h.flap_window_seconds, 3600);
  EXPECT_EQ(h.min_rate_interval_seconds, 3600);
  EXPECT_EQ(h.read_timeout_ms, 500);
  EXPECT_EQ(h.prolog_time_limit_seconds, 10);
  EXPECT_EQ(h.periodic_time_limit_seconds, 50);
  EXPECT_EQ(h.actions, DefaultActions(health::CheckCatalogOfTable()));
  EXPECT_EQ(h.actions.size(), CheckNames(health::CheckCatalogOfTable()).size());
  EXPECT_EQ(h.actions.at("link.errors"), HealthAction::kRestrict);
  EXPECT_EQ(h.actions.at("link.counters"), HealthAction::kWarn);
  EXPECT_EQ(h.link_error_limits, DefaultLinkErrorLimits());
  EXPECT_EQ(h.aer_correctable_per_hour, 100);
  EXPECT_EQ(h.aer_nonfatal_per_hour, 0);
}

// health.mode (issue 23: observe before enforce) and the drain budget.
TEST(HealthConfig, ModeAndDrainBudget) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\n", "r.yaml", &c, &diags, Checks()));
  EXPECT_EQ(c.health.mode, HealthMode::kEnforce);
  EXPECT_EQ(c.health.drain_budget_nodes, 0);
  EXPECT_EQ(c.health.drain_budget_percent, 5);
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\nhealth:\n  mode: observe\n  drain_budget: 16\n",
                               "r.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  EXPECT_EQ(c.health.mode, HealthMode::kObserve);
  EXPECT_STREQ(HealthModeName(c.health.mode), "observe");
  EXPECT_EQ(c.health.drain_budget_nodes, 16);
  EXPECT_EQ(c.health.drain_budget_percent, 0);
  c = Config();
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\nhealth:\n  drain_budget: 10%\n", "r.yaml", &c,
                               &diags, Checks()));
  EXPECT_EQ(c.health.drain_budget_nodes, 0);
  EXPECT_EQ(c.health.drain_budget_percent, 10);
  EXPECT_EQ(Errors("topology: t\nhealth:\n  mode: dry-run\n"),
            "/etc/slurm/railguard.yaml:3:9: invalid mode 'dry-run'; expected enforce or "
            "observe\n");
  const std::string budget_form =
      "; expected a node count from 1 to 1000000 such as 16, or a percentage of the rail "
      "topology's nodes from 1% to 100% such as 5%\n";
  EXPECT_EQ(Errors("topology: t\nhealth:\n  drain_budget: 0\n"),
            "/etc/slurm/railguard.yaml:3:17: invalid drain_budget '0'" + budget_form);
  EXPECT_EQ(Errors("topology: t\nhealth:\n  drain_budget: 150%\n"),
            "/etc/slurm/railguard.yaml:3:17: invalid drain_budget '150%'" + budget_form);
  EXPECT_EQ(Errors("topology: t\nhealth:\n  drain_budget: -3\n"),
            "/etc/slurm/railguard.yaml:3:17: invalid drain_budget '-3'" + budget_form);
}

// Where jobs leave their own numbers for railctl job: "%j" is the job id; "%n" means nothing
// there (one shared folder per job, not per node) and is refused.
TEST(HealthConfig, JobAppDirTakesTheJobIdPlaceholder) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\nhealth:\n  job_app_dir: /shared/apps/%j\n",
                               "r.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  EXPECT_EQ(c.health.job_app_dir, "/shared/apps/%j");
  EXPECT_EQ(Config().health.job_app_dir, "");
  EXPECT_EQ(Errors("topology: t\nhealth:\n  job_app_dir: /shared/%n/apps\n"),
            "/etc/slurm/railguard.yaml:3:16: invalid job_app_dir '/shared/%n/apps'; expected '%' "
            "only in %j (the job id), such as /shared/railguard/apps/%j\n");
  EXPECT_EQ(Errors("topology: t\nhealth:\n  job_app_dir: apps/%j\n"),
            "/etc/slurm/railguard.yaml:3:16: invalid job_app_dir 'apps/%j'; expected an absolute "
            "path, such as /shared/railguard/apps/%j\n");
}

TEST(HealthConfig, UnknownKeysChecksAndCountersListWhatExists) {
  EXPECT_EQ(Errors("topology: t\nhealth:\n  interval: 5\n"),
            "/etc/slurm/railguard.yaml:3:3: unknown key 'interval' in health; expected one of: "
            "mode, sysfs_root, state_dir, events_log, job_log, job_app_dir, link_layer, "
            "resume_after_clean_runs, "
            "flap_window_seconds, min_rate_interval_seconds, read_timeout_ms, "
            "prolog_time_limit_seconds, periodic_time_limit_seconds, actions, link_error_limits, "
            "aer_limits, eth_error_limits, rate_windows_seconds, boot_id_file, "
            "extra_refresh_seconds, confirm_reads, confirm_delay_ms, fabric_evidence, "
            "fabric_evidence_max_age_seconds, drain_budget\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "port.rate: restrict", "nic.rate: restrict")),
            "/etc/slurm/railguard.yaml:12:13: unknown check 'nic.rate' in health.actions; "
            "expected one of: nic.present, nic.firmware, port.state, port.link_layer, port.rate, "
            "link.errors, link.flap, link.counters, pcie.speed, pcie.width, pcie.gpu_speed, "
            "pcie.aer, pcie.aer_correctable, gpu.count, rail.affinity, gather.timeout, "
            "eth.present, eth.state, eth.speed, eth.flap, eth.errors, eth.counters, "
            "fabric.switch_errors, fabric.switch_rate, fabric.leaf\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "port.rate: restrict", "port.rate: reboot")),
            "/etc/slurm/railguard.yaml:12:24: invalid action 'reboot' for port.rate; expected "
            "drain, restrict, warn or off\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "symbol_error: 50", "link_downed: 1")),
            "/etc/slurm/railguard.yaml:13:23: unknown counter 'link_downed' in "
            "health.link_error_limits; expected one of: symbol_error, link_error_recovery, "
            "port_rcv_errors, port_rcv_remote_physical_errors, port_rcv_switch_relay_errors, "
            "port_xmit_discards, port_xmit_constraint_errors, port_rcv_constraint_errors, "
            "local_link_integrity_errors, excessive_buffer_overrun_errors, VL15_dropped, "
            "port_xmit_wait, or hw_counters/<name> (link_downed is judged by link.flap)\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "symbol_error: 50", "symbol_error: many")),
            "/etc/slurm/railguard.yaml:13:37: invalid symbol_error (errors per hour, or off) "
            "'many'; expected an integer from 0 to 1000000000000\n");
}

TEST(HealthConfig, PathsMustBeAbsoluteWithOnlyThePercentNPlaceholder) {
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "sysfs_root: /srv/fixtures/%n", "sysfs_root: fixtures")),
            "/etc/slurm/railguard.yaml:3:15: invalid sysfs_root 'fixtures'; expected an "
            "absolute path, such as / or /srv/fixtures/%n\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "state_dir: /var/lib/rc/%n", "state_dir: /var/lib/rc/%h")),
            "/etc/slurm/railguard.yaml:4:14: invalid state_dir '/var/lib/rc/%h'; expected '%' "
            "only in %n (the node name), such as /var/lib/railguard/health\n");
}

TEST(HealthConfig, LimitsSayTheirRangeAndWhyHealthCheckTimeStaysBelowSixtySeconds) {
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "periodic_time_limit_seconds: 40",
                           "periodic_time_limit_seconds: 60")),
            "/etc/slurm/railguard.yaml:11:32: invalid periodic_time_limit_seconds '60'; "
            "expected an integer from 1 to 59\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "resume_after_clean_runs: 5", "resume_after_clean_runs: 0")),
            "/etc/slurm/railguard.yaml:6:28: invalid resume_after_clean_runs '0'; expected an "
            "integer from 1 to 1000\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "read_timeout_ms: 250", "read_timeout_ms: 4000")),
            "/etc/slurm/railguard.yaml:9:20: read_timeout_ms 4000 is not below the shortest run "
            "time limit (4000 ms); expected less than 4000\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "link_layer: Ethernet", "link_layer: RoCE")),
            "/etc/slurm/railguard.yaml:5:15: invalid link_layer 'RoCE'; expected InfiniBand or "
            "Ethernet\n");
  EXPECT_EQ(Errors(ReplaceOnce(kHealth, "nonfatal_per_hour: 2", "nonfatal: 2")),
            "/etc/slurm/railguard.yaml:14:42: unknown key 'nonfatal' in health.aer_limits; "
            "expected one of: correctable_per_hour, nonfatal_per_hour\n");
}

// Windows (issue 13 item 5): error rates over the last hour and day by default.
TEST(HealthConfig, RateWindowsAndTheBootIdFile) {
  const HealthConfig d;
  EXPECT_EQ(d.rate_windows_seconds, (std::vector<int>{3600, 86400}));
  EXPECT_EQ(d.boot_id_file, "/proc/sys/kernel/random/boot_id");
  // The IBTA bound as NVSentinel applies it; any increase of the 4-bit counters.
  EXPECT_EQ(d.link_error_limits.at("symbol_error"), 120);
  EXPECT_EQ(d.link_error_limits.at("local_link_integrity_errors"), 0);
  EXPECT_EQ(d.link_error_limits.at("excessive_buffer_overrun_errors"), 0);
  const std::string base = "topology: t.yaml\nhealth:\n";
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString(base + "  rate_windows_seconds: [600, 7200]\n"
                                      "  boot_id_file: /srv/fixtures/%n/boot_id\n",
                               "/etc/slurm/railguard.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  EXPECT_EQ(c.health.rate_windows_seconds, (std::vector<int>{600, 7200}));
  EXPECT_EQ(c.health.boot_id_file, "/srv/fixtures/%n/boot_id");
  const std::string list =
      "expected a list of 1 to 4 window lengths in seconds, shortest first, each 60 to "
      "604800, such as [3600, 86400]\n";
  EXPECT_EQ(Errors(base + "  rate_windows_seconds: []\n"),
            "/etc/slurm/railguard.yaml:3:25: invalid health.rate_windows_seconds; " + list);
  EXPECT_EQ(Errors(base + "  rate_windows_seconds: 3600\n"),
            "/etc/slurm/railguard.yaml:3:25: invalid health.rate_windows_seconds; " + list);
  EXPECT_EQ(Errors(base + "  rate_windows_seconds: [86400, 3600]\n"),
            "/etc/slurm/railguard.yaml:3:33: rate_windows_seconds 3600 is not longer than the "
            "window before it (86400); " + list);
  EXPECT_EQ(Errors(base + "  rate_windows_seconds: [30]\n"),
            "/etc/slurm/railguard.yaml:3:26: invalid rate_windows_seconds '30'; expected an "
            "integer from 60 to 604800\n");
  EXPECT_EQ(Errors(base + "  boot_id_file: boot_id\n"),
            "/etc/slurm/railguard.yaml:3:17: invalid boot_id_file 'boot_id'; expected an "
            "absolute path, such as /proc/sys/kernel/random/boot_id\n");
}

TEST(HealthConfig, TheShippedExampleDocumentsEveryDefault) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigFile(RAILGUARD_SOURCE_DIR "/etc/railguard.yaml", &c, &diags, Checks()))
      << FormatDiags(diags);
  const HealthConfig d;
  const HealthConfig& h = c.health;
  EXPECT_EQ(h.sysfs_root, d.sysfs_root);
  EXPECT_EQ(h.state_dir, d.state_dir);
  EXPECT_EQ(h.link_layer, d.link_layer);
  EXPECT_EQ(h.resume_after_clean_runs, d.resume_after_clean_runs);
  EXPECT_EQ(h.flap_window_seconds, d.flap_window_seconds);
  EXPECT_EQ(h.min_rate_interval_seconds, d.min_rate_interval_seconds);
  EXPECT_EQ(h.read_timeout_ms, d.read_timeout_ms);
  EXPECT_EQ(h.prolog_time_limit_seconds, d.prolog_time_limit_seconds);
  EXPECT_EQ(h.periodic_time_limit_seconds, d.periodic_time_limit_seconds);
  EXPECT_EQ(h.actions, DefaultActions(health::CheckCatalogOfTable()));
  EXPECT_EQ(h.link_error_limits, d.link_error_limits);
  EXPECT_EQ(h.aer_correctable_per_hour, d.aer_correctable_per_hour);
  EXPECT_EQ(h.rate_windows_seconds, d.rate_windows_seconds);
  EXPECT_EQ(h.boot_id_file, d.boot_id_file);
  EXPECT_EQ(h.aer_nonfatal_per_hour, d.aer_nonfatal_per_hour);
}

TEST(HealthConfig, HealthActionsRoundTripThroughTheirNames) {
  for (HealthAction a :
       {HealthAction::kDrain, HealthAction::kRestrict, HealthAction::kWarn, HealthAction::kOff}) {
    HealthAction back = HealthAction::kOff;
    ASSERT_TRUE(ParseHealthAction(HealthActionName(a), &back));
    EXPECT_EQ(back, a);
  }
  HealthAction unchanged = HealthAction::kWarn;
  EXPECT_FALSE(ParseHealthAction("Drain", &unchanged));
  EXPECT_EQ(unchanged, HealthAction::kWarn);
}

}  // namespace config_config_test
}  // namespace railguard
