// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the kernel's boot id (healthcheck/boot_id.h) and its gathering: the file as the
// kernel writes it (drivers/char/random.c: proc_do_uuid prints "%pU", a lower-case UUID and
// a newline, e.g. "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5b\n" as `cat
// /proc/sys/kernel/random/boot_id` shows), malformed contents, and Gather reading it.
#include "healthcheck/boot_id.h"

#include <gtest/gtest.h>

#include "healthcheck/gather.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_boot_id_test {

using testing::TempDir;
using testing::WriteFile;

TEST(BootId, TheKernelsFormatParses) {
  std::string id;
  std::string expected;
  ASSERT_TRUE(ParseBootId("6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5b\n", &id, &expected));
  EXPECT_EQ(id, "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5b");
  for (const char* bad : {"", "\n", "6c3a1f4e0d2b4e8f9a7c5b1d2e3f4a5b\n",
                          "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5\n",
                          "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5g\n"}) {
    EXPECT_FALSE(ParseBootId(bad, &id, &expected)) << bad;
  }
  EXPECT_EQ(expected, "a UUID such as \"0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b\"");
}

TEST(BootId, GatherReadsItFromTheConfiguredFile) {
  TempDir dir;
  WriteFile(dir / "proc/boot_id", "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5b\n");
  GatherSpec spec;
  spec.node = "n001";
  spec.sysfs_root = dir / "sys";
  spec.boot_id_file = dir / "proc/boot_id";
  NodeFacts f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  ASSERT_TRUE(f.boot_id.ok()) << f.boot_id.error;
  EXPECT_EQ(*f.boot_id.value, "6c3a1f4e-0d2b-4e8f-9a7c-5b1d2e3f4a5b");
  // A bad or missing file is an error naming it.
  WriteFile(dir / "proc/boot_id", "not a uuid\n");
  f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  EXPECT_FALSE(f.boot_id.ok());
  EXPECT_EQ(f.boot_id.error, dir / "proc/boot_id" +
                                 ": got 'not a uuid'; expected a UUID such as "
                                 "\"0b4c2d7e-5f1a-4c3b-9d2e-8a7f6e5d4c3b\"");
  spec.boot_id_file = dir / "proc/none";
  f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  EXPECT_FALSE(f.boot_id.ok());
  EXPECT_EQ(f.boot_id.error.rfind(dir / "proc/none", 0), 0u) << f.boot_id.error;
  spec.boot_id_file.clear();
  f = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  EXPECT_FALSE(f.boot_id.ok());
  EXPECT_TRUE(f.boot_id.error.empty()) << "not read";
}

}  // namespace healthcheck_boot_id_test
}  // namespace railguard::health
