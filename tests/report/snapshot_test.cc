// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the snapshot file (report/snapshot.h) and for gathering through a ClusterSource.
#include "report/snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_snapshot_test {

std::string Errors(const std::string& text) {
  Snapshot s;
  Diags d;
  if (SnapshotFromJson(text, "s.json", &s, &d)) return "ok";
  return FormatDiags(d);
}

const char kHead[] = "{\"railguard_snapshot\":1,\"time\":1714560000,\"nodes\":[";

TEST(ReportSnapshot, RoundTripsEveryField) {
  Snapshot s;
  s.time = 1714560000.25;
  s.source = "slurm";
  s.slurm_cluster = "raildev";
  NodeSnapshot n;
  n.name = "n009";
  n.state = "idle";
  n.flags = {"drain", "not_responding"};
  n.reason = "railcheck: rail3 \"quoted\" \\ <x>";
  n.reason_time = 1714558800;
  n.reason_user = "root";
  n.features = "su2";
  n.features_act = "su2,x";
  n.extra = "{\"railcheck\":{\"time\":1}}";
  s.nodes.push_back(n);
  JobSnapshot j;
  j.id = 4294967295u;
  j.name = "train\nme";
  j.user = "bob";
  j.state = "running";
  j.nodes = "n[009-010]";
  j.node_count = 2;
  j.start_time = 1714550000;
  j.partition = "batch";
  s.jobs.push_back(j);

  const std::string text = SnapshotToJson(s);
  Snapshot back;
  Diags d;
  ASSERT_TRUE(SnapshotFromJson(text, "s.json", &back, &d)) << FormatDiags(d) << text;
  EXPECT_EQ(SnapshotToJson(back), text);
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].reason, n.reason);
  EXPECT_EQ(back.nodes[0].flags, n.flags);
  EXPECT_EQ(back.nodes[0].extra, n.extra);
  EXPECT_EQ(back.nodes[0].extra_line, 3);  // one node per line, after the head lines
  ASSERT_EQ(back.jobs.size(), 1u);
  EXPECT_EQ(back.jobs[0].id, 4294967295u);
  EXPECT_EQ(back.jobs[0].name, "train\nme");
  EXPECT_EQ(back.time, 1714560000.25);
}

TEST(ReportSnapshot, WritesInvalidUtf8AsReplacementCharacters) {
  Snapshot s;
  s.time = 1;
  NodeSnapshot n;
  n.name = "n1";
  n.state = "idle";
  n.reason = "bad \xFF byte";
  s.nodes.push_back(n);
  Snapshot back;
  Diags d;
  ASSERT_TRUE(SnapshotFromJson(SnapshotToJson(s), "s.json", &back, &d)) << FormatDiags(d);
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].reason, "bad \xEF\xBF\xBD byte");
}

TEST(ReportSnapshot, RefusesAnotherVersionOrAnotherFile) {
  EXPECT_EQ(Errors("{\"railguard_snapshot\":2,\"time\":1,\"nodes\":[]}"),
            "s.json:1:23: snapshot version 2 is not supported; expected 1\n");
  EXPECT_EQ(Errors("{\"cluster\":\"x\"}"),
            "s.json:1:1: no \"railguard_snapshot\" key; expected a railguard snapshot "
            "({\"railguard_snapshot\": 1, \"time\": ..., \"nodes\": [...]})\n");
  EXPECT_EQ(Errors("[1,2]"),
            "s.json:1:1: the snapshot is an array; expected an object {\"railguard_snapshot\": "
            "1, ...}\n");
  EXPECT_EQ(Errors("{\"railguard_snapshot\":1,\n\"time\":1,\"nodes\":[}"),
            "s.json:2:19: unexpected '}'; expected a JSON value (expected a railguard snapshot: "
            "JSON written by `railctl report --save-snapshot`)\n");
}

