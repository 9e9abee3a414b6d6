// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: `railctl report` over a generated 4096-node cluster (128 SUs x 32 nodes, 8 rails)
// with a leaf fault, cable and host faults, down nodes, running jobs and a week of health
// events. Each phase runs in a forked child (which first does the phases before it, untimed)
// so that its peak RSS is its own; the last row does everything in one process, the way
// `railctl report --snapshot` does, against the 1 s target.
//
// usage: bench_report [--sus N] [--nodes-per-su N] [--runs N] [--events N] [--write-inputs DIR]
// --write-inputs writes topology.yaml, snapshot.json and events.log to DIR and exits, for
// timing `railctl report --snapshot` itself.
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "wire/event_log.h"
#include "report/render.h"
#include "report/report.h"
#include "report/snapshot.h"
#include "topo/topology_yaml.h"

namespace {

using railguard::Diags;
namespace report = railguard::report;
namespace wire = railguard::wire;
namespace topo = railguard::topo;
using railguard::bench::LayoutYaml;
using Clock = std::chrono::steady_clock;

constexpr double kNow = 1750000000;
constexpr int kRails = 8;

// A small deterministic generator (no global state, same input every run).
struct Lcg {
  uint64_t s = 0x9E3779B97F4A7C15ull;
  uint32_t Next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint32_t>(s >> 33);
  }
  int Below(int n) { return static_cast<int>(Next() % static_cast<uint32_t>(n)); }
};

std::string Extra(const std::vector<std::string>& rails, const std::string& verdict,
                  const std::vector<std::string>& failed) {
  std::string s = "{\"railcheck\":{\"time\":" + std::to_string(static_cast<long long>(kNow - 300)) +
                  ",\"verdict\":\"" + verdict + "\",\"rails\":[";
  for (size_t i = 0; i < rails.size(); ++i) s += (i ? ",\"" : "\"") + rails[i] + "\"";
  s += "],\"failed\":[";
  for (size_t i = 0; i < failed.size(); ++i) s += (i ? ",\"" : "\"") + failed[i] + "\"";
  return s + "]}}";
}

