// SPDX-License-Identifier: GPL-2.0-or-later
// What job_submit/rail's feature keeper (in slurmctld) changes on one node so that its
// healthy feature matches the health railcheck published in its Extra field, which Slurm
// keeps across restarts and reconfigures while it resets node features to slurm.conf's.
// Pure: the Slurm side applies the answer with Slurm's own update_node().
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railguard::plugin {

// Whether `extra` (a node's Extra text) says railcheck gives the node the healthy feature:
// its "healthy" when the report (wire/extra_json.h) has one (railcheck withholds the
// feature for some clean runs after a fault), else a verdict of "ok" or "warn" with every
// rail ok. False for no report, any other verdict, a degraded or down rail, or unreadable
// text. True for a report written in observe mode ("would"): observe mode keeps no node out,
// and after a switch to enforce the node's next railcheck run decides.
bool ExtraSaysHealthy(const std::string& extra);

// ExtraSaysHealthy with memory, per slot (the keeper's: a node's index in slurmctld's node
// table): the keeper looks at every node about once a second while nodes change, and a node's
// Extra changes only when railcheck publishes again (each report has its own time stamp, so
// every node's text differs from every other's): a slot whose text is the one it had at the
// last look gets the answer of then, without parsing or allocating. The answer depends on the
// text alone, so a slot that another node takes after a reconfigure is answered right: its
// text differs, or means the same. Slots from kMaxSlots on are parsed every time. Not
// thread-safe.
// A slot keeps the text's length and a 64-bit digest of it, not a copy: slurmctld holds every
// node's Extra already (about 230 bytes per node from railcheck; the copies took 1.1 MB at
// 4,096 nodes, bench/sched_scale.sh). Two texts of one length with the same digest (odds about
// 2^-64 per new report) would get the older answer until the node's next report, whose time
// stamp differs.
class ExtraHealthCache {
 public:
  static constexpr size_t kMaxSlots = 1 << 20;
  bool Healthy(size_t slot, std::string_view extra);
  // How many texts it parsed so far (for tests and the benchmark).
  size_t parses() const { return parses_; }
  // The bytes it holds (its slots), for tests and the benchmark.
  size_t held_bytes() const { return by_slot_.capacity() * sizeof(Seen); }

 private:
  struct Seen {
    uint64_t digest = 0;
    uint32_t size = 0;
    bool healthy = false;
    bool known = false;
  };
  std::vector<Seen> by_slot_;
  size_t parses_ = 0;
};

// The node's features after a fix.
struct FeatureFix {
  std::string features;      // AvailableFeatures
  std::string features_act;  // ActiveFeatures
};

// The fix for a node with `features` / `features_act` (comma lists; an empty active list
// means "as available") whose Extra says `healthy` (ExtraSaysHealthy), or nullopt when
// nothing is to change. The feature is *active* on healthy nodes only (Slurm matches
// --constraint against the active list) and *available* on every rail node:
//  - a node that is not healthy loses `feature` from its active list (always: slurm.conf or
//    a hand edit may have given it back); the available list keeps it;
//  - with `restore` (the first pass after slurmctld started or reread slurm.conf, which
//    dropped run-time features), a healthy node gets `feature` on both lists, and a node of
//    the rail topology (`rail_node`) on its available list.
// Outside `restore` the feature is never made active: railcheck decides when a node earns it.
// Why available everywhere: Slurm keeps one config record per distinct available list and
// splits one off for every node whose list changes alone (update_node_avail_features); every
// submission and backfill test walks them all. Given to all rail nodes at once, nodes that
// shared a record keep sharing it, and railcheck's per-node changes touch the active list only
// (bench/sched_scale.sh). REQUIRES: `feature` non-empty.
// Allocates only for a fix. `rail_node` matters only with `restore` to a node whose available
// list lacks `feature`.
std::optional<FeatureFix> FixFeatures(std::string_view features, std::string_view features_act,
                                      bool healthy, std::string_view feature, bool restore,
                                      bool rail_node);

}  // namespace railguard::plugin
