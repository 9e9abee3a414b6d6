// SPDX-License-Identifier: GPL-2.0-or-later
// C++ side of job_submit/rail: keeps the rail setup in memory and decides each job with
// DecidePlacement(). See js_bridge.h for the contract of each function.
#include "plugin/job_submit_rail/js_bridge.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/file_util.h"
#include "base/names.h"
#include "config/load.h"
#include "plugin/common/bridge.h"
#include "plugin/core/fabric_cache.h"
#include "plugin/core/feature_keeper.h"
#include "plugin/core/held_jobs.h"
#include "plugin/core/hetjob.h"
#include "plugin/core/placement.h"

namespace {

using railguard::RailSetup;
using railguard::SetupHolder;
using railguard::plugin::Dup;
using railguard::plugin::Log;

struct Bridge {
  std::mutex mu;
  SetupHolder state;
  std::string conf_path;
  int64_t conf_update = 0;
  // railguard.yaml and the topology it names as they were when the setup in force was loaded
  // (empty when the last load failed): a reconfigure reloads only when one of them changed.
  std::vector<std::pair<std::string, railguard::FileIdentity>> loaded;
  // Each node record's domain, remembered between submissions (under `mu`).
  railguard::plugin::FabricCache fabric;
  // Counts the loads that set `state` (rg_js_generation).
  uint64_t generation = 0;
};

// Never destroyed, as everything the feature keeper thread reaches: slurmctld exits without
// calling the plugin's fini() (only builds with MEMORY_LEAK_DEBUG do), so the keeper may be
// in a call here while exit() runs the static destructors; with a destroyed Bridge that call
// crashed slurmctld at a shutdown (seen at 4,096 nodes, bench/sched_scale.sh).
Bridge& Get() {
  static Bridge& bridge = *new Bridge;
  return bridge;
}

// Loads `conf_path` into `state` (file I/O: called without b.mu) and logs the outcome.
int LoadInto(SetupHolder& state, const std::string& conf_path, rg_log_fn log) {
  const int rc = railguard::plugin::ReloadLogged(state, conf_path, log, [](const RailSetup& s) {
    return std::string("default placement ") +
           railguard::PlacementModeName(s.config.placement.default_mode) + ", healthy feature " +
           s.config.placement.healthy_feature + ", health " +
           railguard::HealthModeName(s.config.health.mode);
  });
  if (rc == RG_LOAD_KEPT) {
    Log(log, RG_LOG_ERROR,
        conf_path +
            " or the topology it names has problems (above); the placement setup loaded "
            "before stays in force");
  } else if (rc == RG_LOAD_NONE) {
    Log(log, RG_LOG_ERROR,
        conf_path + " or the topology it names has problems (above); no placement setup");
  }
  return rc;
}

}  // namespace

extern "C" int rg_js_load(const char* conf_path, int64_t conf_update, rg_log_fn log) {
  return railguard::plugin::CatchLogged(
      log, "internal error while loading the placement setup", [] { return RG_LOAD_NONE; },
      [&] {
        Bridge& b = Get();
        SetupHolder staged;
        {
          std::lock_guard<std::mutex> lock(b.mu);
          staged = b.state;
        }
        // railguard.yaml's identity is taken before it is read, so that a write during the load
        // shows at the next check; the topology's after (its path is known only from the
        // load): a write to it while it was being read goes unnoticed until the next one.
        const railguard::FileIdentity conf_id = railguard::IdentityOf(conf_path);
        const int rc = LoadInto(staged, conf_path, log);
        std::vector<std::pair<std::string, railguard::FileIdentity>> loaded;
        if (rc == RG_LOAD_OK) {
          const std::string& topology = staged.current()->config.topology_path;
          loaded = {{conf_path, conf_id}, {topology, railguard::IdentityOf(topology)}};
        }
        std::lock_guard<std::mutex> lock(b.mu);
        b.state = staged;
        ++b.generation;
        b.conf_path = conf_path;
        b.conf_update = conf_update;
        b.loaded = std::move(loaded);
        return rc;
      });
}

extern "C" int rg_js_reload_if_stale(int64_t conf_update, rg_log_fn log) {
  return railguard::plugin::CatchAll(0, [&] {
    Bridge& b = Get();
    std::string path;
    std::vector<std::pair<std::string, railguard::FileIdentity>> loaded;
    {
      std::lock_guard<std::mutex> lock(b.mu);
      if (b.conf_path.empty() || b.conf_update == conf_update) return 0;
      path = b.conf_path;
      loaded = b.loaded;
    }
    bool same = !loaded.empty();
    for (const auto& [file, id] : loaded) same = same && railguard::IdentityOf(file) == id;
    if (!same) {
      rg_js_load(path.c_str(), conf_update, log);
      return 1;
    }
    std::lock_guard<std::mutex> lock(b.mu);
    if (b.conf_path == path) b.conf_update = conf_update;
    Log(log, RG_LOG_INFO,
        "slurm.conf was read; " + path + " and " + loaded.back().first +
            " are as loaded: the placement setup stays in force");
    return 1;
  });
}

