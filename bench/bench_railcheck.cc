// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: railcheck's Prolog time on a DGX H100-like node (8 rail NICs, 8 GPUs): the real
// `railcheck --prolog` process, as slurmd runs it, against a live local Slurm cluster, on the
// healthy fixture and on a fault fixture (rail 3 trained down to 200 Gb/s: drained by the
// first run, "already drained" after) and on a node whose fault changes every run (rail 3
// down to 200 Gb/s, then rail 5 polling: each Prolog refreshes the reason), side by side,
// with the Slurm RPCs each Prolog sent (counted through the SlurmApi, from --json); the sysfs
// gather alone, in process; and how soon the gather returns from a hung sysfs read (a FIFO)
// after its read timeout; and what the job's fabric record adds to a Prolog and an Epilog.
//
// usage: bench_railcheck [--runs N] [--railcheck PATH]
// Without SLURM_CONF in the environment it starts the local cluster itself
// (tests/harness/cluster.sh run, etc/dev-4su.yaml) and runs inside it.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "healthcheck/gather.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const char* const kNics[] = {"mlx5_0", "mlx5_3", "mlx5_4",  "mlx5_5",
                             "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"};

struct Stats {
  double p50 = 0, p99 = 0, max = 0;
};

Stats Summarize(std::vector<double> ms) {
  Stats s;
  if (ms.empty()) return s;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
  };
  s.p50 = at(0.50);
  s.p99 = at(0.99);
  s.max = ms.back();
  return s;
}

