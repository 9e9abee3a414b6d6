// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the health event log (healthcheck/history.h): append, rotation, safety checks,
// reading with a time window and bad lines, and the events railcheck derives from a run.
#include "wire/event_log.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace railguard::wire {
namespace wire_event_log_test {

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/history_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    log_ = dir_ + "/events.log";
  }
  void TearDown() override { ASSERT_EQ(std::system(("rm -rf " + dir_).c_str()), 0); }

  static HealthEvent Event(double time, const std::string& node, EventKind kind, int rail) {
    HealthEvent e;
    e.time = time;
    e.node = node;
    e.kind = kind;
    e.rail = rail;
    return e;
  }

  std::vector<HealthEvent> ReadAll(Diags* problems = nullptr) {
    std::vector<HealthEvent> out;
    Diags d;
    std::string err;
    EXPECT_EQ(ReadEvents(log_, 0, 1e11, &out, problems ? problems : &d, &err), EventLogStatus::kOk)
        << err;
    return out;
  }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  std::string dir_;
  std::string log_;
};

TEST_F(HistoryTest, AppendsAndReadsBackEveryField) {
  HealthEvent e = Event(1714558200.5, "n003", EventKind::kDegraded, 5);
  e.nic = "mlx5_9";
  e.checks = {"link.errors", "link.flap"};
  e.detail = "link.errors: rail5 mlx5_9 symbol_error 540/h > 10/h \"quoted\"";
  e.counters = {{"symbol_error", 18446744073709551615ull, 90, 600}};
  std::string err;
  ASSERT_TRUE(AppendEvents(log_, {e, Event(1714558300, "n003", EventKind::kDrained, -1)}, &err))
      << err;
  const std::vector<HealthEvent> back = ReadAll();
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].time, 1714558200.5);
  EXPECT_EQ(back[0].node, "n003");
  EXPECT_EQ(back[0].kind, EventKind::kDegraded);
  EXPECT_EQ(back[0].rail, 5);
  EXPECT_EQ(back[0].nic, "mlx5_9");
  EXPECT_EQ(back[0].checks, e.checks);
  EXPECT_EQ(back[0].detail, e.detail);
  ASSERT_EQ(back[0].counters.size(), 1u);
  EXPECT_EQ(back[0].counters[0].value, 18446744073709551615ull);
  EXPECT_EQ(back[0].counters[0].PerHour(), 540);
  EXPECT_EQ(back[1].kind, EventKind::kDrained);
  EXPECT_EQ(back[1].rail, -1);
  struct stat st;
  ASSERT_EQ(stat(log_.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);
}

TEST_F(HistoryTest, RotatesBeforeTheLimitKeepingOneOldFile) {
  EventLogOptions small;
  small.max_bytes = 400;
  std::string err;
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(AppendEvents(log_, {Event(1000 + i, "n001", EventKind::kFlap, 0)}, &err, small))
        << err;
  struct stat st;
  ASSERT_EQ(stat(log_.c_str(), &st), 0);
  EXPECT_LE(st.st_size, 400);
  ASSERT_EQ(stat(RotatedEventLogPath(log_).c_str(), &st), 0);
  EXPECT_LE(st.st_size, 400);
  const std::vector<HealthEvent> back = ReadAll();
  ASSERT_FALSE(back.empty());
  // The newest events survive, oldest first, and nothing is torn.
  EXPECT_EQ(back.back().time, 1019);
  for (size_t i = 1; i < back.size(); ++i) EXPECT_EQ(back[i].time, back[i - 1].time + 1);
  EXPECT_LT(back.size(), 20u);
}