// The cluster: a leaf fault (every node of su7 on rail 2, drained), 60 cable faults
// (restricted), 8 host faults (3 rails, drained), 4 down nodes, 1 job per 8 allocated nodes.
report::Snapshot MakeSnapshot(const topo::Topology& t, std::vector<wire::HealthEvent>* events,
                              int event_count) {
  Lcg rng;
  report::Snapshot s;
  s.time = kNow;
  s.source = "bench";
  s.slurm_cluster = "bench";
  std::vector<std::string> names;
  for (const topo::ScalableUnit& su : t.sus)
    for (const std::string& n : su.nodes) names.push_back(n);
  const size_t n_nodes = names.size();
  std::vector<std::vector<std::string>> rails(n_nodes, std::vector<std::string>(kRails, "ok"));
  std::vector<std::vector<std::string>> failed(n_nodes);
  std::vector<std::string> verdict(n_nodes, "ok"), reason(n_nodes);
  const auto bad = [&](size_t i, int r, const char* state, const char* check) {
    rails[i][static_cast<size_t>(r)] = state;
    failed[i].push_back("rail" + std::to_string(r) + ":" + check);
  };
  const size_t per_su = t.sus[0].nodes.size();
  for (size_t i = 6 * per_su; i < 7 * per_su && i < n_nodes; ++i) {
    bad(i, 2, "degraded", "port.rate");
    verdict[i] = "drain";
    reason[i] = "railcheck: rail2 mlx5_4 rate 200 Gb/s < 400 Gb/s";
  }
  for (int k = 0; k < 60; ++k) {
    const size_t i = static_cast<size_t>(rng.Below(static_cast<int>(n_nodes)));
    if (verdict[i] != "ok") continue;
    bad(i, rng.Below(kRails), "degraded", "link.errors");
    verdict[i] = "restrict";
  }
  for (int k = 0; k < 8; ++k) {
    const size_t i = static_cast<size_t>(rng.Below(static_cast<int>(n_nodes)));
    if (verdict[i] != "ok") continue;
    for (int r = 0; r < 3; ++r) bad(i, r, r == 0 ? "down" : "degraded", "pcie.width");
    verdict[i] = "drain";
    reason[i] = "railcheck: rail0 gpu0 pcie width x8 < x16 (+2 more)";
  }
  std::vector<bool> allocated(n_nodes, false);
  for (size_t i = 0; i + 8 <= n_nodes; i += 16) {
    if (verdict[i] != "ok") continue;
    report::JobSnapshot j;
    j.id = static_cast<uint32_t>(1000 + i);
    j.name = "train-" + std::to_string(i);
    j.user = "user" + std::to_string(i % 37);
    j.state = "running";
    j.nodes = names[i] + "," + names[i + 1] + "," + names[i + 2] + "," + names[i + 3] + "," +
              names[i + 4] + "," + names[i + 5] + "," + names[i + 6] + "," + names[i + 7];
    j.node_count = 8;
    j.start_time = kNow - 3600;
    j.partition = "batch";
    for (size_t k = i; k < i + 8; ++k) allocated[k] = true;
    s.jobs.push_back(j);
  }
  for (size_t i = 0; i < n_nodes; ++i) {
    report::NodeSnapshot n;
    n.name = names[i];
    n.state = allocated[i] ? "allocated" : "idle";
    n.features = verdict[i] == "ok" ? "dgx,rail_healthy" : "dgx";
    if (verdict[i] == "drain") {
      n.flags = {"drain"};
      n.reason = reason[i];
      n.reason_time = kNow - 1800;
      n.reason_user = "root";
    }
    if (i % 1000 == 999) {
      n.state = "down";
      n.flags = {"not_responding"};
      n.reason = "Not responding";
      n.reason_time = kNow - 600;
    }
    n.extra = Extra(rails[i], verdict[i], failed[i]);
    s.nodes.push_back(n);
  }
  const wire::EventKind kinds[] = {wire::EventKind::kFlap, wire::EventKind::kDegraded,
                                     wire::EventKind::kRecovered, wire::EventKind::kDrained,
                                     wire::EventKind::kRestricted};
  // Like real links, a few are flaky: 9 events in 10 fall on 200 (node, rail) pairs, the
  // rest anywhere.
  std::vector<std::pair<size_t, int>> flaky;
  for (int k = 0; k < 200; ++k)
    flaky.push_back({static_cast<size_t>(rng.Below(static_cast<int>(n_nodes))), rng.Below(kRails)});
  for (int k = 0; k < event_count; ++k) {
    wire::HealthEvent e;
    e.time = kNow - rng.Below(7 * 86400);
    const bool on_flaky = rng.Below(10) < 9;
    const auto& f = flaky[static_cast<size_t>(rng.Below(200))];
    e.node = names[on_flaky ? f.first : static_cast<size_t>(rng.Below(static_cast<int>(n_nodes)))];
    e.kind = kinds[rng.Below(5)];
    const bool node_event =
        e.kind == wire::EventKind::kDrained || e.kind == wire::EventKind::kRestricted;
    e.rail = node_event ? -1 : on_flaky ? f.second : rng.Below(kRails);
    e.nic = node_event ? "" : "mlx5_3";
    e.checks = {node_event ? "port.rate" : "link.errors"};
    e.detail = "link.errors: rail1 mlx5_3 symbol_error 540/h > 10/h";
    if (!node_event)
      e.counters = {{"symbol_error", 1000u + static_cast<uint64_t>(k), 90, 600},
                    {"port_rcv_errors", 20, 2, 600}};
    events->push_back(e);
  }
  return s;
}

struct Sample {
  double ms = -1;      // wall time of the timed part
  double cpu_ms = -1;  // user + system time of the timed part
  long rss_kb = 0;     // the process's peak RSS (VmHWM)
  bool ok = false;
};

// What a child sends back.
struct ChildResult {
  double ms = -1;
  double cpu_ms = -1;
  long rss_kb = 0;
};

// The peak resident set of this process (VmHWM of /proc/self/status), in KiB.
long PeakRssKb() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  long kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
  std::fclose(f);
  return kb;
}

double CpuMs() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
         (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

// Runs phase `phase` in a fresh process (this program re-executed with --child), so that
// its peak RSS is its own and not the generator's. The child writes a ChildResult to the
// pipe.
Sample RunChild(int phase, const std::string& dir, int sus, int per_su) {
  int fds[2];
  Sample s;
  if (pipe(fds) != 0) return s;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string args[] = {"bench_report",
                                "--child",
                                std::to_string(phase),
                                "--dir",
                                dir,
                                "--fd",
                                std::to_string(fds[1]),
                                "--sus",
                                std::to_string(sus),
                                "--nodes-per-su",
                                std::to_string(per_su)};
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(4);
  }
  close(fds[1]);
  ChildResult r;
  if (read(fds[0], &r, sizeof r) != sizeof r) r.ms = -1;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  s.ms = r.ms;
  s.cpu_ms = r.cpu_ms;
  s.rss_kb = r.rss_kb;
  s.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.ms >= 0;
  return s;
}

long long FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<long long>(st.st_size) : 0;
}

double Since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct Inputs {
  std::string yaml;
  std::string snapshot_path;
  std::string history_path;
};

// Everything a phase may need, built in the child up to `upto` (0 topology, 1 snapshot,
// 2 history, 3 report); returns the milliseconds of phase `upto` alone.
struct Pipeline {
  topo::Topology topology;
  report::Snapshot snapshot;
  std::vector<wire::HealthEvent> events;
  Diags problems;
  report::Report rep;
  std::vector<double> ms;   // wall time of each step done
  std::vector<double> cpu;  // CPU time of each step done

