// SPDX-License-Identifier: GPL-2.0-or-later
// bench_plugin_cost: what railguard's Slurm plugins cost slurmctld, measured in-process on the
// plugin core (plugin/core), without Slurm:
//  - topology/rail's setup at start and at every reconfigure: railguard.yaml + rail topology
//    loaded and validated (LoadRailSetup), then the switch tree and node ranks planned
//    (PlanSwitches) for every node of slurm.conf; median of N runs, on a generated layout
//    (default 128 SUs x 32 nodes = 4096 nodes) and on any layouts given with --topo;
//  - job_submit/rail's per-job work: what rg_js_decide does under its lock (max_switch_wait
//    from SchedulerParameters, the SU sizes of the job's partition from its node list, here
//    every node of the layout, DecidePlacement), timed one call at a time over many job
//    shapes; p50, p99 and max;
//  - the feature keeper's look at every node (FixFeatures on each node's features and a
//    railcheck Extra), as after a slurmctld start (restore) and at an ordinary pass.
//
// usage: bench_plugin_cost [--sus N] [--nodes-per-su N] [--runs N] [--rounds N] [--topo YAML]...
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "plugin/core/fabric_cache.h"
#include "plugin/core/feature_keeper.h"
#include "plugin/core/placement.h"
#include "config/load.h"
#include "plugin/core/switch_plan.h"
#include "base/diag.h"
#include "base/numbers.h"

namespace {

namespace plugin = railguard::plugin;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage: bench_plugin_cost [--sus N] [--nodes-per-su N] [--runs N] [--rounds N] "
    "[--topo YAML]...\n"
    "  --sus N, --nodes-per-su N  the generated layout (default 128 x 32 = 4096 nodes)\n"
    "  --runs N     topology setups timed per layout; the median is printed (default 21)\n"
    "  --rounds N   passes over all job shapes for the job_submit timing (default 2000)\n"
    "  --topo YAML  also time this rail topology (repeatable)\n";

using railguard::bench::Median;
using railguard::bench::Ms;

bool WriteFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return false;
  const bool ok = std::fputs(text.c_str(), f) >= 0;
  return std::fclose(f) == 0 && ok;
}

double Quantile(const std::vector<double>& sorted, double q) {
  size_t i = static_cast<size_t>(q * static_cast<double>(sorted.size()));
  return sorted[std::min(i, sorted.size() - 1)];
}

struct SetupTiming {
  std::string label;
  size_t nodes = 0;
  size_t sus = 0;
  double load_ms = 0;  // medians
  double plan_ms = 0;
  double total_ms = 0;
  std::shared_ptr<const railguard::RailSetup> setup;  // from the last run
};

// Times LoadRailSetup + PlanSwitches on `config_path` `runs` times.
bool TimeSetup(const std::string& label, const std::string& config_path, int runs,
               SetupTiming* out) {
  std::vector<double> load, plan, total;
  for (int i = 0; i < runs; ++i) {
    railguard::Diags diags;
    const Clock::time_point t0 = Clock::now();
    std::shared_ptr<const railguard::RailSetup> setup = railguard::LoadRailSetup(config_path, &diags);
    const Clock::time_point t1 = Clock::now();
    if (!setup) {
      std::fputs(railguard::FormatDiags(diags).c_str(), stderr);
      return false;
    }
    // slurmctld hands the plugin its node table; here, every node of the layout.
    std::vector<std::string> names;
    for (const railguard::topo::ScalableUnit& su : setup->topology.sus) {
      names.insert(names.end(), su.nodes.begin(), su.nodes.end());
    }
    const Clock::time_point t2 = Clock::now();
    plugin::SwitchPlan sp = plugin::PlanSwitches(setup->topology, names, config_path);
    const Clock::time_point t3 = Clock::now();
    if (sp.switches.size() != setup->topology.sus.size() + 1 || sp.rank.size() != names.size()) {
      std::fprintf(stderr, "bench_plugin_cost: %s: unexpected plan (%zu switches, %zu ranks)\n",
                   label.c_str(), sp.switches.size(), sp.rank.size());
      return false;
    }
    load.push_back(Ms(t1 - t0));
    plan.push_back(Ms(t3 - t2));
    total.push_back(Ms(t1 - t0) + Ms(t3 - t2));
    out->nodes = names.size();
    out->sus = setup->topology.sus.size();
    out->setup = std::move(setup);
  }
  out->label = label;
  out->load_ms = Median(load);
  out->plan_ms = Median(plan);
  out->total_ms = Median(total);
  return true;
}

