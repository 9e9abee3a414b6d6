// SPDX-License-Identifier: GPL-2.0-or-later
// Benchmark: load + validate + export of a large rail layout, discovery from a matching
// generated ibnetdiscover dump, and host-list expansion and compression at growing host
// counts (linear, not quadratic). Each phase runs in a forked child so its peak RSS is its own.
//
// usage: bench_topo [--sus N] [--nodes-per-su N] [--runs N]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "topo/discover.h"
#include "topo/export.h"
#include "topo/fabric_sim.h"
#include "topo/hostlist.h"
#include "topo/ibnet.h"
#include "topo/topology_yaml.h"

namespace {

using railguard::Diags;
namespace topo = railguard::topo;
using railguard::bench::LayoutYaml;

struct Sample {
  double ms = 0;
  long rss_kb = 0;
  bool ok = false;
};

// Runs `body` in a child; the child reports its own wall time through a pipe, the parent
// reads the child's peak RSS from wait4().
Sample RunChild(const std::function<bool()>& body) {
  int fds[2];
  Sample s;
  if (pipe(fds) != 0) return s;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    auto t0 = std::chrono::steady_clock::now();
    bool ok = body();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
    if (write(fds[1], &ms, sizeof ms) != sizeof ms) _exit(3);
    _exit(ok ? 0 : 1);
  }
  close(fds[1]);
  double ms = -1;
  if (read(fds[0], &ms, sizeof ms) != sizeof ms) ms = -1;
  close(fds[0]);
  int status = 0;
  struct rusage ru {};
  wait4(pid, &status, 0, &ru);
  s.ms = ms;
  s.rss_kb = ru.ru_maxrss;
  s.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && ms >= 0;
  return s;
}

void Report(const char* phase, std::vector<Sample> runs, double target_ms, double target_mb) {
  std::sort(runs.begin(), runs.end(), [](const Sample& a, const Sample& b) { return a.ms < b.ms; });
  bool ok = std::all_of(runs.begin(), runs.end(), [](const Sample& s) { return s.ok; });
  long rss = 0;
  for (const Sample& s : runs) rss = std::max(rss, s.rss_kb);
  const double median = runs[runs.size() / 2].ms;
  const double rss_mb = rss / 1024.0;
  std::printf("%-44s %9.1f %9.1f %9.1f %11.1f  %s\n", phase, median, runs.back().ms, rss_mb,
              target_ms,
              !ok ? "FAILED" : (median <= target_ms && rss_mb <= target_mb ? "ok" : "OVER"));
}

// Expands "n[000001-<hosts>]", shuffles it and compresses it both ways, `copies` times over
// (each host `copies` times): what the layout load and the report do with host lists.
bool HostlistRoundTrip(size_t hosts, int copies) {
  std::string expr = "n[";  // ranges of at most 65536 hosts, as a host list allows
  for (size_t lo = 1; lo <= hosts; lo += 65536) {
    char range[32];
    std::snprintf(range, sizeof range, "%s%06zu-%06zu", lo > 1 ? "," : "", lo,
                  std::min(hosts, lo + 65535));
    expr += range;
  }
  expr += "]";
  std::vector<std::string> names;
  std::string err;
  if (!railguard::ExpandHostlist(expr, &names, &err) || names.size() != hosts) return false;
  uint64_t seed = 5;
  for (size_t k = names.size(); k > 1; --k) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    std::swap(names[k - 1], names[(seed >> 33) % k]);
  }
  std::vector<std::string> all;
  for (int c = 0; c < copies; ++c) all.insert(all.end(), names.begin(), names.end());
  const std::string sorted = railguard::CompressHostlistSorted(all);
  const std::string unsorted = railguard::CompressHostlist(all);
  std::vector<std::string> back;
  return railguard::ExpandHostlist(unsorted, &back, &err) && back == all &&
         railguard::ExpandHostlist(sorted, &back, &err) && back.size() == all.size();
}

// The whole discovery path over a fabric of `sus` SUs x `per_su` nodes: the layout simulated
// into an ibnetdiscover dump, the dump parsed, the topology discovered from it, and the
// result written as YAML and loaded back, which must give the same YAML and the same nodes.
bool DiscoverRoundTrip(int sus, int per_su) {
  topo::Topology layout;
  Diags diags;
  std::string dump;
  std::string err;
  if (!topo::LoadTopologyString(LayoutYaml(sus, per_su), "bench.yaml", &layout, &diags) ||
      !topo::SimulateFabric(layout, topo::SimOptions(), &dump, &err))
    return false;
  topo::IbFabric fabric;
  if (!topo::ParseIbnetdiscover(dump, "bench.topo", &fabric, &diags)) return false;
  topo::DiscoverOptions opts;
  opts.cluster = "bench";
  opts.node_type = "dgx-h100";
  const topo::Discovery d = topo::Discover(fabric, opts);
  const std::string yaml = topo::EmitTopologyYaml(d.topology);
  topo::Topology back;
  return d.findings.empty() && d.topology.NodeCount() == layout.NodeCount() &&
         topo::LoadTopologyString(yaml, "discovered.yaml", &back, &diags) &&
         topo::EmitTopologyYaml(back) == yaml;
}

}  // namespace