  bool Run(const Inputs& in, int upto) {
    auto t0 = Clock::now();
    double c0 = CpuMs();
    const auto step = [&] {
      ms.push_back(Since(t0));
      cpu.push_back(CpuMs() - c0);
      t0 = Clock::now();
      c0 = CpuMs();
    };
    Diags d;
    if (!topo::LoadTopologyString(in.yaml, "bench.yaml", &topology, &d)) return false;
    step();
    if (upto < 1) return true;
    if (!report::LoadSnapshotFile(in.snapshot_path, &snapshot, &d)) {
      std::fputs(railguard::FormatDiags(d).c_str(), stderr);
      return false;
    }
    step();
    if (upto < 2) return true;
    std::string err;
    if (wire::ReadEvents(in.history_path, kNow - 7 * 86400, kNow, &events, &problems, &err) !=
        wire::EventLogStatus::kOk)
      return false;
    step();
    if (upto < 3) return true;
    report::ReportOptions opt;
    opt.history_read = true;
    opt.history_files = {in.history_path};
    rep = report::BuildReport(snapshot, in.snapshot_path, topology, events, problems, opt);
    step();
    return !rep.suspects.empty();
  }
};

void Row(const char* phase, std::vector<Sample> runs, double target_ms) {
  const bool ok = std::all_of(runs.begin(), runs.end(), [](const Sample& s) { return s.ok; });
  long rss = 0;
  for (const Sample& s : runs) rss = std::max(rss, s.rss_kb);
  std::vector<double> cpu;
  for (const Sample& s : runs) cpu.push_back(s.cpu_ms);
  std::sort(cpu.begin(), cpu.end());
  std::sort(runs.begin(), runs.end(), [](const Sample& a, const Sample& b) { return a.ms < b.ms; });
  const double median = runs[runs.size() / 2].ms;
  char target[32] = "-";
  if (target_ms > 0) std::snprintf(target, sizeof target, "%.0f", target_ms);
  std::printf("%-38s %8.1f %8.1f %8.1f %8.1f %9s  %s\n", phase, median, runs.back().ms,
              cpu[cpu.size() / 2], rss / 1024.0, target,
              !ok                   ? "FAILED"
              : target_ms <= 0      ? ""
              : median <= target_ms ? "ok"
                                    : "OVER");
}

struct Phase {
  const char* name;
  double target_ms;  // 0 = none
};

const Phase kPhases[] = {
    {"load topology (YAML)", 0},
    {"load snapshot (JSON)", 0},
    {"read history (JSON lines)", 0},
    {"build report", 0},
    {"format: text", 0},
    {"format: json", 0},
    {"format: html", 0},
    {"format: prometheus", 0},
    {"one report: load+history+build+text", 1000},
    {"one report: load+history+build+html", 1000},
    {"all: load+history+build+4 formats", 1000},
};
constexpr int kPhaseCount = sizeof kPhases / sizeof kPhases[0];

