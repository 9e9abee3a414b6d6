// SPDX-License-Identifier: GPL-2.0-or-later
// railcheck: the node health check of rail NICs, links and PCIe paths, run by Slurm as
// Prolog, Epilog and HealthCheckProgram. main() wires the real sysfs, libibverbs and
// libslurm into RunRailcheck() and enforces the hard time limit.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
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

// Ends the process `seconds` from now, whatever it is stuck in (a hung sysfs read in a
// worker, slurmctld not answering), saying which phase ran out of time. _exit does not wait
// for the stuck threads' blocking calls to return.
void StartWatchdog(int seconds) {
  std::thread([seconds]() {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::fflush(stdout);
    std::fprintf(stderr, "railcheck: time limit of %d s exceeded while %s; giving up\n", seconds,
                 g_phase.load());
    std::fflush(stderr);
    _exit(railguard::health::kExitError);
  }).detach();
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
  env.default_slurm_conf = LibslurmDefaultConf();
  env.hostname = ShortHostName();

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
  deps.now = []() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  deps.arm_time_limit = [](int seconds) { StartWatchdog(seconds); };
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