// Job shapes as job_submit sees them: node counts, GPU-only requests, tasks, user features and
// --switches, and every --rail-placement value.
std::vector<plugin::JobFacts> JobShapes() {
  std::vector<plugin::JobFacts> shapes;
  const char* modes[] = {nullptr, "strict", "prefer", "off"};
  const char* features[] = {"", "su1", "a100|h100", "[su1|su2]"};
  for (const char* mode : modes) {
    for (uint32_t nodes : {1u, 2u, 3u, 4u, 8u, 16u, 31u, 32u, 33u, 64u, 200u, 1000u}) {
      for (const char* f : features) {
        plugin::JobFacts j;
        j.min_nodes = nodes;
        j.features = f;
        if (mode) j.spank_env.push_back(std::string("SPANK_RAIL_PLACEMENT=") + mode);
        shapes.push_back(j);
      }
    }
    for (uint32_t gpus : {1u, 4u, 8u, 16u, 64u, 256u}) {
      plugin::JobFacts j;
      j.tres_per_job = "gres:gpu:" + std::to_string(gpus);
      if (mode) j.spank_env.push_back(std::string("SPANK_RAIL_PLACEMENT=") + mode);
      shapes.push_back(j);
    }
    plugin::JobFacts tasks;
    tasks.num_tasks = 64;
    tasks.tres_per_task = "gres:gpu:1";
    shapes.push_back(tasks);
    plugin::JobFacts own_switches;
    own_switches.min_nodes = 4;
    own_switches.has_switches = true;
    shapes.push_back(own_switches);
  }
  plugin::JobFacts limited;
  limited.min_nodes = 100;
  limited.spank_env = {"SPANK_RAIL_PLACEMENT=strict", "SPANK_RAIL_MAX_SUS=2"};
  shapes.push_back(limited);
  plugin::JobFacts bad;
  bad.min_nodes = 2;
  bad.spank_env = {"SPANK_RAIL_PLACEMENT=bogus"};
  shapes.push_back(bad);
  return shapes;
}

struct DecideTiming {
  double p50_us = 0, p99_us = 0, max_us = 0;
  size_t calls = 0;
  size_t shapes = 0;
};

// The nodes of `setup` and their features as slurmctld would hand them over.
struct NodeList {
  std::vector<std::string> names, features;
  std::vector<const char*> name_ptrs, feature_ptrs;
};

NodeList NodesOf(const railguard::RailSetup& setup) {
  NodeList l;
  for (const railguard::topo::ScalableUnit& su : setup.topology.sus) {
    for (const std::string& n : su.nodes) {
      l.names.push_back(n);
      l.features.push_back(su.name + ",rail_healthy");
    }
  }
  for (size_t i = 0; i < l.names.size(); ++i) {
    l.name_ptrs.push_back(l.names[i].c_str());
    l.feature_ptrs.push_back(l.features[i].c_str());
  }
  return l;
}

