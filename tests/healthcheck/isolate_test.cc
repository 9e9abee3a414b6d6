// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the gather child (healthcheck/isolate.h): its result handed over, a child stopped
// in a read (as a D-state read holds it) given up on at the phase's limit and named, one that
// dies reported, nothing of the parent's held by the child, and the facts of a late child.
#include "healthcheck/isolate.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace railguard::health {
namespace healthcheck_isolate_test {

using Clock = std::chrono::steady_clock;

ChildLimits Limits(int deadline_ms, const std::string& phase = "", int phase_ms = 0) {
  ChildLimits l;
  l.deadline = Clock::now() + std::chrono::milliseconds(deadline_ms);
  l.bounded_phase = phase;
  l.bounded_phase_ms = phase_ms;
  return l;
}

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// Ends a child left behind (stopped) and reaps it.
void End(const ChildOutcome& c) {
  const int pid = c.pid;
  if (pid <= 0 || c.reaped) return;
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(RunInChild, HandsOverTheChildsExitCodeAndWhatItPrinted) {
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string* out, std::string* err) {
        rep.Phase("reading sysfs");
        rep.ReadEnd(rep.ReadBegin("/sys/x"));
        *out = std::string(200000, 'o') + "\n";  // more than a pipe holds
        *err = "e\n";
        return 3;
      },
      Limits(5000));
  ASSERT_TRUE(c.finished) << c.why;
  EXPECT_EQ(c.code, 3);
  EXPECT_EQ(c.out, std::string(200000, 'o') + "\n");
  EXPECT_EQ(c.err, "e\n");
  int status = 0;
  if (!c.reaped) waitpid(c.pid, &status, 0);  // it did not exit within 100 ms of its result
  EXPECT_EQ(status, 0);
}

TEST(RunInChild, AChildStoppedInAReadIsGivenUpOnAtThePhaseLimitAndTheReadNamed) {
  const auto start = Clock::now();
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string*, std::string*) {
        rep.Phase("reading sysfs");
        rep.ReadEnd(rep.ReadBegin("/sys/a"));
        rep.ReadBegin("/sys/class/infiniband/mlx5_5/ports/1/rate");
        raise(SIGSTOP);  // stuck: nothing of this process runs again
        return 0;
      },
      Limits(5000, "reading sysfs", 300));
  const double ms = MsSince(start);
  EXPECT_FALSE(c.finished);
  EXPECT_TRUE(c.started);
  EXPECT_EQ(c.why, "did not finish reading sysfs within 300 ms");
  EXPECT_EQ(c.phase, "reading sysfs");
  ASSERT_EQ(c.stuck.size(), 1u);
  EXPECT_EQ(c.stuck[0].what, "/sys/class/infiniband/mlx5_5/ports/1/rate");
  EXPECT_GE(c.stuck[0].ms, 250);
  EXPECT_GE(ms, 300);
  EXPECT_LT(ms, 1500);
  End(c);
}

TEST(RunInChild, AChildSlowBetweenReadsIsNotLateInTheBoundedPhase) {
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string* out, std::string*) {
        rep.Phase("reading sysfs");
        for (int i = 0; i < 3; ++i) {
          rep.ReadEnd(rep.ReadBegin("/sys/" + std::to_string(i)));
          std::this_thread::sleep_for(std::chrono::milliseconds(150));
        }
        *out = "done";
        return 0;
      },
      Limits(5000, "reading sysfs", 200));
  ASSERT_TRUE(c.finished) << c.why;
  EXPECT_EQ(c.out, "done");
}

TEST(RunInChild, OutsideTheBoundedPhaseTheWholeDeadlineApplies) {
  const auto start = Clock::now();
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string*, std::string*) {
        rep.Phase("talking to slurmctld");
        raise(SIGSTOP);
        return 0;
      },
      Limits(600, "reading sysfs", 100));
  EXPECT_FALSE(c.finished);
  // The time it names is the child's, which starts a little after `start` (much later
  // under ASan): only the wording is exact.
  EXPECT_EQ(c.why.substr(0, 38), "did not finish within its time limit (") << c.why;
  EXPECT_EQ(c.phase, "talking to slurmctld");
  EXPECT_TRUE(c.stuck.empty());
  EXPECT_GE(MsSince(start), 550);
  End(c);
}

TEST(RunInChild, AChildThatDiesWithoutAResultIsReported) {
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string*, std::string*) -> int {
        rep.Phase("judging");
        std::abort();
      },
      Limits(5000));
  EXPECT_FALSE(c.finished);
  EXPECT_TRUE(c.started);
  EXPECT_EQ(c.why, "ended without a result (signal 6)");
  EXPECT_EQ(c.phase, "judging");
  EXPECT_TRUE(c.reaped);
}

