// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for reading nccl-tests output (report/nccl_tests.h): a real 16-GPU all_reduce_perf
// capture (tests/data/nccl/, its source named in it), the same as saved from a terminal, an
// older column layout, N/A values, and rows that do not fit the header.
#include "report/nccl_tests.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace railguard::report {
namespace report_nccl_tests_test {

const std::string kCapture =
    std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/nccl/a3mega_all_reduce_16gpu.txt";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NcclTests, ARealCaptureGivesRanksHostsRowsAndTheAverage) {
  NcclTestsRun r;
  Diags d;
  ASSERT_TRUE(ParseNcclTests(Slurp(kCapture), kCapture, &r, &d)) << FormatDiags(d);
  EXPECT_EQ(r.ranks, 16);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"ztan-mig-235z", "ztan-mig-gq73"}));
  ASSERT_EQ(r.rows.size(), 31u);  // 8 B to 8 GiB, doubling
  EXPECT_EQ(r.rows[0].bytes, 8u);
  EXPECT_DOUBLE_EQ(r.rows[0].oop_time_us, 135.8);
  EXPECT_EQ(r.Largest()->bytes, 8589934592u);
  EXPECT_DOUBLE_EQ(r.Largest()->oop_busbw, 338.82);
  EXPECT_DOUBLE_EQ(r.Largest()->ip_busbw, 337.35);
  EXPECT_DOUBLE_EQ(r.PeakBusbw(), 338.82);
  EXPECT_DOUBLE_EQ(r.avg_busbw, 70.742);
  EXPECT_EQ(r.out_of_bounds, 0);
  EXPECT_EQ(r.rows.back().wrong, 0);
}

TEST(NcclTests, TheSameSavedFromATerminalReadsTheSame) {
  std::string text = Slurp(kCapture);
  std::string crlf = "\xEF\xBB\xBFuser@login1:~$ cat nccl.out\r\n";
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  crlf += "user@login1:~$ \r\n";
  crlf += "\f\v\r\n";  // whitespace that is not a blank or a tab (fuzz_job_records found it)
  NcclTestsRun r;
  Diags d;
  ASSERT_TRUE(ParseNcclTests(crlf, "nccl.out", &r, &d)) << FormatDiags(d);
  EXPECT_EQ(r.rows.size(), 31u);
  EXPECT_DOUBLE_EQ(r.avg_busbw, 70.742);
}

TEST(NcclTests, AnOlderLayoutAndNotMeasuredValuesRead) {
  // nccl-tests before redop and root had their columns, with "error" for "#wrong"; an
  // in-place half the collective does not run is N/A.
  const std::string text =
      "#  Rank  0 Pid  4242 on gpu01 device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#  Rank  1 Pid  4243 on gpu02 device  0 [0x07] Tesla V100-SXM2-32GB\n"
      "#\n"
      "#                                                     out-of-place                    "
      "   in-place\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   "
      "algbw   busbw  error\n"
      "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)            (us)  "
      "(GB/s)  (GB/s)\n"
      "     1048576        262144   float     sum    101.1   10.37   10.37  0e+00      N/A     "
      "N/A     N/A    N/A\n"
      "# Avg bus bandwidth    : 10.37\n";
  NcclTestsRun r;
  Diags d;
  ASSERT_TRUE(ParseNcclTests(text, "old.out", &r, &d)) << FormatDiags(d);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_EQ(r.hosts.size(), 2u);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_DOUBLE_EQ(r.rows[0].oop_busbw, 10.37);
  EXPECT_EQ(r.rows[0].ip_busbw, -1);
}

TEST(NcclTests, RowsThatDoNotFitTheHeaderNameFileAndLine) {
  const std::string text =
      "           8             2     float     sum      -1    135.8    0.00\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "          16             4     float     sum      -1    123.2    0.00\n"
      "          32             8     float     sum      -1    fast     0.00    0.00      0\n";
  NcclTestsRun r;
  Diags d;
  EXPECT_FALSE(ParseNcclTests(text, "bad.out", &r, &d));
  ASSERT_EQ(d.size(), 3u) << FormatDiags(d);
  EXPECT_EQ(d[0].line, 1);
  EXPECT_NE(d[0].message.find("before the column header"), std::string::npos);
  EXPECT_EQ(d[1].line, 3);
  EXPECT_NE(d[1].message.find("7 columns; expected 9"), std::string::npos) << d[1].message;
  EXPECT_EQ(d[2].line, 4);
  EXPECT_NE(d[2].message.find("\"fast\"; expected a number >= 0 or N/A"), std::string::npos);
  Diags none;
  EXPECT_FALSE(ParseNcclTests("hello\n", "empty.out", &r, &none));
  ASSERT_EQ(none.size(), 1u);
  EXPECT_NE(none[0].message.find("no data row"), std::string::npos);
}