int main(int argc, char** argv) {
  int sus = 128, per_su = 32, runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--sus")) sus = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--nodes-per-su")) per_su = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--runs")) runs = std::atoi(argv[i + 1]);
  }
  if (sus <= 0 || per_su <= 0 || runs <= 0) {
    std::fprintf(stderr, "usage: bench_topo [--sus N] [--nodes-per-su N] [--runs N]\n");
    return 2;
  }
  const std::string yaml = LayoutYaml(sus, per_su);
  topo::Topology layout;
  Diags diags;
  if (!topo::LoadTopologyString(yaml, "bench.yaml", &layout, &diags)) {
    std::fputs(railguard::FormatDiags(diags).c_str(), stderr);
    return 1;
  }
  topo::SimOptions sim;
  std::string dump;
  std::string err;
  if (!topo::SimulateFabric(layout, sim, &dump, &err)) {
    std::fprintf(stderr, "simulate: %s\n", err.c_str());
    return 1;
  }

  std::printf("layout: %d SUs x %d nodes = %zu nodes, 8 rails, %zu leaves; YAML %zu KiB, "
              "ibnetdiscover dump %zu KiB; %d runs per phase\n\n",
              sus, per_su, layout.NodeCount(), layout.sus.size() * 8, yaml.size() / 1024,
              dump.size() / 1024, runs);
  std::printf("%-44s %9s %9s %9s %11s  %s\n", "phase", "p50 ms", "max ms", "peak MB",
              "target ms", "verdict (target: <200 ms, <100 MB)");

  auto load_export = [&] {
    topo::Topology t;
    Diags d;
    if (!topo::LoadTopologyString(yaml, "bench.yaml", &t, &d)) return false;
    std::string tree = topo::ExportTreeConf(t, "bench.yaml");
    std::string block = topo::ExportBlockConf(t, "bench.yaml");
    return !tree.empty() && !block.empty();
  };
  auto discover = [&] {
    topo::IbFabric fabric;
    Diags d;
    if (!topo::ParseIbnetdiscover(dump, "bench.topo", &fabric, &d)) return false;
    topo::DiscoverOptions opts;
    opts.cluster = "bench";
    opts.node_type = "dgx-h100";
    topo::Discovery result = topo::Discover(fabric, opts);
    return result.topology.NodeCount() == layout.NodeCount() && result.findings.empty();
  };
  std::vector<Sample> a, b;
  for (int i = 0; i < runs; ++i) a.push_back(RunChild(load_export));
  for (int i = 0; i < runs; ++i) b.push_back(RunChild(discover));
  Report("load+validate+export (tree, block)", a, 200, 100);
  Report("discover from ibnetdiscover dump", b, 200, 100);
  // Discovery end to end: the time per node stays flat from 1k to 4k nodes.
  for (int fabric_sus : {32, 128}) {
    std::vector<Sample> r;
    for (int i = 0; i < runs; ++i)
      r.push_back(RunChild([fabric_sus, per_su] { return DiscoverRoundTrip(fabric_sus, per_su); }));
    char phase[64];
    std::snprintf(phase, sizeof phase, "simulate+parse+discover+YAML %d nodes",
                  fabric_sus * per_su);
    Report(phase, r, 400.0 * fabric_sus * per_su / 4096, 200);
  }
  // Host lists: the time per host stays flat from 1k to 16k hosts (and 131072 hosts, each
  // twice, the largest case the unit tests check for correctness, stays within seconds).
  for (size_t hosts : {1024u, 4096u, 16384u}) {
    std::vector<Sample> h;
    for (int i = 0; i < runs; ++i) h.push_back(RunChild([hosts] { return HostlistRoundTrip(hosts, 1); }));
    char phase[64];
    std::snprintf(phase, sizeof phase, "hostlist expand+compress %zuk hosts", hosts / 1024);
    Report(phase, h, 40.0 * static_cast<double>(hosts) / 4096, 100);
  }
  std::vector<Sample> big;
  for (int i = 0; i < runs; ++i) big.push_back(RunChild([] { return HostlistRoundTrip(131072, 2); }));
  Report("hostlist 131072 shuffled hosts, each twice", big, 3000, 1024);
  return 0;
}
