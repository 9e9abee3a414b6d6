// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck: the node health check of rail NICs, links and PCIe paths, run by Slurm as
// Prolog, Epilog and HealthCheckProgram. main() wires the real sysfs, libibverbs and
// libslurm into RunRailcheck() and enforces the hard time limit.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "config/locate.h"
#include "healthcheck/railcheck.h"
#include "healthcheck/slurm_api.h"

namespace {

std::atomic<const char*> g_phase{"starting"};

using WatchClock = std::chrono::steady_clock;
// When the watchdog ends the process (steady clock, ns since its epoch), and the limit that
// set it (for the message).
std::atomic<int64_t> g_deadline_ns{0};
std::atomic<int> g_limit_seconds{0};

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             WatchClock::now().time_since_epoch())
      .count();
}

// Ends the process `seconds` from now, or earlier if a limit already armed is earlier,
// whatever it is stuck in (a hung sysfs read in a worker, slurmctld not answering), saying
// which phase ran out of time. _exit does not wait for the stuck threads' blocking calls.
void ArmWatchdog(int seconds) {
  const int64_t at = NowNs() + int64_t{seconds} * 1000000000;
  int64_t cur = g_deadline_ns.load();
  while ((cur == 0 || at < cur) && !g_deadline_ns.compare_exchange_weak(cur, at)) {
  }
  if (g_deadline_ns.load() == at) g_limit_seconds.store(seconds);
}

// The one watchdog thread, started before anything else and running before this returns.
// Arming a limit later creates no thread: railcheck forks its gather child right after the
// mode's limit is armed, and a thread still starting then (taking allocator or sanitizer
// locks) left those locks held in the child, whose own threads then never ran (seen under
// ASan: every rail "starting did not finish within 1000 ms"). This thread holds no lock
// while it waits.
void StartWatchdog(int seconds) {
  ArmWatchdog(seconds);
  std::atomic<bool> running{false};
  std::thread([&running]() {
    running.store(true);
    for (;;) {
      const int64_t left = g_deadline_ns.load() - NowNs();
      if (left <= 0) break;
      // Polled, so that a nearer limit armed meanwhile is seen within 50 ms.
      std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(left, 50000000)));
    }
    std::fflush(stdout);
    std::fprintf(stderr, "railcheck: time limit of %d s exceeded while %s; giving up\n",
                 g_limit_seconds.load(), g_phase.load());
    std::fflush(stderr);
    _exit(railguard::health::kExitError);
  }).detach();
  while (!running.load()) std::this_thread::yield();
}

std::string ShortHostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "";
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace railguard::health;
  // An outer bound before the config is read (Slurm kills a HealthCheckProgram at 60 s);
  // RunRailcheck arms the configured limit of the mode.
  StartWatchdog(59);
  CliEnv env;
  env.argv0 = argc > 0 ? argv[0] : "railcheck";
  env.slurmd_nodename = Env("SLURMD_NODENAME");
  env.slurm_conf = Env("SLURM_CONF");
  env.slurm_job_id = Env("SLURM_JOB_ID");
  env.default_slurm_conf = LibslurmDefaultConf();
  env.hostname = ShortHostName();
  if (const char* h = std::getenv("SLURM_NODE_IS_HEALTHY")) env.node_is_healthy = h;

  CliDeps deps;
  auto fs = std::make_shared<RealSysfs>();
  deps.fs = fs;
  deps.open_verbs = [fs]() -> std::shared_ptr<Verbs> {
    std::vector<std::string> devices;
    std::string err;
    if (!fs->ListDir("/sys/class/infiniband", &devices, &err) || devices.empty()) return nullptr;
    std::string why;
    return OpenLibibverbs(&why);
  };
  deps.open_ethtool = []() -> std::shared_ptr<EthtoolIoctl> {
    std::string why;
    return OpenEthtoolIoctl(&why);
  };
  deps.open_slurm = [](std::string* err) -> std::unique_ptr<SlurmApi> {
    // libslurm ends the process when it cannot read slurm.conf: check first the one it will
    // read (a HealthCheckProgram on a configless node: /run/slurm/conf/slurm.conf).
    const railguard::SlurmConfSearch conf =
        railguard::FindSlurmConf(std::getenv("SLURM_CONF"), LibslurmDefaultConf());
    if (conf.path.empty()) {
      *err = "no slurm.conf: " + conf.looked + "; set SLURM_CONF to the cluster's slurm.conf";
      return nullptr;
    }
    if (access(conf.path.c_str(), R_OK) != 0) {
      *err = "cannot read " + conf.path + " (" + std::strerror(errno) +
             "); set SLURM_CONF to the cluster's slurm.conf";
      return nullptr;
    }
    return OpenLibslurm(err);
  };
  deps.read_health_check = [](railguard::SlurmHealthCheck* out, std::string* err) {
    const railguard::SlurmConfSearch conf =
        railguard::FindSlurmConf(std::getenv("SLURM_CONF"), LibslurmDefaultConf());
    if (conf.path.empty()) {
      *err = "no slurm.conf: " + conf.looked;
      return false;
    }
    railguard::Diags diags;
    if (railguard::ReadSlurmHealthCheck(conf.path, out, &diags)) return true;
    *err = railguard::FormatDiags(diags);
    while (!err->empty() && err->back() == '\n') err->pop_back();
    return false;
  };
  deps.now = []() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  deps.arm_time_limit = [](int seconds) { ArmWatchdog(seconds); };
  deps.set_phase = [](const char* phase) { g_phase.store(phase); };
  deps.out = &std::cout;
  deps.err = &std::cerr;
  // A thread stuck in the kernel (D state) keeps its process from exiting, _exit or not:
  // the reads happen in a child that this process can leave behind.
  deps.gather_in_child = true;

  std::vector<std::string> args(argv + 1, argv + argc);
  int code = RunRailcheck(args, env, deps);
  std::cout.flush();
  std::cerr.flush();
  // Leave without running destructors or waiting for anything.
  _exit(code);
}
