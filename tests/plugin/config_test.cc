// Tests for loading and validating the railguard config (railguard.yaml).
#include "topo/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace railguard {
namespace {

// Every key, each with a value other than its default; the tests break it one line at a time.
const char kFull[] =
    "topology: rails/dev.yaml\n"      // 1
    "placement:\n"                    // 2
    "  default_mode: strict\n"        // 3
    "  healthy_feature: fabric_ok\n"  // 4
    "  wait_base_seconds: 30\n"       // 5
    "  wait_per_node_seconds: 2\n"    // 6
    "  wait_max_seconds: 120\n"       // 7
    "  max_sus_default: 3\n";         // 8

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Loads `text` as /etc/slurm/railguard.yaml and returns its diagnostics, one per line.
std::string Errors(const std::string& text) {
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigString(text, "/etc/slurm/railguard.yaml", &c, &diags));
  return FormatDiags(diags);
}

TEST(Config, EveryKeyIsReadAndARelativeTopologyIsResolvedAgainstTheConfigFolder) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString(kFull, "/etc/slurm/railguard.yaml", &c, &diags))
      << FormatDiags(diags);
  EXPECT_EQ(c.path, "/etc/slurm/railguard.yaml");
  EXPECT_EQ(c.topology_path, "/etc/slurm/rails/dev.yaml");
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kStrict);
  EXPECT_EQ(c.placement.healthy_feature, "fabric_ok");
  EXPECT_EQ(c.placement.wait_base_seconds, 30);
  EXPECT_EQ(c.placement.wait_per_node_seconds, 2);
  EXPECT_EQ(c.placement.wait_max_seconds, 120);
  EXPECT_EQ(c.placement.max_sus_default, 3);
}

TEST(Config, OnlyTheTopologyIsRequiredAndEverythingElseHasItsDefault) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: /srv/rails.yaml\n", "railguard.yaml", &c, &diags));
  EXPECT_EQ(c.topology_path, "/srv/rails.yaml");
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kPrefer);
  EXPECT_EQ(c.placement.healthy_feature, "rail_healthy");
  EXPECT_EQ(c.placement.wait_base_seconds, 60);
  EXPECT_EQ(c.placement.wait_per_node_seconds, 5);
  EXPECT_EQ(c.placement.wait_max_seconds, 300);
  EXPECT_EQ(c.placement.max_sus_default, 0);
}

TEST(Config, ARelativeTopologyBesideAConfigWithoutFolderStaysRelative) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: dev.yaml\n", "railguard.yaml", &c, &diags));
  EXPECT_EQ(c.topology_path, "dev.yaml");
}

TEST(Config, AnEmptyPlacementSectionMeansDefaults) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigString("topology: t.yaml\nplacement:\n", "r.yaml", &c, &diags))
      << FormatDiags(diags);
  EXPECT_EQ(c.placement.default_mode, PlacementMode::kPrefer);
}

TEST(Config, UnknownTopLevelKeyIsAnErrorThatListsTheKeys) {
  // A later health: section is not known yet and is refused like any other unknown key.
  EXPECT_EQ(Errors(std::string(kFull) + "health:\n  interval: 60\n"),
            "/etc/slurm/railguard.yaml:9:1: unknown key 'health' in the railguard config; "
            "expected one of: topology, placement\n");
}

