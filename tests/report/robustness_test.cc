// SPDX-License-Identifier: GPL-2.0-or-later
// Robustness of the report's readers: every truncation and thousands of byte-level mutations
// of the fixture snapshot, Extra values and history lines go through parsing, the report and
// every format without a crash; what is refused is refused with file:line.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "wire/event_log.h"
#include "report/render.h"
#include "tests/report/report_test_util.h"

namespace railguard::report {
namespace report_robustness_test {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A deterministic byte mutator: flips, inserts and deletes bytes of `text`.
std::string Mutate(std::string text, uint64_t* state) {
  auto next = [state]() {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(*state >> 33);
  };
  static const char kBytes[] = "{}[]\",:\\0123456789eE-+. \n\xff\xc3\xed\x80tfnul";
  const int edits = 1 + static_cast<int>(next() % 4);
  for (int i = 0; i < edits && !text.empty(); ++i) {
    const size_t at = next() % text.size();
    const char b = kBytes[next() % (sizeof kBytes - 1)];
    switch (next() % 3) {
      case 0:
        text[at] = b;
        break;
      case 1:
        text.insert(text.begin() + static_cast<long>(at), b);
        break;
      default:
        text.erase(at, 1 + next() % 8);
    }
  }
  return text;
}

// Runs everything on `snapshot_text`; false when the snapshot was refused.
bool Everything(const std::string& snapshot_text, const topo::Topology& t,
                const std::vector<wire::HealthEvent>& events) {
  Snapshot s;
  Diags d;
  if (!SnapshotFromJson(snapshot_text, "m.json", &s, &d)) {
    EXPECT_FALSE(d.empty());
    for (const Diag& diag : d) {
      EXPECT_EQ(diag.file, "m.json");
      EXPECT_GT(diag.line, 0) << diag.message;
    }
    return false;
  }
  const Report r = BuildReport(s, "m.json", t, events, {}, ReportOptions());
  EXPECT_FALSE(RenderText(r).empty());
  EXPECT_FALSE(RenderJson(r).empty());
  EXPECT_FALSE(RenderHtml(r).empty());
  EXPECT_FALSE(RenderPrometheus(r).empty());
  for (const Diag& diag : r.problems) EXPECT_FALSE(diag.message.empty());
  return true;
}

TEST(ReportRobustness, EveryTruncationOfASnapshotIsRefusedWithItsLine) {
  const topo::Topology t = testing::DevTopology();
  const std::string text = Slurp(testing::kFaultsSnapshot);
  ASSERT_TRUE(Everything(text, t, {}));
  for (size_t len = 0; len + 2 < text.size(); len += 7)
    EXPECT_FALSE(Everything(text.substr(0, len), t, {})) << len;
}

TEST(ReportRobustness, MutatedSnapshotsNeverCrashTheReport) {
  const topo::Topology t = testing::DevTopology();
  const std::string text = Slurp(testing::kFaultsSnapshot);
  uint64_t state = 42;
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) accepted += Everything(Mutate(text, &state), t, {});
  // Mutations inside strings (reasons, Extra values) leave the file valid: those reach the
  // report and its formats, with the Extra problems listed.
  EXPECT_GT(accepted, 100);
}

TEST(ReportRobustness, MutatedExtraValuesAreReportOrProblemNeverCrash) {
  const std::string good = testing::ExtraFor("oooddxoo");
  uint64_t state = 7;
  for (int i = 0; i < 5000; ++i) {
    wire::RailcheckExtra e;
    std::string err;
    const std::string m = Mutate(good, &state);
    if (wire::ReadExtra(m, wire::ExtraReadMode::kStrict, &e, &err) == wire::ExtraStatus::kError) {
      EXPECT_FALSE(err.empty()) << m;
    } else {
      EXPECT_LE(e.rails.size(), wire::kMaxExtraRails);
    }
  }
}

TEST(ReportRobustness, MutatedHistoryLinesAreEventsOrReasonsNeverCrash) {
  const std::string log = Slurp(testing::kFaultsEvents);
  std::vector<std::string> lines;
  for (size_t s = 0, e; s < log.size(); s = e + 1) {
    e = log.find('\n', s);
    if (e == std::string::npos) e = log.size();
    lines.push_back(log.substr(s, e - s));
  }
  uint64_t state = 99;
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    const std::string m = Mutate(lines[static_cast<size_t>(i) % lines.size()], &state);
    wire::HealthEvent e;
    std::string err;
    if (wire::EventFromJsonLine(m, &e, &err)) {
      ++parsed;
      EXPECT_FALSE(e.node.empty());
      EXPECT_GE(e.rail, -1);
      // What reads writes a line that reads back and writes the same again.
      const std::string written = wire::EventToJsonLine(e);
      ASSERT_LE(written.size(), wire::kMaxEventLineBytes);
      wire::HealthEvent again;
      ASSERT_TRUE(wire::EventFromJsonLine(written.substr(0, written.size() - 1), &again, &err))
          << err << "\n"
          << written;
      EXPECT_EQ(wire::EventToJsonLine(again), written);
    } else {
      EXPECT_FALSE(err.empty());
    }
  }
  EXPECT_GT(parsed, 100);
}

}  // namespace report_robustness_test
}  // namespace railguard::report
