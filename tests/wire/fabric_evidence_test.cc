// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the fabric evidence file (wire/fabric_evidence.h): round trip and bad input.
#include "wire/fabric_evidence.h"

#include <gtest/gtest.h>

namespace railguard::wire {
namespace wire_fabric_evidence_test {

FabricEvidence Sample() {
  FabricEvidence e;
  e.time = 1714560000;
  e.sweep = "/var/lib/railguard/sweep.json";
  e.complete = false;
  e.links = {{"n013", 3, "su2-rail3", 5, "errors", "SymbolErrorCounter 42 on the leaf side"},
             {"n018", 6, "su3-rail6", 2, "width", "width 1X < 4X"}};
  e.leaves = {{"su4", 1, "su4-rail1", 8, 8}};
  return e;
}

TEST(FabricEvidence, WhatIsWrittenReadsBack) {
  const std::string text = FabricEvidenceToJson(Sample());
  FabricEvidence back;
  Diags d;
  ASSERT_TRUE(ParseFabricEvidence(text, "e.json", &back, &d)) << FormatDiags(d);
  EXPECT_EQ(back.time, 1714560000);
  EXPECT_EQ(back.sweep, "/var/lib/railguard/sweep.json");
  EXPECT_FALSE(back.complete);
  ASSERT_EQ(back.links.size(), 2u);
  EXPECT_EQ(back.links[0].node, "n013");
  EXPECT_EQ(back.links[0].rail, 3);
  EXPECT_EQ(back.links[0].leaf, "su2-rail3");
  EXPECT_EQ(back.links[0].port, 5);
  EXPECT_EQ(back.links[1].problem, "width");
  ASSERT_EQ(back.leaves.size(), 1u);
  EXPECT_EQ(back.leaves[0].su, "su4");
  EXPECT_EQ(back.leaves[0].bad_ports, 8);
  EXPECT_EQ(FabricEvidenceToJson(back), text);
}

TEST(FabricEvidence, BadInputNamesFileLineColumnAndTheExpectedForm) {
  FabricEvidence e;
  Diags d;
  EXPECT_FALSE(ParseFabricEvidence("{\"railguard_fabric_evidence\": 2}", "e.json", &e, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].ToString(),
            "e.json:1:31: bad or missing \"railguard_fabric_evidence\"; expected 1");
  d.clear();
  std::string text = FabricEvidenceToJson(Sample());
  text.replace(text.find("\"errors\""), 8, "\"noise\"");
  EXPECT_FALSE(ParseFabricEvidence(text, "e.json", &e, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].ToString().find("problem \"noise\"; expected \"errors\", \"width\" or \"speed\""),
            std::string::npos)
      << d[0].ToString();
  EXPECT_GT(d[0].line, 1);
  d.clear();
  EXPECT_FALSE(ParseFabricEvidence("{\"railguard_fabric_evidence\": 1,", "e.json", &e, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].file, "e.json");
  d.clear();
  EXPECT_FALSE(LoadFabricEvidence("/nonexistent/evidence.json", &e, &d));
  ASSERT_EQ(d.size(), 1u);
}

}  // namespace wire_fabric_evidence_test
}  // namespace railguard::wire
