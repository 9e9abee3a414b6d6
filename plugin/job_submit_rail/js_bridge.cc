// SPDX-License-Identifier: GPL-2.0-or-later
// C++ side of job_submit/rail: keeps the rail setup in memory and decides each job with
// DecidePlacement(). See js_bridge.h for the contract of each function.
#include "plugin/job_submit_rail/js_bridge.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "config/load.h"
#include "plugin/common/bridge.h"
#include "plugin/core/placement.h"

namespace {

using railguard::RailSetup;
using railguard::RailState;
using railguard::plugin::Dup;
using railguard::plugin::Log;

struct Bridge {
  std::mutex mu;
  RailState state;
  std::string conf_path;
  int64_t conf_update = 0;
};

Bridge& Get() {
  static Bridge bridge;
  return bridge;
}

// REQUIRES: b.mu held.
int LoadLocked(Bridge& b, const std::string& conf_path, int64_t conf_update, rg_log_fn log) {
  b.conf_path = conf_path;
  b.conf_update = conf_update;
  const int rc = railguard::plugin::ReloadLogged(b.state, conf_path, log, [](const RailSetup& s) {
    return std::string("default placement ") +
           railguard::PlacementModeName(s.config.placement.default_mode) + ", healthy feature " +
           s.config.placement.healthy_feature;
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
        std::lock_guard<std::mutex> lock(b.mu);
        return LoadLocked(b, conf_path, conf_update, log);
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
        if (facts->conf_update != b.conf_update && !b.conf_path.empty())
          LoadLocked(b, b.conf_path, facts->conf_update, log);
        std::shared_ptr<const RailSetup> setup = b.state.current();
        if (!setup) return -1;

        const railguard::PlacementConfig& config = setup->config.placement;
        railguard::plugin::JobFacts job;
        job.min_nodes = facts->min_nodes;
        job.has_switches = facts->has_switches != 0;
        job.has_nodelist = facts->has_nodelist != 0;
        job.features = facts->features ? facts->features : "";
        job.num_tasks = facts->num_tasks;
        job.ntasks_per_node = facts->ntasks_per_node;
        job.tres_per_job = facts->tres_per_job ? facts->tres_per_job : "";
        job.tres_per_task = facts->tres_per_task ? facts->tres_per_task : "";
        for (uint32_t i = 0; facts->spank_env && i < facts->spank_env_cnt; ++i)
          if (facts->spank_env[i]) job.spank_env.push_back(facts->spank_env[i]);
        job.healthy_feature_defined =
            !facts->feature_defined || facts->feature_defined(config.healthy_feature.c_str());
        job.max_switch_wait =
            railguard::plugin::ParseMaxSwitchWait(facts->sched_params ? facts->sched_params : "");

        const railguard::plugin::Decision d = railguard::plugin::DecidePlacement(
            job, config, railguard::plugin::FabricOf(setup->topology));
        out->refuse = d.refuse == railguard::plugin::Decision::kBadOption    ? RG_JS_BAD_OPTION
                      : d.refuse == railguard::plugin::Decision::kTooManySus ? RG_JS_TOO_MANY_SUS
                                                                             : 0;
        out->set_switches = d.set_switches;
        out->req_switch = d.req_switch;
        out->wait4switch = d.wait4switch;
        out->features = d.set_features ? Dup(d.features) : nullptr;
        out->message = d.message.empty() ? nullptr : Dup(d.message);
        return 0;
      });
}

extern "C" void rg_js_decision_free(rg_js_decision_t* decision) {
  std::free(decision->features);
  std::free(decision->message);
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