extern "C" int rg_js_check_switch_wait(const char* sched_params, const char* topology_plugin,
                                       rg_log_fn log) {
  return railguard::plugin::CatchAll(0, [&] {
    Bridge& b = Get();
    std::shared_ptr<const RailSetup> setup;
    {
      std::lock_guard<std::mutex> lock(b.mu);
      setup = b.state.current();
    }
    if (!setup) return 0;
    bool error = false;
    const std::string message = railguard::plugin::SwitchWaitMessage(
        setup->config.placement.default_mode,
        railguard::plugin::ParseMaxSwitchWait(sched_params ? sched_params : ""),
        topology_plugin && std::strstr(topology_plugin, "topology/rail") != nullptr, &error);
    if (message.empty()) return 0;
    Log(log, error ? RG_LOG_ERROR : RG_LOG_INFO, message);
    return 1;
  });
}

extern "C" char* rg_js_healthy_feature(void) {
  char* out = nullptr;
  railguard::plugin::CatchAll(0, [&] {
    Bridge& b = Get();
    std::lock_guard<std::mutex> lock(b.mu);
    std::shared_ptr<const RailSetup> setup = b.state.current();
    // Observe mode: no feature is required, given or taken (the keeper leaves nodes alone).
    if (setup)
      out = Dup(setup->config.health.mode == railguard::HealthMode::kObserve
                    ? std::string()
                    : setup->config.placement.healthy_feature);
    return 0;
  });
  return out;
}

extern "C" int rg_js_fix_features(int index, const char* name, const char* features,
                                  const char* features_act, const char* extra, const char* feature,
                                  int restore, char** new_features, char** new_features_act) {
  *new_features = nullptr;
  *new_features_act = nullptr;
  return railguard::plugin::CatchAll(0, [&] {
    if (!feature || !feature[0] || index < 0) return 0;
    static std::mutex& cache_mu = *new std::mutex;  // never destroyed: see Get()
    static railguard::plugin::ExtraHealthCache& cache = *new railguard::plugin::ExtraHealthCache;
    bool healthy;
    {
      std::lock_guard<std::mutex> lock(cache_mu);
      healthy = cache.Healthy(static_cast<size_t>(index), extra ? extra : "");
    }
    const std::string_view avail = features ? features : "";
    const std::string_view act = features_act ? features_act : "";
    // Whether the node is in the rail topology matters only to a restore of a node whose
    // available list lacks the feature (FixFeatures).
    bool rail_node = false;
    if (restore && name && !railguard::HasFeature(avail, feature)) {
      Bridge& b = Get();
      std::lock_guard<std::mutex> lock(b.mu);
      std::shared_ptr<const RailSetup> setup = b.state.current();
      rail_node = setup && setup->topology.FindNode(name) != nullptr;
    }
    auto fix =
        railguard::plugin::FixFeatures(avail, act, healthy, feature, restore != 0, rail_node);
    if (!fix) return 0;
    char* a = Dup(fix->features);
    char* b = nullptr;
    try {
      b = Dup(fix->features_act);
    } catch (...) {
      std::free(a);
      throw;
    }
    *new_features = a;
    *new_features_act = b;
    const bool had = railguard::HasFeature(act.empty() ? avail : act, feature);
    const bool has = railguard::HasFeature(fix->features_act, feature);
    if (has == had) return int{RG_JS_FIX_OFFERS};
    return has ? int{RG_JS_FIX_GIVES} : int{RG_JS_FIX_TAKES};
  });
}

