// SPDX-License-Identifier: GPL-2.0-or-later
// Drain reasons on the real node_exporter sysfs capture (shared/data, see its README): the
// mlx4_0 port's own files, with phys_state holding the capture's state line ("4: ACTIVE",
// state_show's text of drivers/infiniband/core/sysfs.c, read where phys_state_show's
// "%u: %s" is expected) and its rate trained to 1X ("10 Gb/sec (1X QDR)", rate_show's form).
// The reason used to be "railcheck: rail0 mlx4_0 port ACTIVE": the value that is fine.
#include <gtest/gtest.h>

#include "healthcheck/act.h"
#include "healthcheck/checks.h"
#include "healthcheck/gather.h"
#include "healthcheck/report.h"
#include "tests/healthcheck/health_test_util.h"
#include "tests/shared_data.h"

namespace railguard::health {
namespace healthcheck_reason_capture_test {

TEST(ReasonOnCapture, NamesTheWrongPhysStateByItsKernelNumberAndListsTheWidthToo) {
  RAILGUARD_NEEDS_SHARED(testing::kCaptureRel);
  testing::TempDir tmp;
  const std::string root = testing::MaterializeCapture(tmp / "sys");
  const std::string port = root + "/class/infiniband/mlx4_0/ports/1";
  const std::string state = testing::ReadFile(port + "/state");
  ASSERT_EQ(state, "4: ACTIVE\n");
  testing::fs::remove(port + "/phys_state");
  testing::WriteFile(port + "/phys_state", state);
  testing::fs::remove(port + "/rate");
  testing::WriteFile(port + "/rate", "10 Gb/sec (1X QDR)\n");

  GatherSpec spec;
  spec.node = "capture";
  spec.sysfs_root = root;
  spec.nics = {"mlx4_0"};
  spec.read_timeout_ms = 5000;
  const NodeFacts facts = Gather(spec, std::make_shared<RealSysfs>(), nullptr);
  HealthConfig cfg;
  JudgeInput in;
  in.facts = &facts;
  in.rail_links = {*topo::LinkSpecFromIbToken("4xQDR")};
  in.gpus_expected = 0;
  in.config = &cfg;
  in.now = 1700000000;
  const Judgement j = Judge(in);
  ASSERT_EQ(j.verdict.level, Level::kDrain);
  EXPECT_EQ(DrainReason(j.verdict),
            "railcheck: rail0 mlx4_0 phys_state 4 (PortConfigurationTraining) != 5 LinkUp (+1 "
            "more)");
  RunReport r;
  r.node = "capture";
  r.mode = "periodic";
  r.facts = &facts;
  r.verdict = &j.verdict;
  const std::string text = ReportText(r);
  EXPECT_NE(
      text.find("  drain    port.state: rail0 mlx4_0 phys_state 4 (PortConfigurationTraining) "
                "!= 5 LinkUp (the file read '4: ACTIVE')\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("  drain    port.rate: rail0 mlx4_0 rate 10 Gb/sec (1X QDR) < expected 40 "
                      "Gb/sec (4X QDR): width 1X < 4X\n"),
            std::string::npos)
      << text;
}

}  // namespace healthcheck_reason_capture_test
}  // namespace railguard::health