// Each call: what rg_js_decide runs per job (ParseMaxSwitchWait, the partition's domain sizes,
// DecidePlacement). The domain sizes as rg_js_decide finds them (`cached`: FabricCache, each
// node's domain remembered by its slurmctld index, warm after the first call) or by a name
// lookup of every node per job (FabricOfNodes, what rg_js_decide did before).
DecideTiming TimeDecide(const std::shared_ptr<const railguard::RailSetup>& shared, bool cached,
                        int rounds) {
  const railguard::RailSetup& setup = *shared;
  const std::shared_ptr<const railguard::topo::Topology> topo(shared, &shared->topology);
  plugin::FabricCache cache;
  const std::vector<plugin::JobFacts> shapes = JobShapes();
  const std::string sched_params = "bf_interval=2,max_switch_wait=31536000";
  const NodeList nodes = NodesOf(setup);
  std::vector<uint32_t> index(nodes.names.size());
  for (size_t i = 0; i < index.size(); ++i) index[i] = static_cast<uint32_t>(i);
  std::vector<double> us;
  us.reserve(shapes.size() * static_cast<size_t>(rounds));
  volatile size_t sink = 0;  // keeps the decisions from being optimized away
  for (int r = 0; r < rounds; ++r) {
    for (plugin::JobFacts job : shapes) {
      const Clock::time_point t0 = Clock::now();
      job.max_switch_wait = plugin::ParseMaxSwitchWait(sched_params);
      const plugin::Fabric fabric =
          cached ? cache.Of(topo, index.data(), nodes.name_ptrs.data(), nodes.feature_ptrs.data(),
                            nodes.name_ptrs.size(), setup.config.placement.healthy_feature,
                            &job.healthy_nodes)
                 : plugin::FabricOfNodes(setup.topology, nodes.name_ptrs.data(),
                                         nodes.feature_ptrs.data(), nodes.name_ptrs.size(),
                                         setup.config.placement.healthy_feature,
                                         &job.healthy_nodes);
      const plugin::Decision d = plugin::DecidePlacement(job, setup.config.placement, fabric);
      const Clock::time_point t1 = Clock::now();
      sink += d.req_switch + d.message.size();
      us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
  }
  std::sort(us.begin(), us.end());
  DecideTiming t;
  t.p50_us = Quantile(us, 0.50);
  t.p99_us = Quantile(us, 0.99);
  t.max_us = us.back();
  t.calls = us.size();
  t.shapes = shapes.size();
  return t;
}

// One look of the feature keeper at every node (milliseconds, median of `runs`): the health
// of each node's railcheck Extra (through the keeper's cache) and FixFeatures on its
// features. `restore`: the first look after a start (an empty cache: every report parsed);
// else an ordinary look, after one that saw the same reports.
double TimeKeeperPass(const railguard::RailSetup& setup, bool restore, int runs) {
  const NodeList nodes = NodesOf(setup);
  // Each node's report has its own time stamp, as railcheck writes them.
  std::vector<std::string> extra(nodes.names.size());
  for (size_t i = 0; i < extra.size(); ++i)
    extra[i] = R"({"railcheck":{"failed":[],"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],)"
               R"("time":)" +
               std::to_string(1796400000 + i) + R"(,"verdict":"ok"}})";
  std::vector<double> ms;
  volatile size_t sink = 0;
  for (int r = 0; r < runs; ++r) {
    plugin::ExtraHealthCache cache;  // the keeper's, empty at each start
    if (!restore)
      for (size_t i = 0; i < nodes.names.size(); ++i) sink += cache.Healthy(i, extra[i]);
    const Clock::time_point t0 = Clock::now();
    for (size_t i = 0; i < nodes.names.size(); ++i)
      sink += plugin::FixFeatures(nodes.features[i], "", cache.Healthy(i, extra[i]), "rail_healthy",
                                  restore, /*rail_node=*/true)
                  .has_value();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return Quantile(ms, 0.50);
}

bool ToInt(const char* flag, const char* v, int* out) {
  long n = 0;
  if (!railguard::ParseLong(v, 1, 1000000, &n)) {
    std::fprintf(stderr, "bench_plugin_cost: %s '%s'; expected a whole number from 1 to 1000000\n",
                 flag, v);
    return false;
  }
  *out = static_cast<int>(n);
  return true;
}