extern "C" int rg_js_decide(const rg_js_facts_t* facts, rg_log_fn log, rg_js_decision_t* out) {
  std::memset(out, 0, sizeof(*out));
  const auto undo = [out] {
    rg_js_decision_free(out);
    return -1;
  };
  return railguard::plugin::CatchLogged(
      log, "internal error while deciding placement; job unchanged", undo, [&] {
        Bridge& b = Get();
        std::lock_guard<std::mutex> lock(b.mu);
        std::shared_ptr<const RailSetup> setup = b.state.current();
        if (!setup) return -1;

        const railguard::PlacementConfig& config = setup->config.placement;
        railguard::plugin::JobFacts job;
        job.min_nodes = facts->min_nodes;
        job.max_nodes = facts->max_nodes;
        job.has_switches = facts->has_switches != 0;
        job.user_switches = facts->user_switches;
        job.nodelist_count = facts->nodelist_count;
        job.features = facts->features ? facts->features : "";
        job.num_tasks = facts->num_tasks;
        job.ntasks_per_node = facts->ntasks_per_node;
        job.cpus_per_task = facts->cpus_per_task;
        const bool counted = facts->su_counts != nullptr;
        if (counted && (facts->generation != b.generation ||
                        facts->su_count_n != setup->topology.domains.size()))
          return -2;  // counted for a topology no longer in force
        job.cpus_per_node = facts->max_cpus;
        for (uint32_t i = 0; facts->node_cpus && i < facts->node_cnt; ++i)
          job.cpus_per_node = std::max(job.cpus_per_node, facts->node_cpus[i]);
        job.tres_per_job = facts->tres_per_job ? facts->tres_per_job : "";
        job.tres_per_task = facts->tres_per_task ? facts->tres_per_task : "";
        for (uint32_t i = 0; facts->spank_env && i < facts->spank_env_cnt; ++i)
          if (facts->spank_env[i]) job.spank_env.push_back(facts->spank_env[i]);
        job.partition = facts->partition ? facts->partition : "";
        job.may_hold = facts->may_hold != 0;
        job.feature_exists = facts->feature_exists != 0;
        job.observe_health = setup->config.health.mode == railguard::HealthMode::kObserve;
        job.topology_places = facts->topology_places != 0;
        job.max_switch_wait =
            railguard::plugin::ParseMaxSwitchWait(facts->sched_params ? facts->sched_params : "");
        const std::shared_ptr<const railguard::topo::Topology> topo(setup, &setup->topology);
        railguard::plugin::Fabric fabric;
        if (counted) {
          fabric = b.fabric.Counted(topo, facts->su_counts, facts->su_count_n);
          job.healthy_nodes = config.healthy_feature.empty() ? 0 : facts->healthy_count;
        } else {
          fabric = b.fabric.Of(topo, facts->node_index, facts->node_names, facts->node_features,
                               facts->node_cnt, config.healthy_feature, &job.healthy_nodes);
        }

        const railguard::plugin::Decision d = railguard::plugin::DecidePlacement(
            job, config, fabric);
        using railguard::plugin::Decision;
        switch (d.refuse) {
          case Decision::kAccept: out->refuse = 0; break;
          case Decision::kBadOption: out->refuse = RG_JS_BAD_OPTION; break;
          case Decision::kTooManySus: out->refuse = RG_JS_TOO_MANY_SUS; break;
          case Decision::kBadConstraint: out->refuse = RG_JS_BAD_CONSTRAINT; break;
          case Decision::kTooFewHealthy: out->refuse = RG_JS_TOO_FEW_HEALTHY; break;
        }
        out->set_switches = d.set_switches;
        out->req_switch = d.req_switch;
        out->wait4switch = d.wait4switch;
        out->features = d.set_features ? Dup(d.features) : nullptr;
        out->message = d.message.empty() ? nullptr : Dup(d.message);
        if (d.hold)
          out->hold_mark = Dup(railguard::plugin::HoldMark(d.hold_nodes, config.healthy_feature));
        out->nodes = d.nodes;
        if (d.refuse == Decision::kAccept) {
          bool together = false;
          std::string err;
          if (!railguard::plugin::HetjobTogether(job.spank_env, &together, &err)) {
            rg_js_decision_free(out);
            out->refuse = RG_JS_BAD_OPTION;
            out->message = Dup("railguard: " + err);
            return 0;
          }
          out->together = together;
        }
        return 0;
      });
}

extern "C" int rg_js_node_domains(const char* const* names, uint32_t n, int32_t* domains,
                                  uint64_t* generation) {
  *generation = 0;
  return railguard::plugin::CatchAll(-1, [&] {
    Bridge& b = Get();
    std::lock_guard<std::mutex> lock(b.mu);
    std::shared_ptr<const RailSetup> setup = b.state.current();
    if (!setup) return -1;
    const railguard::topo::Topology& topo = setup->topology;
    for (uint32_t i = 0; i < n; ++i)
      domains[i] = railguard::plugin::NodeDomain(topo, names[i] ? names[i] : "");
    *generation = b.generation;
    return static_cast<int>(topo.domains.size());
  });
}

extern "C" uint64_t rg_js_generation(void) {
  try {
    Bridge& b = Get();
    std::lock_guard<std::mutex> lock(b.mu);
    return b.state.current() ? b.generation : uint64_t{0};
  } catch (...) {
    return 0;
  }
}