// nccl-tests -J: the same run in the tool's JSON layout (tests/data/nccl/README.md) gives
// what the text gives.
TEST(NcclTestsJson, TheJsonOfTheRealRunGivesWhatItsTextGives) {
  const std::string json_path =
      std::string(RAILGUARD_SOURCE_DIR) + "/tests/data/nccl/a3mega_all_reduce_16gpu.json";
  NcclTestsRun text, json;
  Diags d;
  ASSERT_TRUE(ParseNcclTests(Slurp(kCapture), kCapture, &text, &d)) << FormatDiags(d);
  ASSERT_TRUE(ParseNcclTestsJson(Slurp(json_path), json_path, &json, &d)) << FormatDiags(d);
  EXPECT_EQ(json.ranks, 16);
  EXPECT_EQ(json.hosts, text.hosts);
  ASSERT_EQ(json.rows.size(), text.rows.size());
  for (size_t i = 0; i < json.rows.size(); ++i) {
    EXPECT_EQ(json.rows[i].bytes, text.rows[i].bytes);
    EXPECT_DOUBLE_EQ(json.rows[i].oop_busbw, text.rows[i].oop_busbw);
    EXPECT_DOUBLE_EQ(json.rows[i].ip_time_us, text.rows[i].ip_time_us);
  }
  EXPECT_DOUBLE_EQ(json.avg_busbw, 70.742);
  EXPECT_DOUBLE_EQ(json.PeakBusbw(), 338.82);
  EXPECT_EQ(json.out_of_bounds, 0);
}

TEST(NcclTestsJson, NanAndNullAreNotMeasuredAndAHalfMayBeNull) {
  NcclTestsRun r;
  Diags d;
  ASSERT_TRUE(ParseNcclTestsJson(
      R"({"version":3,"results":[{"size":1024,"out_of_place":null,)"
      R"("in_place":{"time":12.5,"alg_bw":"nan","bus_bw":0.5,"nwrong":null}}]})",
      "j.json", &r, &d))
      << FormatDiags(d);
  ASSERT_EQ(r.rows.size(), 1u);
  EXPECT_EQ(r.rows[0].oop_busbw, -1);
  EXPECT_EQ(r.rows[0].ip_algbw, -1);
  EXPECT_DOUBLE_EQ(r.rows[0].ip_busbw, 0.5);
  EXPECT_EQ(r.avg_busbw, -1);
}

TEST(NcclTestsJson, BadInputNamesFileLineColumnAndTheForm) {
  struct Case {
    const char* text;
    const char* want;
  } cases[] = {
      {"{\"version\":3,\n\"results\":[{\"size\":-8}]}", "j.json:2:20: a \"results\" entry without"},
      {"{\"version\":9,\"results\":[]}", "j.json:1:12: bad or missing \"version\""},
      {"{\"version\":3}", "no \"results\" list"},
      {"{\"version\":3,\"results\":[]}", "an empty \"results\" list"},
      {"{\"version\":3,\"results\":[{\"size\":8,\"in_place\":{\"bus_bw\":inf}}]}", "j.json:1:"},
      {"{\"version\":3,\"results\":[{\"size\":8,\"in_place\":{\"bus_bw\":\"fast\"}}]}",
       "\"bus_bw\" is a string; expected a number >= 0, \"nan\" or null"},
      {"[1,2]", "expected an object"},
      {"\x01\xff", "j.json:1:1"},
  };
  for (const Case& c : cases) {
    NcclTestsRun r;
    Diags d;
    EXPECT_FALSE(ParseNcclTestsJson(c.text, "j.json", &r, &d)) << c.text;
    EXPECT_NE(FormatDiags(d).find(c.want), std::string::npos) << c.text << "\n" << FormatDiags(d);
  }
}

}  // namespace report_nccl_tests_test
}  // namespace railguard::report