TEST(Config, UnknownPlacementKeyIsAnErrorThatListsTheKeys) {
  EXPECT_EQ(Errors(Replace(kFull, "  max_sus_default: 3\n", "  max_sus: 3\n")),
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
  EXPECT_EQ(Errors(Replace(kFull, "topology: rails/dev.yaml\n", "")),
            "/etc/slurm/railguard.yaml:1:1: missing key 'topology' in the railguard config\n");
}

TEST(Config, EmptyTopologyIsAnError) {
  EXPECT_EQ(Errors(Replace(kFull, "topology: rails/dev.yaml", "topology:")),
            "/etc/slurm/railguard.yaml:1:1: expected a non-empty path for topology, such as "
            "/etc/slurm/rails.yaml\n");
}

TEST(Config, BadModeSaysWhichModesExist) {
  EXPECT_EQ(Errors(Replace(kFull, "default_mode: strict", "default_mode: Strict")),
            "/etc/slurm/railguard.yaml:3:17: invalid default_mode 'Strict'; expected strict, "
            "prefer or off\n");
}

TEST(Config, FeatureWithAConstraintOperatorIsRefused) {
  EXPECT_EQ(Errors(Replace(kFull, "healthy_feature: fabric_ok", "healthy_feature: a&b")),
            "/etc/slurm/railguard.yaml:4:20: invalid healthy_feature 'a&b'; expected a node "
            "feature name of 1 to 64 letters, digits, '-', '_' or '.'\n");
}

TEST(Config, BadNumbersSayTheRange) {
  EXPECT_EQ(Errors(Replace(kFull, "wait_base_seconds: 30", "wait_base_seconds: -1")),
            "/etc/slurm/railguard.yaml:5:22: invalid wait_base_seconds '-1'; expected an "
            "integer from 0 to 86400\n");
  EXPECT_EQ(Errors(Replace(kFull, "wait_per_node_seconds: 2", "wait_per_node_seconds: 2s")),
            "/etc/slurm/railguard.yaml:6:26: invalid wait_per_node_seconds '2s'; expected an "
            "integer from 0 to 3600\n");
  EXPECT_EQ(Errors(Replace(kFull, "wait_max_seconds: 120", "wait_max_seconds: 999999999")),
            "/etc/slurm/railguard.yaml:7:21: invalid wait_max_seconds '999999999'; expected an "
            "integer from 0 to 604800\n");
  EXPECT_EQ(Errors(Replace(kFull, "max_sus_default: 3", "max_sus_default: [3]")),
            "/etc/slurm/railguard.yaml:8:20: invalid max_sus_default ''; expected an integer "
            "from 0 to 4096\n");
}

TEST(Config, WaitMaxBelowWaitBaseIsAnError) {
  EXPECT_EQ(Errors(Replace(kFull, "wait_max_seconds: 120", "wait_max_seconds: 20")),
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
  EXPECT_EQ(Errors(""),
            "/etc/slurm/railguard.yaml:1:1: expected a mapping with keys: topology, placement\n");
  EXPECT_EQ(Errors("- topology\n"),
            "/etc/slurm/railguard.yaml:1:1: expected a mapping with keys: topology, placement\n");
}

TEST(Config, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(Errors("topology: t.yaml\nplacement: {default_mode: strict\n"),
            "/etc/slurm/railguard.yaml:3:1: YAML syntax error: end of map flow not found\n");
}

TEST(Config, EveryProblemIsReportedInOneRun) {
  std::string text = Replace(kFull, "default_mode: strict", "default_mode: maybe");
  text = Replace(text, "wait_base_seconds: 30", "wait_base_seconds: x");
  text += "extra: 1\n";
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigString(text, "r.yaml", &c, &diags));
  EXPECT_EQ(diags.size(), 3u) << FormatDiags(diags);
}

TEST(Config, MissingFileIsOneClearError) {
  Config c;
  Diags diags;
  EXPECT_FALSE(LoadConfigFile("/nonexistent/railguard.yaml", &c, &diags));
  EXPECT_EQ(FormatDiags(diags),
            "/nonexistent/railguard.yaml: cannot open: No such file or directory\n");
}

TEST(Config, TheShippedExampleConfigLoads) {
  Config c;
  Diags diags;
  ASSERT_TRUE(LoadConfigFile(RAILGUARD_SOURCE_DIR "/etc/railguard.yaml", &c, &diags))
      << FormatDiags(diags);
  EXPECT_EQ(c.placement.healthy_feature, "rail_healthy");
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

}  // namespace
}  // namespace railguard