// Runs `argv` with `env`, stdout to `out` (default /dev/null) and stderr to /dev/null;
// returns its exit code (-1 when it could not run) and its wall time in `*ms`.
int Spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, double* ms,
          const std::string& out = "/dev/null") {
  std::vector<char*> a, e;
  for (const std::string& s : argv) a.push_back(const_cast<char*>(s.c_str()));
  a.push_back(nullptr);
  for (const std::string& s : env) e.push_back(const_cast<char*>(s.c_str()));
  e.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  const auto start = Clock::now();
  pid_t pid = 0;
  int rc = posix_spawn(&pid, a[0], &fa, nullptr, a.data(), e.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  *ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool Shell(const std::string& cmd) { return std::system(cmd.c_str()) == 0; }

std::string Load() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

int Inside(const std::string& railcheck, int runs) {
  char templ[] = "/tmp/bench-railcheck.XXXXXX";
  if (!mkdtemp(templ)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string tmp = templ;
  const std::string gen = "python3 " RAILGUARD_SOURCE_DIR "/tests/data/sysfs/make_sysfs.py ";
  if (!Shell(gen + tmp + "/sys/n001") || !Shell(gen + tmp + "/sys/n005 --node n005") ||
      !Shell(gen + tmp + "/sys/n002 --fault rate-down:3 --node n002") ||
      !Shell(gen + tmp + "/sys/n004 --fault rate-down:3 --node n004") ||
      !Shell(gen + tmp + "/sys/n004b --fault polling:5 --node n004")) {
    std::fprintf(stderr, "bench_railcheck: make_sysfs.py failed\n");
    return 1;
  }
  const std::string config = tmp + "/railguard.yaml";
  std::ofstream(config) << "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\n"
                        << "health:\n  sysfs_root: " << tmp << "/sys/%n\n  state_dir: " << tmp
                        << "/state/%n\n  events_log: " << tmp << "/state/%n/events.log\n"
                        << "  job_log: " << tmp << "/state/%n/jobs.log\n";

  struct Case {
    const char* node;
    const char* label;
    int want;
    bool changing;  // alternates between two fault trees, one per run
    std::vector<double> process_ms, gather_ms;
    int bad = 0;
    long reads = 0, writes = 0;  // Slurm RPCs of the measured runs
  };
  Case cases[] = {{"n001", "healthy (n001)", 0, false, {}, {}, 0},
                  {"n002", "rail3 200 Gb/s (n002)", 1, false, {}, {}, 0},
                  {"n004", "fault changing (n004)", 1, true, {}, {}, 0}};
  const char* slurm_conf = std::getenv("SLURM_CONF");
  const std::string json_out = tmp + "/report.json";
  for (int i = -3; i < runs; ++i) {  // 3 warm-up runs each
    for (Case& c : cases) {
      double ms = 0;
      std::vector<std::string> argv = {railcheck, "--prolog", "--json", "--config", config};
      if (c.changing) {
        argv.push_back("--sysfs-root");
        argv.push_back(tmp + "/sys/" + c.node + (i % 2 ? "b" : ""));
      }
      int rc = Spawn(argv,
                     {std::string("SLURMD_NODENAME=") + c.node,
                      std::string("SLURM_CONF=") + slurm_conf, "PATH=/usr/bin:/bin"},
                     &ms, json_out);
      if (rc != c.want) ++c.bad;
      if (i < 0) continue;
      c.process_ms.push_back(ms);
      try {
        std::ifstream in(json_out);
        const nlohmann::json j = nlohmann::json::parse(in);
        c.reads += j.at("slurm_rpcs").at("get_node").get<long>();
        c.writes += j.at("slurm_rpcs").at("update_node").get<long>();
      } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_railcheck: %s --json: %s\n", c.node, e.what());
        ++c.bad;
      }
    }
  }
  // The job's fabric record (issue 27): on a healthy node (n005), a Prolog run by hand (no
  // SLURM_JOB_ID: no record, what every Prolog cost before), then a job's Prolog (opens its
  // job file) and its Epilog (closes it into the job log), job after job.
  std::vector<double> job_ms[3];
  int job_bad = 0;
  for (int i = -3; i < runs; ++i) {
    const std::string id = std::to_string(1000 + i + 3);
    const std::vector<std::string> env = {"SLURMD_NODENAME=n005",
                                          std::string("SLURM_CONF=") + slurm_conf,
                                          "PATH=/usr/bin:/bin"};
    std::vector<std::string> with_job = env;
    with_job.push_back("SLURM_JOB_ID=" + id);
    const char* modes[3] = {"--prolog", "--prolog", "--epilog"};
    for (int k = 0; k < 3; ++k) {
      double ms = 0;
      const int rc = Spawn({railcheck, modes[k], "--json", "--config", config},
                           k == 0 ? env : with_job, &ms, json_out);
      if (rc != 0) ++job_bad;
      if (i >= 0) job_ms[k].push_back(ms);
    }
  }
  const std::string job_log = tmp + "/state/n005/jobs.log";
  int job_lines = 0;
  {
    std::ifstream in(job_log);
    for (std::string line; std::getline(in, line);) ++job_lines;
  }
  if (job_lines != runs + 3) ++job_bad;

  auto sysfs = std::make_shared<railguard::health::RealSysfs>();
  for (Case& c : cases) {
    railguard::health::GatherSpec spec;
    spec.node = c.node;
    spec.sysfs_root = tmp + "/sys/" + c.node;
    spec.nics.assign(std::begin(kNics), std::end(kNics));
    spec.read_timeout_ms = 5000;
    for (int i = -3; i < runs; ++i) {
      railguard::health::NodeFacts f = railguard::health::Gather(spec, sysfs, nullptr);
      if (i >= 0) c.gather_ms.push_back(f.gather_ms);
    }
  }

  // A hung sysfs read (ports/1/rate of rail 3 is a FIFO nobody writes): how soon Gather
  // returns after read_timeout_ms, naming the file as gather.timeout.
  const int kHangTimeoutMs = 300;
  std::vector<double> hang_ms;
  int hang_bad = 0;
  const std::string hang_root = tmp + "/sys/n003";
  if (!Shell(gen + hang_root + " --fault hang:3 --node n003")) {
    std::fprintf(stderr, "bench_railcheck: make_sysfs.py failed\n");
    return 1;
  }
  const std::string hung = hang_root + "/class/infiniband/mlx5_5/ports/1/rate";
  for (int i = 0; i < std::min(runs, 5); ++i) {
    railguard::health::GatherSpec spec;
    spec.node = "n003";
    spec.sysfs_root = hang_root;
    spec.nics.assign(std::begin(kNics), std::end(kNics));
    spec.read_timeout_ms = kHangTimeoutMs;
    const auto start = Clock::now();
    railguard::health::NodeFacts f = railguard::health::Gather(spec, sysfs, nullptr);
    hang_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (f.timeouts.size() != 1 || f.timeouts[0].path != hung) ++hang_bad;
    // Release the stuck worker: a writer lets its blocking open of the FIFO return.
    for (int tries = 0; tries < 100; ++tries) {
      const int fd = open(hung.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) {
        close(fd);
        break;
      }
      usleep(10000);
    }
  }

  std::printf(
      "railcheck --prolog, DGX H100-like node (8 rail NICs, 8 GPUs), %d runs each "
      "(load average %s)\n\n",
      runs, Load().c_str());
  std::printf("%-40s %22s %22s %22s\n", "", cases[0].label, cases[1].label, cases[2].label);
  auto row = [&](const char* what, const char* stat, double a, double b, double c) {
    std::printf("%-32s %-7s %19.1f ms %19.1f ms %19.1f ms\n", what, stat, a, b, c);
  };
  Stats p[3], g[3];
  for (int k = 0; k < 3; ++k) {
    p[k] = Summarize(cases[k].process_ms);
    g[k] = Summarize(cases[k].gather_ms);
  }
  row("process, Slurm RPCs included", "p50", p[0].p50, p[1].p50, p[2].p50);
  row("", "p99", p[0].p99, p[1].p99, p[2].p99);
  row("", "max", p[0].max, p[1].max, p[2].max);
  row("sysfs gather alone (in process)", "p50", g[0].p50, g[1].p50, g[2].p50);
  row("", "p99", g[0].p99, g[1].p99, g[2].p99);
  auto per_run = [&](long n) { return static_cast<double>(n) / std::max(runs, 1); };
  std::printf("%-40s %22.2f %22.2f %22.2f\n", "Slurm reads (GetNode) per Prolog",
              per_run(cases[0].reads), per_run(cases[1].reads), per_run(cases[2].reads));
  std::printf("%-40s %22.2f %22.2f %22.2f\n", "Slurm writes (UpdateNode) per Prolog",
              per_run(cases[0].writes), per_run(cases[1].writes), per_run(cases[2].writes));
  std::printf("%-40s %22s %22s %22s\n", "exit code (expected)", "0", "1: drain", "1: drain");
  std::printf("%-40s %22d %22d %22d\n", "runs with another exit code", cases[0].bad,
              cases[1].bad, cases[2].bad);
  const Stats h = Summarize(hang_ms);
  std::printf("\nhung sysfs read, read_timeout_ms %d: gather returned in max %.1f ms "
              "(%zu runs, %d without the one gather.timeout on the FIFO)\n",
              kHangTimeoutMs, h.max, hang_ms.size(), hang_bad);
  const Stats j0 = Summarize(job_ms[0]), j1 = Summarize(job_ms[1]), j2 = Summarize(job_ms[2]);
  std::printf("\nthe job's fabric record, healthy node n005, %d jobs\n", runs);
  std::printf("%-40s %22s %22s %22s\n", "", "Prolog, no job", "Prolog, job record",
              "Epilog, job record");
  row("process, Slurm RPCs included", "p50", j0.p50, j1.p50, j2.p50);
  row("", "p99", j0.p99, j1.p99, j2.p99);
  row("", "max", j0.max, j1.max, j2.max);
  std::printf("%-40s %22s %22d %22d\n", "job log lines (expected one per job)", "-", job_lines,
              runs + 3);
  std::printf("%-40s %22d\n", "runs with exit code != 0, or lines missing", job_bad);
  const double worst = std::max({p[0].p99, p[1].p99, p[2].p99, j1.p99, j2.p99});
  std::printf("\ntarget p99 < 1000 ms: %s (worst p99 %.1f ms)\n", worst < 1000 ? "met" : "MISSED",
              worst);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return worst < 1000 && cases[0].bad == 0 && cases[1].bad == 0 && cases[2].bad == 0 &&
                 hang_bad == 0 && job_bad == 0
             ? 0
             : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string self = fs::canonical("/proc/self/exe").string();
  const std::string bin = fs::path(self).parent_path().string();
  int runs = 200;
  std::string railcheck = bin + "/healthcheck/railcheck";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--railcheck" && i + 1 < argc) {
      railcheck = argv[++i];
    } else {
      std::fprintf(stderr, "usage: bench_railcheck [--runs N] [--railcheck PATH]\n");
      return 2;
    }
  }
  if (access(railcheck.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "bench_railcheck: %s is not built\n", railcheck.c_str());
    return 1;
  }
  const char* conf = std::getenv("SLURM_CONF");
  if (conf && *conf) return Inside(railcheck, runs);
  // No cluster: start the local one and come back inside it.
  std::vector<std::string> args = {"/bin/bash",
                                   RAILGUARD_SOURCE_DIR "/tests/harness/cluster.sh",
                                   "run",
                                   "--topo",
                                   RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml",
                                   "--railctl",
                                   bin + "/railctl",
                                   "--",
                                   self,
                                   "--runs",
                                   std::to_string(runs),
                                   "--railcheck",
                                   railcheck};
  std::vector<char*> a;
  for (std::string& s : args) a.push_back(s.data());
  a.push_back(nullptr);
  execv(a[0], a.data());
  std::perror("bench_railcheck: cannot run tests/harness/cluster.sh");
  return 1;
}
