// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for config/locate: the one rule that finds railguard.yaml.
#include "config/locate.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace railguard {
namespace {

TEST(LocateConfig, AnExplicitPathWins) {
  EXPECT_EQ(LocateConfig("/srv/rg.yaml", "/etc/slurm-test/slurm.conf"), "/srv/rg.yaml");
  EXPECT_EQ(LocateConfig("rg.yaml", nullptr, "/opt/slurm/etc/slurm.conf"), "rg.yaml");
}

TEST(LocateConfig, ElseItIsBesideTheSlurmConfOfSlurmConf) {
  EXPECT_EQ(LocateConfig("", "/etc/slurm-test/slurm.conf"), "/etc/slurm-test/railguard.yaml");
  EXPECT_EQ(LocateConfig("", "/srv/c/cluster.conf", "/opt/slurm/etc/slurm.conf"),
            "/srv/c/railguard.yaml");
  // A bare file name, as Slurm's get_extra_conf_path takes it: the working directory.
  EXPECT_EQ(LocateConfig("", "slurm.conf"), "railguard.yaml");
}

TEST(LocateConfig, ElseBesideTheDefaultSlurmConf) {
  EXPECT_EQ(LocateConfig("", nullptr), "/etc/slurm/railguard.yaml");
  EXPECT_EQ(LocateConfig("", ""), "/etc/slurm/railguard.yaml");  // set but empty: not set
  // The slurmctld plugins pass the default slurm.conf Slurm was built with.
  EXPECT_EQ(LocateConfig("", nullptr, "/opt/slurm/etc/slurm.conf"),
            "/opt/slurm/etc/railguard.yaml");
  EXPECT_EQ(ConfigBeside(kDefaultSlurmConf), "/etc/slurm/railguard.yaml");
}

TEST(LocateConfig, TheOneArgumentFormReadsSlurmConfFromTheEnvironment) {
  const char* saved = std::getenv("SLURM_CONF");
  const std::string keep = saved ? saved : "";
  setenv("SLURM_CONF", "/run/test-slurm/slurm.conf", 1);
  EXPECT_EQ(LocateConfig(""), "/run/test-slurm/railguard.yaml");
  EXPECT_EQ(LocateConfig("/x/r.yaml"), "/x/r.yaml");
  unsetenv("SLURM_CONF");
  EXPECT_EQ(LocateConfig(""), "/etc/slurm/railguard.yaml");
  if (saved) setenv("SLURM_CONF", keep.c_str(), 1);
}

}  // namespace
}  // namespace railguard
