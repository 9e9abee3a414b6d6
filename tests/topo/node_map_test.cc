// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of the node map reader (topo/node_map.h): both file forms and the error lines.
#include "topo/node_map.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/shared_data.h"
#include "tests/topo/discover_test_util.h"

namespace railguard::topo {
namespace topo_node_map_test {

using discover_testing::kX5;

TEST(DiscoverHelpers, NodeMapsReadBothTheHpcToolsetAndTheIbnetdiscoverForm) {
  RAILGUARD_NEEDS_SHARED("ibnetdiscover/hpc-toolset-x5/X5.map");
  NodeMap m;
  Diags errors;
  ASSERT_TRUE(LoadNodeMapFile(kX5 + "X5.map", &m, &errors)) << FormatDiags(errors);
  EXPECT_EQ(m.size(), 86u);  // 87 lines, the first a comment
  ASSERT_EQ(m.count(0x003048c74e4a0000ULL), 1u);
  EXPECT_EQ(m.at(0x003048c74e4a0000ULL), "x5570comp1");
  ASSERT_TRUE(
      ParseNodeMap("# IB1\n0x0008f104003f125c \"n7 mlx5_1\"  # rack 3\n"
                   "S-00000000000000ab spine-a\n",
                   "m.map", &m, &errors))
      << FormatDiags(errors);
  ASSERT_EQ(m.count(0x0008f104003f125cULL), 1u);
  ASSERT_EQ(m.count(0xab), 1u);
  EXPECT_EQ(m.at(0x0008f104003f125cULL), "n7 mlx5_1");
  EXPECT_EQ(m.at(0xab), "spine-a");
}

TEST(DiscoverHelpers, NodeMapErrorsNameTheLineAndTheExpectedForm) {
  NodeMap m;
  Diags errors;
  EXPECT_FALSE(ParseNodeMap("003048c74e4a0000 x\nH-12 \"open\nH-zz y\nH-12\nH-12 a\nH-12 b\n",
                            "m.map", &m, &errors));
  const std::string form =
      "; expected <H-guid|S-guid|0xguid> <host> [<device>], e.g. H-003048c74e4a0000 node1\n";
  EXPECT_EQ(FormatDiags(errors), "m.map:1: bad GUID \"003048c74e4a0000\"" + form +
                                     "m.map:2: unterminated name after H-12" + form +
                                     "m.map:3: bad GUID \"H-zz\"" + form +
                                     "m.map:4: GUID H-12 has no name" + form +
                                     "m.map:6: GUID H-12 is mapped twice (first at line 5)" + form);
}

}  // namespace topo_node_map_test
}  // namespace railguard::topo