int Run(int argc, char** argv) {
  int sus = 128, per_su = 32, runs = 21, rounds = 2000;
  std::vector<std::string> topos;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "bench_plugin_cost: %s needs a value\n%s", a.c_str(), kUsage);
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--sus") {
      if (!ToInt("--sus", v, &sus)) return 2;
    } else if (a == "--nodes-per-su") {
      if (!ToInt("--nodes-per-su", v, &per_su)) return 2;
    } else if (a == "--runs") {
      if (!ToInt("--runs", v, &runs)) return 2;
    } else if (a == "--rounds") {
      if (!ToInt("--rounds", v, &rounds)) return 2;
    } else if (a == "--topo") {
      char* abs = realpath(v, nullptr);  // railguard.yaml resolves relative paths itself
      if (!abs) {
        std::fprintf(stderr, "bench_plugin_cost: --topo %s: %s\n", v, std::strerror(errno));
        return 2;
      }
      topos.push_back(abs);
      std::free(abs);
    } else {
      std::fprintf(stderr, "bench_plugin_cost: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (static_cast<long>(sus) * per_su > 1000000) {
    std::fprintf(stderr, "bench_plugin_cost: %d x %d nodes; expected at most 1000000\n", sus,
                 per_su);
    return 2;
  }

  char dir_template[] = "/tmp/rg-plugin-cost.XXXXXX";
  if (!mkdtemp(dir_template)) {
    std::perror("bench_plugin_cost: mkdtemp");
    return 1;
  }
  const std::string dir = dir_template;
  std::vector<std::pair<std::string, std::string>> layouts;  // label, config path
  const std::string gen_label =
      "generated " + std::to_string(sus) + " SUs x " + std::to_string(per_su) + " nodes";
  bool ok = WriteFile(dir + "/layout.yaml", railguard::bench::LayoutYaml(sus, per_su, "costbench", "node", 0)) &&
            WriteFile(dir + "/railguard.yaml", "topology: layout.yaml\n");
  layouts.emplace_back(gen_label, dir + "/railguard.yaml");
  for (size_t i = 0; ok && i < topos.size(); ++i) {
    const std::string conf = dir + "/railguard-" + std::to_string(i) + ".yaml";
    ok = WriteFile(conf, "topology: " + topos[i] + "\n");
    layouts.emplace_back(topos[i], conf);
  }
  std::vector<SetupTiming> setups;
  for (size_t i = 0; ok && i < layouts.size(); ++i) {
    SetupTiming t;
    ok = TimeSetup(layouts[i].first, layouts[i].second, runs, &t);
    setups.push_back(std::move(t));
  }
  for (const auto& l : layouts) unlink(l.second.c_str());
  unlink((dir + "/layout.yaml").c_str());
  rmdir(dir.c_str());
  if (!ok) {
    std::fprintf(stderr, "bench_plugin_cost: could not set up or load the layouts\n");
    return 1;
  }

  std::printf(
      "topology/rail setup (slurmctld start and every reconfigure), in-process, "
      "median of %d runs\n",
      runs);
  std::printf("%-40s %6s %5s %12s %10s %10s\n", "layout", "nodes", "SUs", "load+valid ms",
              "plan ms", "total ms");
  for (const SetupTiming& t : setups) {
    std::printf("%-40s %6zu %5zu %12.2f %10.2f %10.2f\n", t.label.c_str(), t.nodes, t.sus,
                t.load_ms, t.plan_ms, t.total_ms);
  }
  std::printf(
      "\njob_submit/rail per-job decision (max_switch_wait + SU sizes + DecidePlacement), "
      "in-process, one call at a time\n");
  std::printf("%-40s %-22s %8s %9s %9s %9s\n", "layout", "domain of each node", "calls",
              "p50 us", "p99 us", "max us");
  for (const SetupTiming& s : setups) {
    for (const bool cached : {false, true}) {
      const DecideTiming t = TimeDecide(s.setup, cached, rounds);
      std::printf("%-40s %-22s %8zu %9.2f %9.2f %9.1f\n", s.label.c_str(),
                  cached ? "remembered by index" : "name lookup per job", t.calls, t.p50_us,
                  t.p99_us, t.max_us);
    }
  }
  std::printf(
      "\njob_submit/rail feature keeper, one look at every node (node read lock held), "
      "median of %d runs\n",
      runs);
  std::printf("%-40s %6s %14s %14s\n", "layout", "nodes", "restore ms", "ordinary ms");
  for (const SetupTiming& s : setups) {
    std::printf("%-40s %6zu %14.2f %14.2f\n", s.label.c_str(), s.nodes,
                TimeKeeperPass(*s.setup, true, runs), TimeKeeperPass(*s.setup, false, runs));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_plugin_cost: internal error: %s\n", e.what());
    return 1;
  }
}
