// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for plugin/common/bridge: what the three plugin bridges share.
#include "plugin/common/bridge.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace railguard::plugin {
namespace plugin_bridge_test {

std::vector<std::pair<int, std::string>>* lines = nullptr;

void Collect(int level, const char* msg) { lines->emplace_back(level, msg); }

// Runs `f` with SLURM_CONF set to `value` (nullptr: unset), then restores it.
template <typename F>
void WithSlurmConf(const char* value, F f) {
  const char* saved = std::getenv("SLURM_CONF");
  const std::string keep = saved ? saved : "";
  if (value) {
    setenv("SLURM_CONF", value, 1);
  } else {
    unsetenv("SLURM_CONF");
  }
  f();
  if (saved) {
    setenv("SLURM_CONF", keep.c_str(), 1);
  } else {
    unsetenv("SLURM_CONF");
  }
}

std::string ConfigPath(const char* slurm_default_conf) {
  char* p = rg_config_path(slurm_default_conf);
  EXPECT_NE(p, nullptr);
  const std::string s = p ? p : "";
  std::free(p);
  return s;
}

TEST(Bridge, TheConfigPathFollowsTheLocateRule) {
  WithSlurmConf("/run/c1/slurm.conf", [] {
    EXPECT_EQ(ConfigPath("/opt/slurm/etc/slurm.conf"), "/run/c1/railguard.yaml");
  });
  WithSlurmConf(nullptr, [] {
    EXPECT_EQ(ConfigPath("/opt/slurm/etc/slurm.conf"), "/opt/slurm/etc/railguard.yaml");
    EXPECT_EQ(ConfigPath(nullptr), "/etc/slurm/railguard.yaml");
  });
}

TEST(Bridge, CatchAllTurnsAnyExceptionIntoTheErrorResult) {
  EXPECT_EQ(CatchAll(-1, [] { return 7; }), 7);
  EXPECT_EQ(CatchAll(-1, []() -> int { throw std::runtime_error("x"); }), -1);
  EXPECT_EQ(CatchAll(-2, []() -> int { throw 3; }), -2);
}

TEST(Bridge, DupIsAMallocdCopy) {
  char* p = Dup("rail");
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "rail");
  std::free(p);
}

TEST(Bridge, ReloadLoggedSaysWhatLoadedAndWhatStaysInForce) {
  std::vector<std::pair<int, std::string>> got;
  lines = &got;
  SetupHolder state;
  const auto describe = [](const RailSetup& s) { return "cluster " + s.topology.cluster; };
  const std::string good = RAILGUARD_SOURCE_DIR "/etc/railguard.yaml";
  EXPECT_EQ(ReloadLogged(state, "/nonexistent/railguard.yaml", Collect, describe),
            RG_LOAD_NONE);
  EXPECT_EQ(ReloadLogged(state, good, Collect, describe), RG_LOAD_OK);
  EXPECT_EQ(ReloadLogged(state, "/nonexistent/railguard.yaml", Collect, describe),
            RG_LOAD_KEPT);
  EXPECT_EQ(ReloadLogged(state, good, nullptr, describe), RG_LOAD_OK);  // no log: quiet
  lines = nullptr;
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], std::make_pair(static_cast<int>(RG_LOG_ERROR),
                                   std::string("/nonexistent/railguard.yaml: cannot open: No "
                                               "such file or directory")));
  EXPECT_EQ(got[1], std::make_pair(static_cast<int>(RG_LOG_INFO),
                                   "loaded " + good + " and " RAILGUARD_SOURCE_DIR
                                   "/etc/dev-4su.yaml: cluster raildev"));
  EXPECT_EQ(got[2].first, RG_LOG_ERROR);
}

}  // namespace plugin_bridge_test
}  // namespace railguard::plugin
