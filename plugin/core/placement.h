// SPDX-License-Identifier: GPL-2.0-or-later
// Job-aware placement on a rail-optimized fabric: from what a job asks for, the railguard
// config and the sizes of the scalable units (SUs), decide the job's switch bound
// (req_switch, wait4switch), its required node features, and the one line that tells the
// user. Pure functions: no Slurm, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "topo/model.h"

namespace railguard::plugin {

// What a submitted (or updated) job asks for, as job_submit sees it, and what its partition
// looks like.
struct JobFacts {
  uint32_t min_nodes = 0;               // --nodes (minimum); 0 = not given
  uint32_t max_nodes = 0;               // --nodes min-MAX; 0 = not given
  bool has_switches = false;            // --switches given: req_switch is the user's
  uint32_t user_switches = 0;           // its count
  uint32_t nodelist_count = 0;          // nodes named by --nodelist; 0 = none
  std::string features;                 // --constraint as submitted; "" = none
  uint32_t num_tasks = 0;               // --ntasks; 0 = not given
  uint32_t ntasks_per_node = 0;         // --ntasks-per-node; 0 = not given
  uint32_t cpus_per_task = 0;           // --cpus-per-task; 0 = not given (1)
  uint32_t cpus_per_node = 0;           // most CPUs of a node of the job's partition; 0 = unknown
  std::string tres_per_job;             // e.g. "gres:gpu:16" from --gpus
  std::string tres_per_task;            // e.g. "gres:gpu:1" from --gpus-per-task
  std::vector<std::string> spank_env;   // "NAME=value" entries of the job's SPANK environment
  std::string partition;                // the job's partition(s), for messages; "" = default
  uint32_t healthy_nodes = UINT32_MAX;  // nodes of the partition carrying the healthy feature
  uint32_t max_switch_wait = 300;       // Slurm's cap on wait4switch (SchedulerParameters)
  bool may_hold = true;  // a submission (held when too few nodes are healthy); false: an update
  // Whether some node of the cluster has the healthy feature now. Slurm refuses a
  // --constraint that names a feature no node has ("Invalid feature specification"): so it
  // is on a new cluster before railcheck has published any node, and after every node lost
  // the feature.
  bool feature_exists = true;
  // health.mode is observe: railguard requires no healthy feature (railcheck only records).
  bool observe_health = false;
  // The topology plugin places the job by its own evaluation (topology/rail on Slurm 24.11
  // and later, and the job not --contiguous): it leaves nodes without the healthy feature out
  // of every multi-node job and keeps a job that fits one one-hop domain of its partition in
  // one, however long it waits (plugin/topology_rail/topo_eval.c). Slurm's own handling of a
  // --constraint and a --switches costs every waiting job memory and every backfill test time
  // (bench/README, "2,000 waiting jobs"), so neither is set where the plugin does the same.
  bool topology_places = false;
};

// What placement needs to know about the fabric, as the job's partition sees it.
// Placement keeps a job in one-hop domains (topo::Domain: nodes that share every rail leaf),
// which are the SUs wherever an SU has one leaf per rail.
struct Fabric {
  std::vector<uint32_t> su_sizes;  // nodes per one-hop domain (of the job's partition), domain
                                   // by domain; 0s are ignored
  uint32_t gpus_per_node = 0;      // shared by every SU's node type; 0 = they differ, or none
  bool split = false;              // some SU has several domains: messages say "one-hop domain"
};

// The one-hop domain sizes and GPUs per node of `topo`.
Fabric FabricOf(const topo::Topology& topo);

// The Fabric as a job's nodes see it: per one-hop domain of `topo`, how many of the `count` nodes
// `names[i]` it holds (names outside the topology, and null entries, are skipped); GPUs per
// node as FabricOf. `*healthy` = how many of those nodes list `feature` in `features[i]`
// (a comma list; `features` may be null; 0 when `feature` is "").
Fabric FabricOfNodes(const topo::Topology& topo, const char* const* names,
                     const char* const* features, size_t count, const std::string& feature,
                     uint32_t* healthy);

// A strict job's wait that Slurm caps at max_switch_wait: as long as Slurm allows.
inline constexpr uint32_t kStrictWait = 0x7fffffff;
// The smallest max_switch_wait with which strict confinement is taken not to expire (a year).
inline constexpr uint32_t kNeverExpiresWait = 31536000;

// What to do with the job.
struct Decision {
  enum Refusal {
    kAccept = 0,  // the job goes on (possibly changed as below)
    kBadOption,   // a --rail-* value is wrong or above the site's limit; `message` says so
    kTooManySus,  // strict, and the job needs more SUs than its limit; `message` says so
    kBadConstraint,  // its --constraint cannot keep degraded nodes out; `message` says how
    kTooFewHealthy,  // an update that needs more healthy nodes than its partition has
  } refuse = kAccept;
  bool hold = false;        // hold the job (admin hold) until hold_nodes nodes are healthy
  uint32_t hold_nodes = 0;  // healthy nodes of its partition it waits for
  uint32_t nodes = 0;       // the job's node count (JobNodeCount); 0 = unknown
  bool set_switches = false;  // set the job's req_switch and wait4switch to these
  uint32_t req_switch = 0;    // most leaf switches (= one-hop domains) Slurm should use
  uint32_t wait4switch = 0;   // seconds Slurm may hold the job for them
  bool set_features = false;  // replace the job's --constraint with `features`
  std::string features;
  // A held job whose healthy feature exists on no node yet (JobFacts::feature_exists): its
  // --constraint is left as it is, so that Slurm accepts the job, and the feature keeper adds
  // the feature when it releases the job (JudgeParkedJob).
  bool defer_feature = false;
  std::string message;  // one line for the user, "railguard: ..."; "" = nothing to say
};

// The decision for one job. Rules, in order:
//  - a bad SPANK_RAIL_PLACEMENT / SPANK_RAIL_MAX_SUS value, or a --rail-max-sus above the
//    site's max_sus_default, refuses the job;
//  - a job of one node, of a node count that cannot be derived, or in a partition without
//    rail-topology nodes, is left to packing;
//  - every other job needs the healthy feature (unless healthy_feature is "" or the job's
//    facts say health is only observed), in every
//    mode: the user's --constraint is combined with it, or the job is refused when that
//    cannot keep degraded nodes out (counts, a top-level '|' next to brackets); when its
//    partition has fewer nodes carrying the feature than it needs, a submission is held
//    (`hold`, released by the feature keeper when enough are healthy; the message says so
//    first) and an update refused; a held job whose feature no node has yet keeps its own
//    --constraint until the keeper releases it (`defer_feature`);
//  - mode off (from the job or default_mode): no switch bound;
//  - a --nodelist naming all the job's nodes: no switch bound;
//  - strict: req_switch = the fewest SUs that hold the job, with a wait of kStrictWait
//    (capped by Slurm at max_switch_wait: with kNeverExpiresWait or more it never lapses);
//    a user's --switches is replaced; a job that needs more SUs than its limit is refused;
//  - prefer: the same count with wait = WaitBound(), counted by Slurm from its first
//    evaluation of the job; a user's --switches is kept; over the limit it may spread;
//  - `topology_places`: the healthy feature is required as above (the same refusals and
//    holds) but not added to the job's --constraint, and a job that fits one domain gets no
//    switch bound, strict or prefer (the topology plugin keeps it in one domain whatever it
//    waited); the message says topology/rail does it. A job that needs more domains gets its
//    bound as above (tree's evaluation keeps it to that many leaves).
// The node count is the larger of min_nodes and max_nodes; without them, ceil(GPUs /
// gpus_per_node) from --gpus or --gpus-per-task x --ntasks, ceil(ntasks / ntasks_per_node),
// or ceil(ntasks x cpus_per_task / cpus_per_node).
Decision DecidePlacement(const JobFacts& job, const PlacementConfig& config, const Fabric& fabric);

// The node count DecidePlacement uses, or 0 when it cannot be told.
uint32_t JobNodeCount(const JobFacts& job, const Fabric& fabric);

// Seconds Slurm may hold a prefer job of `nodes` nodes for its SUs: base + per_node * nodes,
// at most wait_max; kStrictWait for strict; 0 for off.
uint32_t WaitBound(const PlacementConfig& config, PlacementMode mode, uint32_t nodes);

// The fewest domains (SUs), largest first, whose nodes add up to at least `nodes`; 0 if all
// of them together are too few.
uint32_t SusNeeded(const std::vector<uint32_t>& su_sizes, uint32_t nodes);

// The max_switch_wait of a SchedulerParameters string, read the way slurmctld reads it
// (first "max_switch_wait=", case-insensitive, leading integer); 300 when absent or negative.
uint32_t ParseMaxSwitchWait(std::string_view sched_params);

// What slurmctld's log should say about SchedulerParameters' max_switch_wait (`wait`
// seconds) when the default placement mode is `mode`: nothing (empty) unless strict with a
// wait below kNeverExpiresWait. Then, with Slurm's own topology plugins (tree: the 22.05
// path), `*error` is set: strict confinement lapses after the wait. With topology/rail
// (`topology_rail`), which confines a job that fits one domain of its partition by its own
// evaluation whatever the job waited, only the fewest-domains rule for larger jobs lapses:
// a warning (`*error` false).
std::string SwitchWaitMessage(PlacementMode mode, uint32_t wait, bool topology_rail, bool* error);

// Total GPUs in a tres_per_* string ("gres:gpu:16", "gres:gpu:h100:2,gres:gpu:a100:2");
// 0 when there is no GPU entry or an entry's count cannot be read.
uint64_t GpuCount(std::string_view tres);

// The result of adding a required feature to a --constraint expression.
struct Constraint {
  enum Kind {
    kAdded,         // `features` requires the feature too
    kAlreadyThere,  // the user's expression already requires it; `features` == user's
    kTooComplex,    // cannot keep nodes without the feature out; `why` says how to write it
  } kind = kAdded;
  std::string features;  // the expression to submit
  std::string why;       // kTooComplex: the reason and the form that works
};

// Adds `feature` to the user's --constraint `user` so that both hold. Slurm 22.05 evaluates
// constraints left to right without precedence, allows one level of parentheses (no counts
// inside) and one bracket group; the result keeps within that: "f" when empty, "a&b&f" for
// AND-only, "(a|b)&f" for a plain OR, "user&f" with parentheses, "f&[a|b]" with
// brackets (the form of Slurm's own examples), and kTooComplex for brackets next to a
// top-level '|', and for counts ("ib*2"): Slurm 22.05 does not filter a counted request by
// its other AND terms, so the feature would not keep any node out.
Constraint RequireFeature(std::string_view user, std::string_view feature);

}  // namespace railguard::plugin