TEST_F(HistoryTest, RefusesSymlinksAndLooseModes) {
  std::string err;
  ASSERT_EQ(symlink("/etc/passwd", log_.c_str()), 0);
  EXPECT_FALSE(AppendEvents(log_, {Event(1, "n1", EventKind::kFlap, 0)}, &err));
  EXPECT_EQ(err, log_ + " is a symlink; expected the event log itself");
  std::vector<HealthEvent> out;
  Diags d;
  EXPECT_EQ(ReadEvents(log_, 0, 1e11, &out, &d, &err), EventLogStatus::kError);
  EXPECT_EQ(err, log_ + " is a symlink; expected the event log itself");
  ASSERT_EQ(unlink(log_.c_str()), 0);

  ASSERT_TRUE(AppendEvents(log_, {Event(1, "n1", EventKind::kFlap, 0)}, &err)) << err;
  ASSERT_EQ(chmod(log_.c_str(), 0666), 0);
  EXPECT_FALSE(AppendEvents(log_, {Event(2, "n1", EventKind::kFlap, 0)}, &err));
  EXPECT_NE(err.find("mode 666; expected owner uid"), std::string::npos) << err;

  const std::string open_dir = dir_ + "/open";
  ASSERT_EQ(mkdir(open_dir.c_str(), 0777), 0);
  ASSERT_EQ(chmod(open_dir.c_str(), 0777), 0);
  EXPECT_FALSE(AppendEvents(open_dir + "/events.log", {Event(1, "n1", EventKind::kFlap, 0)}, &err));
  EXPECT_NE(err.find("mode 777; expected a folder owned by this user"), std::string::npos) << err;
}

TEST_F(HistoryTest, CreatesMissingFolders) {
  std::string err;
  const std::string deep = dir_ + "/a/b/events.log";
  ASSERT_TRUE(AppendEvents(deep, {Event(1, "n1", EventKind::kFlap, 0)}, &err)) << err;
  std::vector<HealthEvent> out;
  Diags d;
  EXPECT_EQ(ReadEvents(deep, 0, 10, &out, &d, &err), EventLogStatus::kOk);
  EXPECT_EQ(out.size(), 1u);
}

TEST_F(HistoryTest, ReadingKeepsTheWindowAndSkipsBadLinesNamingThem) {
  std::string err;
  ASSERT_TRUE(
      AppendEvents(log_,
                   {Event(100, "n1", EventKind::kFlap, 0), Event(200, "n1", EventKind::kFlap, 1),
                    Event(300, "n1", EventKind::kFlap, 2)},
                   &err));
  {
    std::ofstream out(log_, std::ios::app);
    out << "garbage\n"
        << "{\"v\":2,\"time\":250,\"node\":\"n1\",\"event\":\"flap\",\"rail\":0}\n"
        << "{\"v\":1,\"time\":250,\"node\":\"n1\",\"event\":\"flap\"}\n"
        << "\n"
        << "{\"v\":1,\"time\":250,\"node\":\"n1\",\"event\":\"flap\",\"rail\":0,"
           "\"counters\":{\"x\":{\"value\":-1,\"delta\":0,\"seconds\":1}}}\n"
        << "{\"v\":1,\"time\":260,\"node\":\"n1\",\"event\":\"drained\"}\n"
        << "{\"v\":1,\"time\":270,\"node\":\"n1\",\"ev";
  }
  std::vector<HealthEvent> out;
  Diags problems;
  ASSERT_EQ(ReadEvents(log_, 150, 290, &out, &problems, &err), EventLogStatus::kOk) << err;
  ASSERT_EQ(out.size(), 2u);  // 200 and the drained at 260
  EXPECT_EQ(out[0].time, 200);
  EXPECT_EQ(out[1].kind, EventKind::kDrained);
  EXPECT_EQ(FormatDiags(problems),
            log_ +
                ":4: column 1: unexpected 'g'; expected a JSON value; expected an event "
                "{\"v\":1,\"time\":T,\"node\":\"n001\",\"event\":\"degraded\",...}; skipped\n" +
                log_ + ":5: column 6: format version 2 is not supported; expected 1; skipped\n" +
                log_ +
                ":6: a flap event without \"rail\"; expected the rail it concerns; "
                "skipped\n" +
                log_ +
                ":8: column 71: counter \"x\" is not {\"value\":V,\"delta\":D,"
                "\"seconds\":S} with integers V, D in 0..2^64-1 and a number S >= 0; "
                "skipped\n" +
                log_ +
                ":10: truncated line (no newline at the end of the file: a write was "
                "cut short); skipped\n");
}

TEST_F(HistoryTest, AMissingLogIsNotAnError) {
  std::vector<HealthEvent> out;
  Diags d;
  std::string err;
  EXPECT_EQ(ReadEvents(dir_ + "/none.log", 0, 1e11, &out, &d, &err), EventLogStatus::kMissing);
  EXPECT_TRUE(d.empty());
}