// Runs phase `phase`: the timed part's wall and CPU milliseconds (wall < 0 on failure).
ChildResult RunPhase(int phase, const Inputs& in) {
  using Render = std::string (*)(const report::Report&);
  const Render formats[] = {report::RenderText, report::RenderJson, report::RenderHtml,
                            report::RenderPrometheus};
  ChildResult r;
  Pipeline q;
  if (phase <= 3) {
    if (!q.Run(in, phase)) return r;
    r.ms = q.ms.back();
    r.cpu_ms = q.cpu.back();
    r.rss_kb = PeakRssKb();
    return r;
  }
  if (phase <= 7) {
    if (!q.Run(in, 3)) return r;
    const double cpu0 = CpuMs();
    const auto t0 = Clock::now();
    const std::string out = formats[phase - 4](q.rep);
    r.ms = out.empty() ? -1.0 : Since(t0);
    r.cpu_ms = CpuMs() - cpu0;
    r.rss_kb = PeakRssKb();
    return r;
  }
  const double cpu0 = CpuMs();
  const auto t0 = Clock::now();
  if (!q.Run(in, 3)) return r;
  size_t bytes = 0;
  if (phase == 8) bytes = report::RenderText(q.rep).size();
  if (phase == 9) bytes = report::RenderHtml(q.rep).size();
  if (phase == 10)
    for (Render f : formats) bytes += f(q.rep).size();
  r.ms = bytes > 0 ? Since(t0) : -1.0;
  r.cpu_ms = CpuMs() - cpu0;
  r.rss_kb = PeakRssKb();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int sus = 128, per_su = 32, runs = 5, event_count = 50000, child = -1, fd = -1;
  std::string child_dir, inputs_dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sus"))
      sus = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--nodes-per-su"))
      per_su = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--runs"))
      runs = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--events"))
      event_count = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--child"))
      child = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--dir"))
      child_dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--fd"))
      fd = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--write-inputs"))
      inputs_dir = argv[i + 1];
  }
  if (sus <= 6 || per_su <= 8 || runs <= 0 || event_count < 0) {
    std::fprintf(stderr,
                 "usage: bench_report [--sus N>6] [--nodes-per-su N>8] [--runs N] "
                 "[--events N]\n");
    return 2;
  }
  Inputs in;
  in.yaml = LayoutYaml(sus, per_su);
  if (child >= 0) {
    if (child >= kPhaseCount || fd < 0 || child_dir.empty()) return 2;
    in.snapshot_path = child_dir + "/snapshot.json";
    in.history_path = child_dir + "/events.log";
    const ChildResult r = RunPhase(child, in);
    if (write(fd, &r, sizeof r) != sizeof r) return 3;
    return r.ms >= 0 ? 0 : 1;
  }
  topo::Topology layout;
  Diags diags;
  if (!topo::LoadTopologyString(in.yaml, "bench.yaml", &layout, &diags)) {
    std::fputs(railguard::FormatDiags(diags).c_str(), stderr);
    return 1;
  }
  char dir_template[] = "/tmp/bench_report.XXXXXX";
  const char* dir = inputs_dir.empty() ? mkdtemp(dir_template) : inputs_dir.c_str();
  if (!dir) {
    std::perror("mkdtemp");
    return 1;
  }
  in.snapshot_path = std::string(dir) + "/snapshot.json";
  in.history_path = std::string(dir) + "/events.log";
  size_t jobs = 0, events_written = 0, snap_bytes = 0;
  {
    std::vector<wire::HealthEvent> events;
    const report::Snapshot snap = MakeSnapshot(layout, &events, event_count);
    const std::string snap_text = report::SnapshotToJson(snap);
    FILE* f = std::fopen(in.snapshot_path.c_str(), "w");
    if (!f || std::fwrite(snap_text.data(), 1, snap_text.size(), f) != snap_text.size()) {
      std::perror(in.snapshot_path.c_str());
      return 1;
    }
    std::fclose(f);
    std::string err;
    wire::EventLogOptions log_options;
    log_options.max_bytes = uint64_t{1} << 30;
    if (!wire::AppendEvents(in.history_path, events, &err, log_options)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 1;
    }
    if (!inputs_dir.empty()) {
      FILE* y = std::fopen((inputs_dir + "/topology.yaml").c_str(), "w");
      if (!y || std::fwrite(in.yaml.data(), 1, in.yaml.size(), y) != in.yaml.size()) return 1;
      std::fclose(y);
      std::printf("wrote %s/topology.yaml, snapshot.json, events.log\n", dir);
      return 0;
    }
    jobs = snap.jobs.size();
    events_written = events.size();
    snap_bytes = snap_text.size();
  }

  // One untimed pass to size the outputs for the header.
  {
    Pipeline p;
    if (!p.Run(in, 3)) {
      std::fprintf(stderr, "bench_report: the pipeline failed on the generated input\n");
      return 1;
    }
    std::printf(
        "cluster: %d SUs x %d nodes = %zu nodes, %d rails, %zu running jobs; snapshot "
        "%zu KiB; %zu history events in 7 days (%lld KiB); %zu suspects\n",
        sus, per_su, layout.NodeCount(), kRails, jobs, snap_bytes / 1024, events_written,
        FileSize(in.history_path) / 1024, p.rep.suspects.size());
    std::printf(
        "outputs: text %zu KiB, json %zu KiB, html %zu KiB, prometheus %zu KiB; "
        "%d runs per phase, each in a fresh process\n\n",
        report::RenderText(p.rep).size() / 1024, report::RenderJson(p.rep).size() / 1024,
        report::RenderHtml(p.rep).size() / 1024, report::RenderPrometheus(p.rep).size() / 1024,
        runs);
  }
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) < 1) load[0] = -1;
  std::printf("load average now: %.2f (wall times grow with it; CPU times do not)\n\n", load[0]);
  std::printf("%-38s %8s %8s %8s %8s %9s  %s\n", "phase", "p50 ms", "max ms", "cpu ms", "peak MB",
              "target ms", "verdict (p50 wall)");
  for (int ph = 0; ph < kPhaseCount; ++ph) {
    std::vector<Sample> samples;
    for (int i = 0; i < runs; ++i) samples.push_back(RunChild(ph, dir, sus, per_su));
    Row(kPhases[ph].name, samples, kPhases[ph].target_ms);
  }
  unlink(in.snapshot_path.c_str());
  unlink(in.history_path.c_str());
  rmdir(dir);
  return 0;
}