// A stuck child must not keep the parent's descriptors: Slurm's pipes (stdout, stderr) and
// railcheck's lock.
TEST(RunInChild, TheChildHoldsNoDescriptorOfTheParentAndWritesNothingToItsOutput) {
  const int lock = open("/dev/null", O_RDONLY);  // as the state lock would be, without CLOEXEC
  ASSERT_GE(lock, 0);
  const ChildOutcome c = RunInChild(
      [lock](ChildReporter&, std::string* out, std::string*) {
        char target[256] = {0};
        for (int fd : {0, 1, 2}) {
          const std::string link = "/proc/self/fd/" + std::to_string(fd);
          const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
          *out += std::to_string(fd) + "=" + std::string(target, n > 0 ? n : 0) + " ";
        }
        *out += fcntl(lock, F_GETFD) == -1 ? "lock closed" : "lock open";
        return 0;
      },
      Limits(5000));
  close(lock);
  ASSERT_TRUE(c.finished) << c.why;
  EXPECT_EQ(c.out, "0=/dev/null 1=/dev/null 2=/dev/null lock closed");
}

TEST(ReportingSysfs, ReportsEveryCallAndPassesItOn) {
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string* out, std::string*) {
        rep.Phase("reading sysfs");
        ReportingSysfs fs(std::make_shared<RealSysfs>(), &rep);
        std::string text;
        std::string err;
        *out = fs.ReadFile("/proc/self/stat", &text, &err) && !text.empty() ? "read" : err;
        *out += fs.Exists("/proc") ? " exists" : " missing";
        rep.ReadBegin("/never/ends");
        raise(SIGSTOP);
        return 0;
      },
      Limits(5000, "reading sysfs", 300));
  ASSERT_EQ(c.stuck.size(), 1u);  // the finished calls ended their reads
  EXPECT_EQ(c.stuck[0].what, "/never/ends");
  End(c);
}

// libibverbs stuck in a firmware command (ibv_query_port) is named as a read too.
class StoppedVerbs : public Verbs {
 public:
  bool QueryPort(const std::string&, int, VerbsPort*, std::string*) override {
    raise(SIGSTOP);
    return false;
  }
};

TEST(ReportingVerbs, AStuckQueryIsNamedWithTheDeviceAndPort) {
  const ChildOutcome c = RunInChild(
      [](ChildReporter& rep, std::string*, std::string*) {
        rep.Phase("reading sysfs");
        ReportingVerbs verbs(std::make_shared<StoppedVerbs>(), &rep);
        VerbsPort p;
        std::string err;
        verbs.QueryPort("mlx5_5", 1, &p, &err);
        return 0;
      },
      Limits(5000, "reading sysfs", 200));
  ASSERT_EQ(c.stuck.size(), 1u) << c.why;
  EXPECT_EQ(c.stuck[0].what, "ibv_query_port(mlx5_5, 1)");
  End(c);
}

TEST(FactsOfLateChild, TheOldestStuckReadIsATimeoutOnTheRailItReads) {
  ChildOutcome c;
  c.stuck = {{"/s/class/infiniband/mlx5_5/ports/1/rate", 900},
             {"ibv_query_port(mlx5_0, 1)", 800},
             {"/s/devices/pci0000:5b/0000:5b:01.0/aer_dev_fatal", 700}};
  const NodeFacts f = FactsOfLateChild(c, "n003", "/s", {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5"},
                                       500);
  EXPECT_EQ(f.node, "n003");
  ASSERT_EQ(f.nics.size(), 4u);
  for (const NicFacts& n : f.nics) EXPECT_FALSE(n.complete);
  EXPECT_EQ(f.nics[3].name, "mlx5_5");
  EXPECT_FALSE(f.gpus_complete);
  ASSERT_EQ(f.timeouts.size(), 1u);
  EXPECT_EQ(f.timeouts[0].rail, 3);
  EXPECT_EQ(f.timeouts[0].task, "rail3 mlx5_5");
  EXPECT_EQ(f.timeouts[0].path, "/s/class/infiniband/mlx5_5/ports/1/rate");
  EXPECT_EQ(f.timeouts[0].limit_ms, 500);
  const std::vector<std::string> nics = {"mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5"};
  c.stuck.erase(c.stuck.begin());
  EXPECT_EQ(FactsOfLateChild(c, "n003", "/s", nics, 500).timeouts.at(0).rail, 0);
  c.stuck.erase(c.stuck.begin());
  const NodeFacts node = FactsOfLateChild(c, "n003", "/s", nics, 500);
  EXPECT_EQ(node.timeouts.at(0).rail, -1);
  EXPECT_EQ(node.timeouts.at(0).task, "node");
  c.stuck.clear();
  EXPECT_TRUE(FactsOfLateChild(c, "n003", "/s", nics, 500).timeouts.empty());
}

}  // namespace healthcheck_isolate_test
}  // namespace railguard::health
