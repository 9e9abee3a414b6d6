// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the SPANK plugin's NCCL_IB_HCA cache (plugin/core/nccl_cache.h): a step takes a
// cached value only while railguard.yaml and its topology are the files it was made from,
// never from a cut or foreign file, and only from a folder no one else can write.
#include "plugin/core/nccl_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>

#include "plugin/core/nccl.h"
#include "tests/base/base_test_util.h"
#include "tests/plugin/dev_layout.h"

namespace railguard::plugin {
namespace plugin_nccl_cache_test {

std::map<std::string, FileIdentity>& Disk() {
  static std::map<std::string, FileIdentity> disk;
  return disk;
}

FileIdentity FakeIdentity(const std::string& path) {
  auto it = Disk().find(path);
  return it == Disk().end() ? FileIdentity{} : it->second;
}

FileIdentity Id(uint64_t ino, uint64_t size, int64_t sec) {
  FileIdentity id;
  id.exists = true;
  id.dev = 2049;
  id.ino = ino;
  id.size = size;
  id.mtime_sec = sec;
  id.mtime_nsec = 123456789;
  return id;
}

class NcclCache : public ::testing::Test {
 protected:
  void SetUp() override {
    Disk().clear();
    Disk()["/etc/slurm/railguard.yaml"] = Id(11, 40, 1700000000);
    Disk()["/etc/slurm/topo.yaml"] = Id(12, 9000, 1700000001);
    text_ = FormatNcclCache("/etc/slurm/railguard.yaml", Disk()["/etc/slurm/railguard.yaml"],
                            "/etc/slurm/topo.yaml", Disk()["/etc/slurm/topo.yaml"], topo_);
    ASSERT_FALSE(text_.empty());
  }
  NcclCacheAnswer Lookup(const std::string& text, const std::string& node, std::string* value) {
    return LookupNcclCache(text, "/etc/slurm/railguard.yaml", node, FakeIdentity, value);
  }
  topo::Topology topo_ = Dev4SuTopology();
  std::string text_;
};

TEST_F(NcclCache, GivesEveryNodeTheValueTheTopologyGives) {
  for (const char* node : {"n001", "n017", "n032"}) {
    std::string value;
    EXPECT_EQ(Lookup(text_, node, &value), NcclCacheAnswer::kListed) << node;
    EXPECT_EQ(value, NcclIbHca(topo_, node).value_or("?")) << node;
  }
  std::string value = "untouched";
  EXPECT_EQ(Lookup(text_, "login1", &value), NcclCacheAnswer::kNotListed);
  EXPECT_EQ(value, "untouched");
}

TEST_F(NcclCache, IsStaleOnceEitherFileChangesOrIsAnotherOne) {
  std::string value;
  Disk()["/etc/slurm/topo.yaml"].mtime_nsec += 1;  // the admin saved the topology
  EXPECT_EQ(Lookup(text_, "n001", &value), NcclCacheAnswer::kStale);
  SetUp();
  Disk()["/etc/slurm/railguard.yaml"].ino = 99;  // replaced by a rename
  EXPECT_EQ(Lookup(text_, "n001", &value), NcclCacheAnswer::kStale);
  SetUp();
  Disk().erase("/etc/slurm/topo.yaml");
  EXPECT_EQ(Lookup(text_, "n001", &value), NcclCacheAnswer::kStale);
  SetUp();
  EXPECT_EQ(LookupNcclCache(text_, "/etc/other/railguard.yaml", "n001", FakeIdentity, &value),
            NcclCacheAnswer::kStale);
  // Not checked again (the step checked it at its start): the value is given.
  Disk()["/etc/slurm/topo.yaml"].size += 1;
  EXPECT_EQ(LookupNcclCache(text_, "/etc/slurm/railguard.yaml", "n001", nullptr, &value),
            NcclCacheAnswer::kListed);
}

// The step's second lookup (its node, after the step's start found the text fresh) finds the
// node's line directly: the same answer as the full check for every node, none for a name
// that only begins another's, "-" or a name the topology lacks.
TEST_F(NcclCache, ASecondLookupInTheStepGivesWhatTheFirstGave) {
  std::string unused;
  std::string text = text_;
  const size_t at = text.find("node\tn003\t") + 10;
  text.replace(at, text.find('\n', at) - at, "-");  // n003 has no NICs in the topology
  ASSERT_EQ(Lookup(text, "", &unused), NcclCacheAnswer::kNotListed);
  for (const topo::ScalableUnit& su : topo_.sus) {
    for (const std::string& node : su.nodes) {
      std::string full = "?", direct = "?";
      const NcclCacheAnswer a = Lookup(text, node, &full);
      EXPECT_EQ(LookupNcclCache(text, "/etc/slurm/railguard.yaml", node, nullptr, &direct), a)
          << node;
      EXPECT_EQ(direct, full) << node;
    }
  }
  std::string value = "untouched";
  EXPECT_EQ(Lookup(text, "n003", &value), NcclCacheAnswer::kNotListed);
  for (const char* node : {"n003", "n00", "n0011", "login1", ""}) {
    EXPECT_EQ(LookupNcclCache(text, "/etc/slurm/railguard.yaml", node, nullptr, &value),
              NcclCacheAnswer::kNotListed)
        << node;
  }
  EXPECT_EQ(value, "untouched");
}

TEST_F(NcclCache, NeverTrustsACutOrMalformedFile) {
  std::string value;
  const size_t end = text_.rfind("end\t");
  EXPECT_EQ(Lookup(text_.substr(0, end), "n001", &value), NcclCacheAnswer::kStale);
  EXPECT_EQ(Lookup(text_.substr(0, text_.size() - 1), "n001", &value), NcclCacheAnswer::kStale);
  // A node line lost in the middle: the count no longer matches.
  std::string lost = text_;
  const size_t at = lost.find("node\tn002\t");
  lost.erase(at, lost.find('\n', at) + 1 - at);
  EXPECT_EQ(Lookup(lost, "n001", &value), NcclCacheAnswer::kStale);
  EXPECT_EQ(Lookup("", "n001", &value), NcclCacheAnswer::kStale);
  EXPECT_EQ(Lookup("railguard-nccl-cache 2\n" + text_.substr(text_.find('\n') + 1), "n001", &value),
            NcclCacheAnswer::kStale);
  std::string bad = text_;
  bad.replace(bad.find("node\tn003\t"), 10, "node\tn003 ");
  EXPECT_EQ(Lookup(bad, "n001", &value), NcclCacheAnswer::kStale);
}

TEST_F(NcclCache, CachesNothingForPathsWithTabsOrLineBreaks) {
  EXPECT_EQ(
      FormatNcclCache("/etc/sl\turm/railguard.yaml", Id(1, 1, 1), "/t.yaml", Id(2, 2, 2), topo_),
      "");
  EXPECT_EQ(FormatNcclCache("/etc/railguard.yaml", Id(1, 1, 1), "/t\n.yaml", Id(2, 2, 2), topo_),
            "");
  EXPECT_EQ(FormatNcclCache("/etc/railguard.yaml", FileIdentity{}, "/t.yaml", Id(2, 2, 2), topo_),
            "");
}

TEST(NcclCacheFile, OneFilePerConfigPathInTheFolder) {
  const std::string a = NcclCachePath("/run/railguard", "/etc/slurm/railguard.yaml");
  EXPECT_EQ(a.rfind("/run/railguard/nccl-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("/run/railguard/nccl-").size() + 16);
  EXPECT_NE(a, NcclCachePath("/run/railguard", "/etc/railguard/railguard.yaml"));
  EXPECT_EQ(a, NcclCachePath("/run/railguard", "/etc/slurm/railguard.yaml"));
}

TEST(NcclCacheFile, WrittenAndReadBackInAFolderOnlyItsOwnerWrites) {
  testing::ScratchDir scratch;
  const std::string dir = scratch / "cache";
  const std::string file = NcclCachePath(dir, "/etc/slurm/railguard.yaml");
  std::string text, why;
  EXPECT_FALSE(ReadNcclCache(dir, file, &text, &why));
  EXPECT_EQ(why, "");  // no folder yet: a miss, not a problem
  ASSERT_TRUE(WriteNcclCache(dir, file, "railguard-nccl-cache 1\n", &why)) << why;
  ASSERT_TRUE(ReadNcclCache(dir, file, &text, &why)) << why;
  EXPECT_EQ(text, "railguard-nccl-cache 1\n");
  // A folder others may write into: someone could plant values for other users' jobs.
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  EXPECT_FALSE(ReadNcclCache(dir, file, &text, &why));
  EXPECT_NE(why.find("writable by others"), std::string::npos) << why;
  EXPECT_FALSE(WriteNcclCache(dir, file, "x\n", &why));
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  // A link in the file's place is not followed.
  const std::string elsewhere = scratch / "elsewhere";
  std::ofstream(elsewhere) << "railguard-nccl-cache 1\n";
  ASSERT_EQ(unlink(file.c_str()), 0);
  ASSERT_EQ(symlink(elsewhere.c_str(), file.c_str()), 0);
  EXPECT_FALSE(ReadNcclCache(dir, file, &text, &why));
  // Nor a link in the folder's place.
  const std::string link_dir = scratch / "linked";
  ASSERT_EQ(symlink(dir.c_str(), link_dir.c_str()), 0);
  EXPECT_FALSE(ReadNcclCache(link_dir, file, &text, &why));
  EXPECT_NE(why.find("not a folder"), std::string::npos) << why;
}

}  // namespace plugin_nccl_cache_test
}  // namespace railguard::plugin
