// SPDX-License-Identifier: GPL-2.0-or-later
// C++ side of topology/rail: loads the rail setup once per (re)configuration and plans the
// switch tree from memory. See topo_bridge.h for the contract of each function.
#include "plugin/topology_rail/topo_bridge.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "config/load.h"
#include "plugin/common/bridge.h"
#include "plugin/core/switch_plan.h"

namespace {

using railguard::RailSetup;
using railguard::SetupHolder;
using railguard::plugin::Dup;
using railguard::plugin::Log;
using railguard::plugin::PlanSwitches;
using railguard::plugin::SwitchPlan;

// Never destroyed (as js_bridge.cc's): slurmctld exits without calling fini(), and a thread
// may still be in a call here while exit() runs the static destructors.
SetupHolder& State() {
  static SetupHolder& state = *new SetupHolder;
  return state;
}

// The node table's order as the last (re)configuration left it (rg_topo_note_order).
std::vector<std::string>& LastOrder() {
  static std::vector<std::string>& order = *new std::vector<std::string>;
  return order;
}

// A calloc'd copy of `v` (one element at least), for the C side.
template <typename T, typename U>
T* DupArray(const std::vector<U>& v) {
  T* p = static_cast<T*>(std::calloc(v.empty() ? 1 : v.size(), sizeof(T)));
  if (!p) throw std::bad_alloc();
  for (size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  return p;
}

}  // namespace

extern "C" int rg_topo_load(const char* conf_path, rg_log_fn log) {
  const auto kept = [] { return State().current() ? RG_LOAD_KEPT : RG_LOAD_NONE; };
  return railguard::plugin::CatchLogged(
      log, "internal error while loading the rail topology", kept, [&] {
        return railguard::plugin::ReloadLogged(State(), conf_path, log, [](const RailSetup& s) {
          return "cluster " + s.topology.cluster + ", " + std::to_string(s.topology.sus.size()) +
                 " scalable units, " + std::to_string(s.topology.NodeCount()) + " nodes";
        });
      });
}

extern "C" int rg_topo_plan(const char* const* names, int count, rg_log_fn log, rg_plan_t** out) {
  *out = nullptr;
  rg_plan_t* plan = nullptr;
  const auto undo = [&plan] {
    rg_topo_plan_free(plan);
    return -1;
  };
  return railguard::plugin::CatchLogged(
      log, "internal error while planning the switch tree", undo, [&] {
        std::shared_ptr<const RailSetup> setup = State().current();
        if (!setup) return -1;
        std::vector<std::string> nodes(names, names + count);
        const SwitchPlan sp = PlanSwitches(setup->topology, nodes, setup->config.topology_path);
        for (const railguard::plugin::PlanNote& note : sp.notes)
          Log(log, note.warning ? RG_LOG_ERROR : RG_LOG_INFO, note.text);

        plan = static_cast<rg_plan_t*>(std::calloc(1, sizeof(rg_plan_t)));
        if (!plan) return -1;
        plan->rank = DupArray<uint32_t>(sp.rank);
        plan->levels = sp.levels;
        plan->switches = static_cast<rg_switch_t*>(
            std::calloc(sp.switches.empty() ? 1 : sp.switches.size(), sizeof(rg_switch_t)));
        if (!plan->switches) throw std::bad_alloc();
        for (size_t i = 0; i < sp.switches.size(); ++i) {
          const railguard::plugin::PlannedSwitch& ps = sp.switches[i];
          rg_switch_t& sw = plan->switches[i];
          plan->switch_cnt = static_cast<int>(i + 1);  // from here on rg_topo_plan_free frees it
          sw.name = Dup(ps.name);
          sw.level = ps.level;
          sw.link_speed = ps.link_speed;
          sw.parent = ps.parent;
          sw.nodes = DupArray<int>(ps.nodes);
          sw.node_cnt = static_cast<int>(ps.nodes.size());
          sw.children = DupArray<int>(ps.children);
          sw.child_cnt = static_cast<int>(ps.children.size());
          sw.children_expr = ps.children.empty() ? nullptr : Dup(ps.children_expr);
          sw.descendants = DupArray<int>(ps.descendants);
          sw.desc_cnt = static_cast<int>(ps.descendants.size());
          sw.dist = DupArray<uint32_t>(ps.dist);
          sw.unmapped = ps.unmapped ? 1 : 0;
        }
        *out = plan;
        return 0;
      });
}

namespace {

std::string OrderFilePath(const char* state_dir) {
  return std::string(state_dir) + "/" + railguard::plugin::kNodeOrderFile;
}

// The order file of `state_dir`, or nothing (missing, unreadable or bad: logged).
std::vector<std::string> ReadOrderFile(const char* state_dir, rg_log_fn log) {
  std::vector<std::string> order;
  if (!state_dir) return order;
  const std::string path = OrderFilePath(state_dir);
  constexpr size_t kMaxBytes = 64u << 20;  // 1M node names of 64 bytes
  std::string text, error;
  const railguard::ReadResult r = railguard::ReadRegularFile(path, kMaxBytes, &text);
  if (r.status == railguard::ReadStatus::kMissing) return order;
  if (r.status != railguard::ReadStatus::kOk) {
    error = railguard::ReadFailureMessage(path, r, kMaxBytes);
    if (error.empty()) error = path + " is not a regular file of at most 64 MiB";
  } else if (railguard::plugin::ParseNodeOrder(text, path, &order, &error)) {
    return order;
  }
  Log(log, RG_LOG_ERROR, error + "; nodes are ranked by the rail topology instead");
  order.clear();
  return order;
}

}  // namespace

extern "C" int rg_topo_rank(const char* const* names, int count, int multi_node_jobs,
                            const char* state_dir, rg_log_fn log, uint32_t* rank) {
  return railguard::plugin::CatchLogged(
      log, "internal error while ranking the nodes", [] { return -1; }, [&] {
        railguard::plugin::RankingFacts facts{LastOrder(), multi_node_jobs};
        if (facts.previous.empty()) {  // the first ranking of this slurmctld
          facts.previous = ReadOrderFile(state_dir, log);
          facts.jobs_known = false;
        }
        std::shared_ptr<const RailSetup> setup = State().current();
        if (!setup && facts.previous.empty()) return -1;
        std::vector<std::string> nodes(names, names + count);
        std::vector<uint32_t> fresh(nodes.size());
        std::string source = "the rail topology";
        if (setup) {
          fresh = PlanSwitches(setup->topology, nodes, setup->config.topology_path).rank;
          source = setup->config.topology_path;
        } else {
          for (size_t i = 0; i < fresh.size(); ++i) fresh[i] = static_cast<uint32_t>(i);
        }
        const railguard::plugin::Ranking ranking =
            railguard::plugin::RankNodes(nodes, fresh, facts, source);
        for (const railguard::plugin::PlanNote& note : ranking.notes)
          Log(log, note.warning ? RG_LOG_ERROR : RG_LOG_INFO, note.text);
        for (size_t i = 0; i < ranking.rank.size(); ++i) rank[i] = ranking.rank[i];
        return 0;
      });
}

extern "C" void rg_topo_note_order(const char* const* names, int count, const char* state_dir,
                                   rg_log_fn log) {
  railguard::plugin::CatchLogged(
      log, "internal error while recording the node order", [] { return 0; }, [&] {
        static bool written = false;
        std::vector<std::string> order(names, names + count);
        if (written && order == LastOrder()) return 0;
        LastOrder() = order;
        if (!state_dir) return 0;
        railguard::FileError err;
        if (railguard::ReplaceFile(OrderFilePath(state_dir),
                                   railguard::plugin::FormatNodeOrder(order), &err)) {
          written = true;
        } else {
          Log(log, RG_LOG_ERROR,
              err.Message() + "; a restarted slurmctld ranks nodes by the rail topology, "
                              "whatever order its recovered jobs were allocated in");
        }
        return 0;
      });
}

extern "C" void rg_topo_plan_free(rg_plan_t* plan) {
  if (!plan) return;
  for (int i = 0; plan->switches && i < plan->switch_cnt; ++i) {
    rg_switch_t& sw = plan->switches[i];
    std::free(sw.name);
    std::free(sw.nodes);
    std::free(sw.children);
    std::free(sw.children_expr);
    std::free(sw.descendants);
    std::free(sw.dist);
  }
  std::free(plan->switches);
  std::free(plan->rank);
  std::free(plan);
}

extern "C" void rg_topo_fini(void) {
  railguard::plugin::CatchAll(0, [] {
    State().Clear();
    LastOrder().clear();
    return 0;
  });
}

extern "C" char* rg_topo_healthy_feature(void) {
  try {
    std::shared_ptr<const RailSetup> setup = State().current();
    // Observe mode (health.mode): health is recorded only, no node is kept out.
    if (!setup || setup->config.placement.healthy_feature.empty() ||
        setup->config.health.mode == railguard::HealthMode::kObserve)
      return nullptr;
    return Dup(setup->config.placement.healthy_feature);
  } catch (...) {
    return nullptr;
  }
}
