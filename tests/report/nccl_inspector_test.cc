// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for reading NCCL Inspector logs (report/nccl_inspector.h): the two records of the
// plugin's README (tests/data/nccl/README.md), multi-node records of a generated job, and lines
// that are not Inspector records.
#include "report/nccl_inspector.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace railguard::report {
namespace report_nccl_inspector_test {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One record of `host`, rank `rank` of a communicator of `ranks` ranks on `nodes` nodes.
std::string Record(const std::string& host, int rank, int ranks, int nodes, double busbw,
                   long long bytes = 1 << 30) {
  return R"({"header":{"id":"0x1","rank":)" + std::to_string(rank) + R"(,"n_ranks":)" +
         std::to_string(ranks) + R"(,"nnodes":)" + std::to_string(nodes) +
         R"(},"metadata":{"inspector_output_format_version":"v4.0","dump_timestamp_us":1,)"
         R"("hostname":")" + host + R"(","pid":7},"coll_perf":{"coll":"AllReduce","coll_sn":1,)"
         R"("coll_msg_size_bytes":)" + std::to_string(bytes) +
         R"(,"coll_exec_time_us":100,"coll_algobw_gbs":1.0,"coll_busbw_gbs":)" +
         std::to_string(busbw) + "}}\n";
}

TEST(NcclInspector, TheReadmeRecordsAreSingleNodeCollectives) {
  const std::string path =
      std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/nccl/inspector_readme_examples.log";
  const std::string text = Slurp(path);
  EXPECT_TRUE(LooksLikeNcclInspector(text));
  NcclInspectorRun run;
  Diags d;
  ASSERT_TRUE(AddNcclInspectorLines(text, path, &run, &d)) << FormatDiags(d);
  EXPECT_EQ(run.records, 2u);
  EXPECT_EQ(run.multi_node, 0u);  // nnodes 1: NVLink only, not the rails
  EXPECT_EQ(run.max_ranks, 8);
  EXPECT_EQ(run.hosts, std::vector<std::string>{"example-hostname"});
  EXPECT_EQ(run.MedianBusbw(), -1);
}

TEST(NcclInspector, MultiNodeRecordsGiveTheMedianAndTheBestOverFiles) {
  NcclInspectorRun run;
  Diags d;
  std::string a, b;
  for (double bw : {300.0, 310.0, 120.0}) a += Record("n001", 0, 16, 2, bw);
  a += Record("n001", 0, 8, 1, 900.0);  // intra-node: not counted
  for (double bw : {305.0, 320.0}) b += Record("n002", 8, 16, 2, bw, 1 << 28);
  ASSERT_TRUE(AddNcclInspectorLines(a, "n001-pid7.log", &run, &d)) << FormatDiags(d);
  ASSERT_TRUE(AddNcclInspectorLines("\r\n" + b, "n002-pid7.log", &run, &d)) << FormatDiags(d);
  EXPECT_EQ(run.files, 2);
  EXPECT_EQ(run.records, 6u);
  EXPECT_EQ(run.multi_node, 5u);
  EXPECT_EQ(run.max_nodes, 2);
  EXPECT_DOUBLE_EQ(run.MedianBusbw(), 305.0);
  EXPECT_DOUBLE_EQ(run.peak_busbw, 320.0);
  EXPECT_EQ(run.peak_bytes, uint64_t{1} << 28);
  EXPECT_EQ(run.hosts, (std::vector<std::string>{"n001", "n002"}));
}

TEST(NcclInspector, LinesThatAreNotRecordsAreNamedAndSkipped) {
  NcclInspectorRun run;
  Diags d;
  const std::string text = Record("n001", 0, 16, 2, 300.0) +
                           "{\"header\":{\"n_ranks\":4,\"nnodes\":9},\"metadata\":{},"
                           "\"coll_perf\":{\"coll_busbw_gbs\":1,\"coll_msg_size_bytes\":1}}\n" +
                           "{\"header\":{},\"metadata\":{}}\n" +
                           "NCCL INFO something\n" +
                           "{\"header\":{\"n_ranks\":4,\"nnodes\":2},\"metadata\":{},"
                           "\"coll_perf\":{\"coll_busbw_gbs\":\"fast\",\"coll_msg_size_bytes\":1}}\n";
  EXPECT_FALSE(AddNcclInspectorLines(text, "x.log", &run, &d));
  const std::string all = FormatDiags(d);
  EXPECT_NE(all.find("x.log:2:"), std::string::npos) << all;
  EXPECT_NE(all.find("\"nnodes\" (1 to n_ranks)"), std::string::npos) << all;
  EXPECT_NE(all.find("x.log:3:1: a line without the objects"), std::string::npos) << all;
  EXPECT_NE(all.find("x.log:4:"), std::string::npos) << all;
  EXPECT_NE(all.find("x.log:5:"), std::string::npos) << all;
  EXPECT_NE(all.find("\"coll_busbw_gbs\" (GB/s)"), std::string::npos) << all;
  EXPECT_EQ(run.records, 1u);  // the good line still counts
}

TEST(NcclInspector, OtherJsonIsNotAnInspectorLog) {
  EXPECT_FALSE(LooksLikeNcclInspector("{\"version\":3,\"results\":[]}"));
  EXPECT_FALSE(LooksLikeNcclInspector("# nThread 1\n"));
  EXPECT_FALSE(LooksLikeNcclInspector(""));
}

}  // namespace report_nccl_inspector_test
}  // namespace railguard::report
