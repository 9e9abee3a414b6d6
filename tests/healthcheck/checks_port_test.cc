// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the checks of a rail NIC, its port and its link (healthcheck/checks_port.cc):
// nic.present, port.state, port.rate, port.link_layer, link.flap, on facts built by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "healthcheck/checks.h"
#include "tests/healthcheck/checks_test_util.h"

namespace railguard::health {
namespace healthcheck_checks_port_test {

using namespace check_testing;

TEST_F(Checks, NicPresentSaysWhatWasLookedFor) {
  facts_.nics[3].present = false;
  facts_.nics[3].missing = "/class/infiniband/mlx5_5 does not exist";
  facts_.nics[3].pci_path.clear();
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  ASSERT_EQ(j.verdict.rails.size(), 8u);
  EXPECT_EQ(j.verdict.findings[0].message,
            "nic.present: rail3 mlx5_5 missing: /class/infiniband/mlx5_5 does not exist; "
            "expected the rail NIC of the node type");
  EXPECT_EQ(j.verdict.findings[0].reason, "rail3 mlx5_5 missing");
  EXPECT_EQ(j.verdict.rails[3].status, RailStatus::kDown);
  EXPECT_EQ(j.verdict.level, Level::kDrain);
}

TEST_F(Checks, ARenumberedNicIsCaughtByTheNodeTypesPciAddresses) {
  // mlx5_4 failed to probe: the card of rail 3 came up as mlx5_4, and so on.
  facts_.nics[2].pci = Bdf(0x5e);
  JudgeInput in = Input();
  for (int k = 0; k < 8; ++k) in.nic_pci.push_back(Bdf(kBus[k]));
  std::vector<Finding> out;
  CheckNicPresent(in, ComputeCounterMoves(in), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "nic.present: rail2 mlx5_4 is PCI function 0000:5e:00.0, expected "
            "0000:4f:00.0 (nic_pci of the node type): the NICs were renumbered "
            "or moved");
  EXPECT_EQ(out[0].reason, "rail2 mlx5_4 is 0000:5e:00.0, not 0000:4f:00.0");
}

// Values as drivers/infiniband/core/sysfs.c prints them: state_show "%d: %s" with the names
// of enum ib_port_state, phys_state_show "%u: %s" with ib_port_phys_state_str() of
// include/rdma/ib_verbs.h; rate_show "%d%s Gb/sec (%dX%s)".
TEST_F(Checks, PortStateNamesEachWrongValueByItsKernelNumberAndTheExpectedOne) {
  facts_.nics[1].port.state = Val(PortStateValue{2, "INIT"}, "2: INIT");
  facts_.nics[6].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  facts_.nics[6].port.phys_state = Val(PortStateValue{2, "Polling"}, "2: Polling");
  std::vector<Finding> out;
  CheckPortState(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].message, "port.state: rail1 mlx5_3 state 2 (INIT) != 4 ACTIVE");
  EXPECT_EQ(out[0].reason, "rail1 mlx5_3 state 2 (INIT) != 4 ACTIVE");
  EXPECT_EQ(out[1].message,
            "port.state: rail6 mlx5_10 phys_state 2 (Polling) != 5 LinkUp, state 1 (DOWN) != 4 "
            "ACTIVE");
  // The most severe first: the physical layer, which the logical state follows.
  EXPECT_EQ(out[1].reason, "rail6 mlx5_10 phys_state 2 (Polling) != 5 LinkUp");
  EXPECT_EQ(out[1].severity, Severity::kDown);
}

// The case of issue 13: phys_state read "4: ACTIVE" (state's words under phys_state's number),
// and the port at 1X. The old reason was "rail0 mlx5_0 port ACTIVE" (the value that is fine)
// and the width was not judged at all.
TEST_F(Checks, APortOutOfPhysStateAndAt1XReportsBothAndTheReasonNamesWhatIsWrong) {
  facts_.nics[0].port.phys_state = Val(PortStateValue{4, "ACTIVE"}, "4: ACTIVE");
  facts_.nics[0].port.rate = Val(RateValue{100, 1, "NDR"}, "100 Gb/sec (1X NDR)");
  Judgement j = Judge(Input());
  std::string all;
  for (const Finding& f : j.verdict.findings) all += f.message + "\n";
  ASSERT_GE(j.verdict.findings.size(), 2u) << all;
  const Finding& state = j.verdict.findings[0];
  EXPECT_EQ(state.check, "port.state");
  EXPECT_EQ(state.message,
            "port.state: rail0 mlx5_0 phys_state 4 (PortConfigurationTraining) != 5 LinkUp (the "
            "file read '4: ACTIVE')");
  EXPECT_EQ(state.reason, "rail0 mlx5_0 phys_state 4 (PortConfigurationTraining) != 5 LinkUp");
  const Finding& rate = j.verdict.findings[1];
  EXPECT_EQ(rate.check, "port.rate");
  EXPECT_EQ(rate.message,
            "port.rate: rail0 mlx5_0 rate 100 Gb/sec (1X NDR) < expected 400 Gb/sec (4X NDR): "
            "width 1X < 4X");
  EXPECT_EQ(rate.reason, "rail0 mlx5_0 width 1X < 4X");
  EXPECT_EQ(j.verdict.level, Level::kDrain);
}

TEST_F(Checks, PhysStatesAreNamedAsTheKernelNumbersThem) {
  const std::pair<int, const char*> kPhys[] = {{1, "Sleep"},
                                               {2, "Polling"},
                                               {3, "Disabled"},
                                               {4, "PortConfigurationTraining"},
                                               {6, "LinkErrorRecovery"},
                                               {7, "Phy Test"}};
  for (const auto& [code, name] : kPhys) {
    facts_.nics[2].port.phys_state =
        Val(PortStateValue{code, name}, std::to_string(code) + ": " + name);
    std::vector<Finding> out;
    CheckPortState(Input(), ComputeCounterMoves(Input()), &out);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].reason,
              "rail2 mlx5_4 phys_state " + std::to_string(code) + " (" + name + ") != 5 LinkUp");
  }
  facts_.nics[2].port.phys_state = Val(PortStateValue{9, "Mystery"}, "9: Mystery");
  std::vector<Finding> out;
  CheckPortState(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "port.state: rail2 mlx5_4 phys_state 9 (unknown to the kernel) != 5 LinkUp (the file "
            "read '9: Mystery')");
}

