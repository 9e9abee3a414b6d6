// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck's work in a child process, watched by the parent under deadlines, so that a read
// stuck in the kernel (a thread in uninterruptible sleep, which no signal ends and which keeps
// its whole process from exiting) cannot hold the answer to Slurm: the child says what it is
// doing, the parent gives up on a late child and leaves it behind.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "healthcheck/facts.h"
#include "healthcheck/sysfs.h"
#include "healthcheck/verbs.h"

namespace railguard::health {

// The child's side of the pipe to its parent: one record per call, whole (several threads
// may call at once). A parent that is gone is ignored.
class ChildReporter {
 public:
  explicit ChildReporter(int fd) : fd_(fd) {}
  ChildReporter(const ChildReporter&) = delete;
  ChildReporter& operator=(const ChildReporter&) = delete;

  // The phase the work enters ("reading sysfs").
  void Phase(const std::string& phase);
  // A read of `what` (a path, or "ibv_query_port(mlx5_5, 1)") begins; the token ends it.
  uint64_t ReadBegin(const std::string& what);
  void ReadEnd(uint64_t token);
  // The work's exit code and what it printed: the last record.
  void Result(int code, const std::string& out, const std::string& err);

 private:
  void Send(const std::string& record);

  int fd_;
  std::mutex mu_;
  std::atomic<uint64_t> next_{1};
};

// A Sysfs that reports every call to `reporter` before making it on `fs`, and after.
class ReportingSysfs : public Sysfs {
 public:
  ReportingSysfs(std::shared_ptr<const Sysfs> fs, ChildReporter* reporter)
      : fs_(std::move(fs)), rep_(reporter) {}
  bool ReadFile(const std::string& path, std::string* out, std::string* err) const override;
  bool ListDir(const std::string& path, std::vector<std::string>* out,
               std::string* err) const override;
  bool Resolve(const std::string& path, std::string* out, std::string* err) const override;
  bool Exists(const std::string& path) const override;

 private:
  std::shared_ptr<const Sysfs> fs_;
  ChildReporter* rep_;
};

// The same for libibverbs: each QueryPort is reported as "ibv_query_port(NIC, PORT)".
class ReportingVerbs : public Verbs {
 public:
  ReportingVerbs(std::shared_ptr<Verbs> verbs, ChildReporter* reporter)
      : verbs_(std::move(verbs)), rep_(reporter) {}
  bool QueryPort(const std::string& name, int port, VerbsPort* out, std::string* err) override;

 private:
  std::shared_ptr<Verbs> verbs_;
  ChildReporter* rep_;
};

// When the parent stops waiting for the child.
struct ChildLimits {
  std::chrono::steady_clock::time_point deadline;  // for the whole work
  // A phase with a limit of its own: in it, a read in flight for this long (counted from
  // the later of its start and the phase's) makes the child late.
  std::string bounded_phase;
  int bounded_phase_ms = 0;
};

// A read the child began and had not ended when the parent gave up.
struct StuckRead {
  std::string what;  // as given to ReadBegin
  double ms = 0;     // how long it had been going
};

// How the child's work ended, as the parent saw it.
struct ChildOutcome {
  bool finished = false;  // the child sent its result: `code`, `out`, `err`
  int code = 0;
  std::string out;
  std::string err;
  // When !finished:
  bool started = false;          // false: no child (fork failed: `why`); nothing ran
  std::string why;               // "did not finish reading sysfs within 800 ms", ...
  std::string phase;             // the last phase the child reported ("" when none)
  std::vector<StuckRead> stuck;  // reads begun and not ended, the oldest first
  int pid = -1;                  // the child
  bool reaped = false;           // it has exited and was waited for
};

// What runs in the child: returns the exit code and fills what it would print.
using ChildWork = std::function<int(ChildReporter& reporter, std::string* out, std::string* err)>;

// Forks a child that runs `work` with stdin, stdout and stderr on /dev/null and no other file
// descriptor of the parent (so a stuck child holds neither Slurm's pipes nor railcheck's lock),
// and that dies with the parent. The parent returns the child's result as soon as it has it
// (it does not wait for the child to exit: a thread in D state can keep that from ever
// happening), or gives up when `limits` says the child is late: it then sends the child
// SIGKILL (which takes effect when its stuck call returns, before it runs any more of its
// code) and returns without waiting for it. Never throws.
ChildOutcome RunInChild(const ChildWork& work, const ChildLimits& limits);

// The facts of a node whose gather child was late (`c`): nothing read, each NIC of `nics`
// (the node type's, in rail order) and the GPUs incomplete, and a GatherTimeout of
// `read_timeout_ms` for the oldest read the child had begun and not ended (what holds it),
// on the rail whose NIC it reads (<sysfs_root>/class/infiniband/NIC/..., "ibv_query_port(NIC,
// N)"), else on the node (task "node").
NodeFacts FactsOfLateChild(const ChildOutcome& c, const std::string& node,
                           const std::string& sysfs_root, const std::vector<std::string>& nics,
                           int read_timeout_ms);

}  // namespace railguard::health