extern "C" int rg_js_judge_parked(const rg_js_parked_t* job, const char* feature, int restore,
                                  char** mark, char** reason, char** features) {
  *mark = nullptr;
  *reason = nullptr;
  *features = nullptr;
  return railguard::plugin::CatchAll(int{RG_JS_PARKED_LEAVE}, [&] {
    railguard::plugin::ParkedJob p;
    p.admin_comment = job->admin_comment ? job->admin_comment : "";
    p.state_desc = job->state_desc ? job->state_desc : "";
    p.features = job->features ? job->features : "";
    p.held = job->held != 0;
    p.bad_constraints = job->bad_constraints != 0;
    p.min_nodes = job->min_nodes;
    p.healthy = job->healthy;
    if (!feature || !feature[0]) return int{RG_JS_PARKED_LEAVE};
    using railguard::plugin::ParkedStep;
    const ParkedStep step = railguard::plugin::JudgeParkedJob(p, feature, restore != 0);
    switch (step.kind) {
      case ParkedStep::kLeave: return int{RG_JS_PARKED_LEAVE};
      case ParkedStep::kRelease:
        if (!step.features.empty()) *features = Dup(step.features);
        return int{RG_JS_PARKED_RELEASE};
      case ParkedStep::kNote: *reason = Dup(step.reason); return int{RG_JS_PARKED_NOTE};
      case ParkedStep::kMark: break;
    }
    char* r = Dup(step.reason);
    try {
      *mark = Dup(step.mark);
    } catch (...) {
      std::free(r);
      throw;
    }
    *reason = r;
    return int{RG_JS_PARKED_MARK};
  });
}

extern "C" char* rg_js_with_hold_mark(const char* admin_comment, const char* mark) {
  try {
    return Dup(railguard::plugin::WithHoldMark(admin_comment ? admin_comment : "", mark));
  } catch (...) {
    return nullptr;
  }
}

extern "C" char* rg_js_without_hold_mark(const char* admin_comment) {
  try {
    const std::string rest = railguard::plugin::WithoutHoldMark(admin_comment ? admin_comment : "");
    return rest.empty() ? nullptr : Dup(rest);
  } catch (...) {
    return nullptr;
  }
}

extern "C" int rg_js_has_feature(const char* features, const char* feature) {
  return railguard::plugin::CatchAll(0, [&] {
    return features && feature && railguard::HasFeature(features, feature) ? 1 : 0;
  });
}

extern "C" int rg_js_features_within(const char* act, const char* avail) {
  return railguard::plugin::CatchAll(
      0, [&] { return railguard::FeaturesWithin(act ? act : "", avail ? avail : "") ? 1 : 0; });
}

extern "C" int rg_js_together_su(const rg_js_scope_node_t* scope, uint32_t count, uint32_t total,
                                 char** su_name, uint32_t* healthy, uint32_t* idle,
                                 uint8_t* inside) {
  *su_name = nullptr;
  *healthy = 0;
  *idle = 0;
  return railguard::plugin::CatchAll(-1, [&] {
    Bridge& b = Get();
    std::lock_guard<std::mutex> lock(b.mu);
    std::shared_ptr<const RailSetup> setup = b.state.current();
    if (!setup) return -1;
    std::vector<railguard::plugin::ScopeNode> nodes(count);
    for (uint32_t i = 0; i < count; ++i) {
      nodes[i].name = scope[i].name ? scope[i].name : "";
      nodes[i].healthy = scope[i].healthy != 0;
      nodes[i].idle = scope[i].idle != 0;
    }
    const railguard::plugin::TogetherChoice c =
        railguard::plugin::ChooseTogetherSu(setup->topology, nodes, total);
    if (c.domain < 0) {
      // The most healthy nodes of one one-hop domain, for the message.
      std::vector<uint32_t> per(setup->topology.domains.size(), 0);
      for (const auto& n : nodes) {
        const railguard::topo::NodeRef* ref = setup->topology.FindNode(n.name);
        if (n.healthy && ref && ref->domain >= 0 && static_cast<size_t>(ref->domain) < per.size())
          *healthy = std::max(*healthy, ++per[static_cast<size_t>(ref->domain)]);
      }
      return 0;
    }
    *su_name = Dup(setup->topology.domains[static_cast<size_t>(c.domain)].name);
    *healthy = c.healthy;
    *idle = c.idle_healthy;
    for (uint32_t i = 0; i < count; ++i) {
      const railguard::topo::NodeRef* ref = setup->topology.FindNode(nodes[i].name);
      inside[i] = (ref && ref->domain == c.domain) ? 1 : 0;
    }
    return 1;
  });
}

extern "C" void rg_js_decision_free(rg_js_decision_t* decision) {
  std::free(decision->features);
  std::free(decision->message);
  std::free(decision->hold_mark);
  std::memset(decision, 0, sizeof(*decision));
}

extern "C" void rg_js_fini(void) {
  railguard::plugin::CatchAll(0, [] {
    Bridge& b = Get();
    std::lock_guard<std::mutex> lock(b.mu);
    b.state.Clear();
    b.conf_path.clear();
    return 0;
  });
}
