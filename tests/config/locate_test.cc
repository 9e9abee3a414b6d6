// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for config/locate: the one rule that finds railguard.yaml, and libslurm's rule for
// slurm.conf. The places that exist are given (a fake PathExists), not read from this host.
#include "config/locate.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace railguard {
namespace config_locate_test {

// A fresh folder, removed at the end of the test.
struct Scratch {
  Scratch() {
    std::string tmpl = ::testing::TempDir() + "/rg-locate-XXXXXX";
    EXPECT_NE(mkdtemp(tmpl.data()), nullptr);
    dir = tmpl;
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::string operator/(const std::string& rel) const { return dir + "/" + rel; }
  std::string dir;
};

// A PathExists that knows only `paths`, and records every path asked about.
struct FakeDisk {
  FakeDisk() = default;
  explicit FakeDisk(std::set<std::string> p) : paths(std::move(p)) {}
  std::set<std::string> paths;
  std::vector<std::string> asked;
  PathExists Exists() {
    return [this](const std::string& p) {
      asked.push_back(p);
      return paths.count(p) > 0;
    };
  }
};

ConfigSearch Find(FakeDisk& disk, const std::string& explicit_path, const char* slurm_conf_env,
                  const std::string& default_slurm_conf = kDefaultSlurmConf) {
  return FindConfig(explicit_path, slurm_conf_env, default_slurm_conf, kNodeLocalConfig,
                    disk.Exists());
}

TEST(LocateConfig, AnExplicitPathWinsWithoutBeingLookedFor) {
  FakeDisk disk;
  ConfigSearch s = Find(disk, "/srv/rg.yaml", "/etc/slurm-test/slurm.conf");
  EXPECT_EQ(s.path, "/srv/rg.yaml");
  EXPECT_TRUE(s.found);
  EXPECT_TRUE(s.looked.empty());
  EXPECT_EQ(Find(disk, "rg.yaml", nullptr, "/opt/slurm/etc/slurm.conf").path, "rg.yaml");
  EXPECT_TRUE(disk.asked.empty());
}

TEST(LocateConfig, ElseItIsBesideTheSlurmConfOfSlurmConf) {
  FakeDisk disk{{"/etc/slurm-test/railguard.yaml", "/srv/c/railguard.yaml", "railguard.yaml",
                 kNodeLocalConfig}};
  EXPECT_EQ(Find(disk, "", "/etc/slurm-test/slurm.conf").path, "/etc/slurm-test/railguard.yaml");
  EXPECT_EQ(Find(disk, "", "/srv/c/cluster.conf", "/opt/slurm/etc/slurm.conf").path,
            "/srv/c/railguard.yaml");
  // A bare file name, as Slurm's get_extra_conf_path takes it: the working directory.
  EXPECT_EQ(Find(disk, "", "slurm.conf").path, "railguard.yaml");
}

TEST(LocateConfig, ElseBesideTheDefaultSlurmConf) {
  FakeDisk disk{{"/etc/slurm/railguard.yaml", "/opt/slurm/etc/railguard.yaml"}};
  EXPECT_EQ(Find(disk, "", nullptr).path, "/etc/slurm/railguard.yaml");
  EXPECT_EQ(Find(disk, "", "").path, "/etc/slurm/railguard.yaml");  // set but empty: not set
  // The slurmctld plugins pass the default slurm.conf Slurm was built with.
  EXPECT_EQ(Find(disk, "", nullptr, "/opt/slurm/etc/slurm.conf").path,
            "/opt/slurm/etc/railguard.yaml");
  EXPECT_EQ(ConfigBeside(kDefaultSlurmConf), "/etc/slurm/railguard.yaml");
}

// A configless node: slurmd gives its Prolog SLURM_CONF=<spool>/conf-cache/slurm.conf, where
// Slurm never puts railguard.yaml, and its HealthCheckProgram no SLURM_CONF at all, on a node
// without /etc/slurm. Both find the node's own /etc/railguard/railguard.yaml.
TEST(LocateConfig, OnAConfiglessNodeItIsTheNodesOwn) {
  FakeDisk disk{{kNodeLocalConfig}};
  ConfigSearch prolog = Find(disk, "", "/var/spool/slurmd/conf-cache/slurm.conf");
  EXPECT_EQ(prolog.path, "/etc/railguard/railguard.yaml");
  EXPECT_TRUE(prolog.found);
  ConfigSearch periodic = Find(disk, "", nullptr);
  EXPECT_EQ(periodic.path, "/etc/railguard/railguard.yaml");
  EXPECT_EQ(disk.asked, (std::vector<std::string>{"/var/spool/slurmd/conf-cache/railguard.yaml",
                                                  "/etc/railguard/railguard.yaml",
                                                  "/etc/slurm/railguard.yaml",
                                                  "/etc/railguard/railguard.yaml"}));
}

TEST(LocateConfig, BesideSlurmConfComesBeforeTheNodesOwn) {
  FakeDisk disk{{"/etc/slurm/railguard.yaml", kNodeLocalConfig}};
  EXPECT_EQ(Find(disk, "", nullptr).path, "/etc/slurm/railguard.yaml");
  EXPECT_EQ(disk.asked, (std::vector<std::string>{"/etc/slurm/railguard.yaml"}));
}

TEST(LocateConfig, NothingFoundNamesEveryPlaceLookedAt) {
  FakeDisk disk;
  ConfigSearch s = Find(disk, "", "/var/spool/slurmd/conf-cache/slurm.conf");
  EXPECT_FALSE(s.found);
  EXPECT_EQ(s.path, "/var/spool/slurmd/conf-cache/railguard.yaml");  // the usual place
  EXPECT_EQ(ConfigNotFound(s),
            "no railguard.yaml found: looked for /var/spool/slurmd/conf-cache/railguard.yaml "
            "(beside $SLURM_CONF /var/spool/slurmd/conf-cache/slurm.conf) and "
            "/etc/railguard/railguard.yaml (the node's own, for configless Slurm); give --config "
            "FILE, or install it in one of those places (railguard.yaml(5), FILES)");
  EXPECT_EQ(ConfigNotFound(Find(disk, "", nullptr, "/opt/slurm/etc/slurm.conf")),
            "no railguard.yaml found: looked for /opt/slurm/etc/railguard.yaml (beside the "
            "default slurm.conf /opt/slurm/etc/slurm.conf) and /etc/railguard/railguard.yaml "
            "(the node's own, for configless Slurm); give --config FILE, or install it in one "
            "of those places (railguard.yaml(5), FILES)");
}

TEST(LocateConfig, OnDiskAFileThatExistsIsFound) {
  Scratch tmp;
  std::ofstream(tmp / "railguard.yaml") << "topology: rails.yaml\n";
  const std::string mine = tmp / "node/railguard.yaml";
  ConfigSearch s = FindConfig("", (tmp / "slurm.conf").c_str(), kDefaultSlurmConf, mine);
  EXPECT_EQ(s.path, tmp / "railguard.yaml");
  EXPECT_TRUE(s.found);
  ConfigSearch none = FindConfig("", (tmp / "elsewhere/slurm.conf").c_str(), kDefaultSlurmConf,
                                 mine);
  EXPECT_FALSE(none.found);
  EXPECT_TRUE(PathExistsOnDisk(tmp / "railguard.yaml"));
  EXPECT_FALSE(PathExistsOnDisk(mine));
}

TEST(LocateConfig, TheOneArgumentFormReadsSlurmConfFromTheEnvironment) {
  Scratch tmp;
  std::ofstream(tmp / "railguard.yaml") << "topology: rails.yaml\n";
  const char* saved = std::getenv("SLURM_CONF");
  const std::string keep = saved ? saved : "";
  setenv("SLURM_CONF", (tmp / "slurm.conf").c_str(), 1);
  EXPECT_EQ(LocateConfig(""), tmp / "railguard.yaml");
  EXPECT_EQ(LocateConfig("/x/r.yaml"), "/x/r.yaml");
  if (saved) {
    setenv("SLURM_CONF", keep.c_str(), 1);
  } else {
    unsetenv("SLURM_CONF");
  }
}

// libslurm's order (read_config.c, _establish_config_source, 22.05 to 26.05).
TEST(FindSlurmConf, FollowsLibslurm) {
  FakeDisk disk;
  SlurmConfSearch env = FindSlurmConf("/srv/slurm.conf", kDefaultSlurmConf, disk.Exists());
  EXPECT_EQ(env.path, "/srv/slurm.conf");  // taken whether it exists or not, as libslurm does
  EXPECT_EQ(env.origin, "$SLURM_CONF");
  SlurmConfSearch none = FindSlurmConf(nullptr, "/opt/slurm/etc/slurm.conf", disk.Exists());
  EXPECT_EQ(none.path, "");
  EXPECT_EQ(none.looked,
            "$SLURM_CONF is not set, and neither /opt/slurm/etc/slurm.conf (the default) nor "
            "/run/slurm/conf/slurm.conf (a configless slurmd's cache) exists");
  disk.paths = {kConfiglessSlurmConf};
  SlurmConfSearch cache = FindSlurmConf("", kDefaultSlurmConf, disk.Exists());
  EXPECT_EQ(cache.path, "/run/slurm/conf/slurm.conf");
  EXPECT_EQ(cache.origin, "a configless slurmd's cache");
  disk.paths.insert(kDefaultSlurmConf);
  SlurmConfSearch dflt = FindSlurmConf(nullptr, kDefaultSlurmConf, disk.Exists());
  EXPECT_EQ(dflt.path, "/etc/slurm/slurm.conf");
  EXPECT_EQ(dflt.origin, "the default");
}

}  // namespace config_locate_test
}  // namespace railguard