TEST_F(HistoryTest, ConcurrentWritersNeverTearLines) {
  EventLogOptions small;
  small.max_bytes = 64 * 1024;
  std::vector<pid_t> kids;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::string err;
      for (int i = 0; i < 200; ++i) {
        HealthEvent e = Event(1000 + i, "n" + std::to_string(w), EventKind::kDegraded, w);
        e.detail = std::string(100, 'a' + w);
        if (!AppendEvents(log_, {e, e}, &err, small)) _exit(1);
      }
      _exit(0);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Diags problems;
  const std::vector<HealthEvent> back = ReadAll(&problems);
  EXPECT_TRUE(problems.empty()) << FormatDiags(problems);
  EXPECT_GT(back.size(), 100u);
  for (const HealthEvent& e : back) EXPECT_EQ(e.detail, std::string(100, e.detail[0]));
  EXPECT_LE(Slurp(log_).size(), small.max_bytes);
}

TEST(EventLines, AnEventThatEscapesPastTheLimitIsCutToFitAndStaysStable) {
  HealthEvent e;
  e.time = 1;
  e.node = "n1";
  e.kind = EventKind::kDegraded;
  e.rail = 0;
  e.detail = std::string(5000, '\x01');
  for (int i = 0; i < 40; ++i) e.checks.push_back(std::string(300, '\x02'));
  for (int i = 0; i < 70; ++i)
    e.counters.push_back(
        {std::string(300, static_cast<char>('\x03' + i % 20)) + std::to_string(i), 1, 1, 1});
  const std::string line = EventToJsonLine(e);
  EXPECT_LE(line.size(), kMaxEventLineBytes);
  HealthEvent back;
  std::string err;
  ASSERT_TRUE(EventFromJsonLine(line.substr(0, line.size() - 1), &back, &err)) << err;
  EXPECT_EQ(EventToJsonLine(back), line);
  EXPECT_TRUE(back.detail.empty());  // the first thing given up
}

TEST(EventLines, AReadLineAtTheSizeLimitWritesBackWithinIt) {
  // Short numbers ("time":1, "seconds":0) grow when written ("1.0", "0.0"): a line read at
  // the size limit, with nothing to cut on the way, must still be written within it.
  std::string line =
      "{\"v\":1,\"time\":1,\"node\":\"n1\",\"event\":\"flap\",\"rail\":0,"
      "\"counters\":{";
  for (int i = 0; i < 64; ++i)
    line += std::string(i ? "," : "") + "\"" + std::to_string(i) + std::string(180, 'c') +
            "\":{\"value\":1,\"delta\":1,\"seconds\":0}";
  line += "},\"checks\":[";
  for (int i = 0; kMaxEventLineBytes - (line.size() + 14) > 1024; ++i)
    line += std::string(i ? "," : "") + "\"" + std::string(250, 'k') + "\"";
  line += "],\"detail\":\"";
  const size_t pad = kMaxEventLineBytes - line.size() - 2;
  ASSERT_LE(pad, 1024u);
  line += std::string(pad, 'd') + "\"}";
  ASSERT_EQ(line.size(), kMaxEventLineBytes);
  HealthEvent e;
  std::string err;
  ASSERT_TRUE(EventFromJsonLine(line, &e, &err)) << err;
  const std::string written = EventToJsonLine(e);
  EXPECT_LE(written.size(), kMaxEventLineBytes);
  HealthEvent again;
  ASSERT_TRUE(EventFromJsonLine(written.substr(0, written.size() - 1), &again, &err)) << err;
  EXPECT_EQ(EventToJsonLine(again), written);
  EXPECT_LT(again.detail.size(), e.detail.size());  // the detail gave way
  EXPECT_EQ(again.counters.size(), 64u);
}

TEST(EventKinds, NamesRoundTrip) {
  for (EventKind k :
       {EventKind::kDegraded, EventKind::kDown, EventKind::kRecovered, EventKind::kFlap,
        EventKind::kDrained, EventKind::kResumed, EventKind::kRestricted, EventKind::kRestored}) {
    EventKind back = EventKind::kFlap;
    ASSERT_TRUE(ParseEventKind(EventKindName(k), &back));
    EXPECT_EQ(back, k);
  }
  EventKind unchanged = EventKind::kDown;
  EXPECT_FALSE(ParseEventKind("Degraded", &unchanged));
  EXPECT_EQ(unchanged, EventKind::kDown);
}

}  // namespace wire_event_log_test
}  // namespace railguard::wire