TEST(ReportSnapshot, ReportsEveryBadFieldWithItsLine) {
  const std::string text = std::string(kHead) +
                           "\n{\"name\":\"n1\",\"state\":\"sleepy\"},"
                           "\n{\"name\":\"n2\",\"state\":\"idle\",\"reason_time\":\"noon\"},"
                           "\n{\"name\":\"n3\",\"state\":\"idle\",\"colour\":1},"
                           "\n{\"name\":\"n 4\",\"state\":\"idle\"},"
                           "\n{\"state\":\"idle\"},"
                           "\n{\"name\":\"n1\",\"state\":\"idle\"},"
                           "\n{\"name\":\"n6\",\"state\":\"idle\",\"flags\":[\"DRAIN\"]}"
                           "],\n\"jobs\":[{\"id\":-1,\"state\":\"running\",\"nodes\":\"n1\"}]}";
  EXPECT_EQ(Errors(text),
            "s.json:2:22: node 'n1': unknown state \"sleepy\"; expected idle, allocated, mixed, "
            "down, error, future or unknown\n"
            "s.json:3:43: node 'n2': \"reason_time\" is a string; expected seconds since the "
            "epoch (a number >= 0)\n"
            "s.json:4:38: node 'n3': unknown key \"colour\"; expected one of name, state, flags, "
            "reason, reason_time, reason_user, features, features_act, extra\n"
            "s.json:5:9: nodes[3]: name \"n 4\" is not a node name; expected 1-256 printable "
            "characters without spaces, commas or brackets\n"
            "s.json:6:1: nodes[4]: missing key \"name\"\n"
            "s.json:7:1: node 'n1' is listed twice (first at line 2); expected each once\n"
            "s.json:8:38: node 'n6': flag is \"DRAIN\"; expected a lower-case flag name such as "
            "\"drain\"\n"
            "s.json:9:15: jobs[0]: \"id\" is the number -1; expected a job id (an integer 1 to "
            "4294967295)\n");
}

TEST(ReportSnapshot, LoadsAFileAndNamesAMissingOne) {
  Snapshot s;
  Diags d;
  ASSERT_TRUE(LoadSnapshotFile(testing::kFaultsSnapshot, &s, &d)) << FormatDiags(d);
  EXPECT_EQ(s.nodes.size(), 32u);
  EXPECT_EQ(s.jobs.size(), 3u);
  d.clear();
  EXPECT_FALSE(LoadSnapshotFile("/nonexistent/snap.json", &s, &d));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].ToString().find("/nonexistent/snap.json"), std::string::npos);
}

// A ClusterSource with canned answers, as a test of TakeSnapshot's assembly.
class FakeSource : public ClusterSource {
 public:
  bool fail_jobs = false;
  bool ReadNodes(std::vector<NodeSnapshot>* out, std::string*) override {
    NodeSnapshot b;
    b.name = "n2";
    b.state = "idle";
    NodeSnapshot a;
    a.name = "n1";
    a.state = "allocated";
    *out = {b, a};
    return true;
  }
  bool ReadJobs(std::vector<JobSnapshot>* out, std::string* err) override {
    if (fail_jobs) {
      *err = "cannot load jobs from slurmctld: Unable to contact slurm controller";
      return false;
    }
    JobSnapshot j2, j1, empty;
    j2.id = 20;
    j2.nodes = "n2";
    j1.id = 10;
    j1.nodes = "n1";
    empty.id = 5;
    *out = {j2, j1, empty};
    return true;
  }
  std::string ClusterName() override { return "raildev"; }
  double Now() override { return 1714560000; }
};

TEST(ReportSnapshot, TakeSnapshotSortsAndDropsJobsWithoutNodes) {
  FakeSource src;
  Snapshot s;
  std::string err;
  ASSERT_TRUE(TakeSnapshot(&src, &s, &err)) << err;
  EXPECT_EQ(s.source, "slurm");
  EXPECT_EQ(s.slurm_cluster, "raildev");
  EXPECT_EQ(s.time, 1714560000);
  ASSERT_EQ(s.nodes.size(), 2u);
  EXPECT_EQ(s.nodes[0].name, "n1");
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].id, 10u);
  EXPECT_EQ(s.jobs[1].id, 20u);
}

TEST(ReportSnapshot, TakeSnapshotPassesOnTheSourcesError) {
  FakeSource src;
  src.fail_jobs = true;
  Snapshot s;
  std::string err;
  EXPECT_FALSE(TakeSnapshot(&src, &s, &err));
  EXPECT_EQ(err, "cannot load jobs from slurmctld: Unable to contact slurm controller");
}

}  // namespace report_snapshot_test
}  // namespace railguard::report