TEST_F(Checks, PortRateNamesTheWidthOrSpeedThatFallsShortAndIsNotJudgedOnADownPort) {
  facts_.nics[3].port.rate = Val(RateValue{200, 2, "NDR"}, "200 Gb/sec (2X NDR)");
  facts_.nics[4].port.rate = Val(RateValue{200, 4, "HDR"}, "200 Gb/sec (4X HDR)");
  facts_.nics[6].port.rate = Val(RateValue{100, 2, "HDR"}, "100 Gb/sec (2X HDR)");
  facts_.nics[5].port.rate = Val(RateValue{10, 4, "SDR"}, "10 Gb/sec (4X SDR)");
  facts_.nics[5].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  std::vector<Finding> out;
  CheckPortRate(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].message,
            "port.rate: rail3 mlx5_5 rate 200 Gb/sec (2X NDR) < expected 400 Gb/sec (4X NDR): "
            "width 2X < 4X");
  EXPECT_EQ(out[0].reason, "rail3 mlx5_5 width 2X < 4X");
  EXPECT_EQ(out[0].severity, Severity::kDegraded);
  EXPECT_EQ(out[1].reason, "rail4 mlx5_6 speed HDR < NDR");
  EXPECT_EQ(out[2].reason, "rail6 mlx5_10 width 2X < 4X, speed HDR < NDR");
}

TEST_F(Checks, PortLinkLayerMustMatchTheConfig) {
  facts_.nics[0].port.link_layer = Val(std::string("Ethernet"), "Ethernet");
  std::vector<Finding> out;
  CheckPortLinkLayer(Input(), ComputeCounterMoves(Input()), &out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message,
            "port.link_layer: rail0 mlx5_0 link_layer Ethernet; expected "
            "InfiniBand");
  cfg_.link_layer = "Ethernet";
  out.clear();
  CheckPortLinkLayer(Input(), ComputeCounterMoves(Input()), &out);
  EXPECT_EQ(out.size(), 7u);
}

TEST_F(Checks, LinkDownedRisingIsAFlapThatStaysForTheWindow) {
  cfg_.flap_window_seconds = 3600;
  facts_.nics[2].port.counters["link_downed"].value = 3;
  NextRun(600);
  facts_.nics[2].port.counters["link_downed"].value = 5;
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.flap: rail2 mlx5_4 link went down since the last run "
                            "(link_downed 3 -> 5); 2 flap(s) in the last 60 min; expected a "
                            "stable link"}));
  NextRun(600);
  EXPECT_EQ(Messages(), (std::vector<std::string>{
                            "link.flap: rail2 mlx5_4 2 flap(s) in the last 60 min, the last "
                            "10 min ago; expected none for 60 min"}));
  Judgement j = Judge(Input());
  ASSERT_GE(j.verdict.findings.size(), 1u);
  EXPECT_EQ(j.verdict.findings[0].reason, "rail2 mlx5_4 link flapping (2 in 60 min)");
  EXPECT_EQ(j.verdict.level, Level::kDrain);
  NextRun(3600);
  EXPECT_TRUE(Messages().empty());
}

TEST_F(Checks, APortLeavingActiveBetweenRunsIsAFlapComingBackIsNot) {
  cfg_.flap_window_seconds = 0;
  NextRun(60);
  facts_.nics[7].port.state = Val(PortStateValue{1, "DOWN"}, "1: DOWN");
  std::vector<std::string> m = Messages();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1],
            "link.flap: rail7 mlx5_11 link went down since the last run (state ACTIVE -> "
            "DOWN); expected a stable link");
  NextRun(60);
  facts_.nics[7].port.state = Val(PortStateValue{4, "ACTIVE"}, "4: ACTIVE");
  EXPECT_TRUE(Messages().empty());
}

}  // namespace healthcheck_checks_port_test
}  // namespace railguard::health
