// SPDX-License-Identifier: GPL-2.0-or-later
// The Fabric of a job's nodes (placement.h FabricOfNodes) without a name lookup per node per
// submission: which one-hop domain each of slurmctld's node records is in, kept between calls.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin/core/placement.h"
#include "topo/model.h"

namespace railguard::plugin {

// Remembers, per slurmctld node record (node_record_t.index), the node's name and its
// one-hop domain in one topology. A record keeps its index until a reconfigure or a dynamic
// node rebuilds slurmctld's table: a remembered entry is used while its name still matches
// (one strcmp instead of a hash lookup); a new index or another name is looked up again.
// Not thread-safe: the caller serializes (job_submit/rail's bridge lock).
class FabricCache {
 public:
  // FabricOfNodes(*topo, names, features, count, feature, healthy), the same result, with
  // `index[i]` the slurmctld index of node `names[i]` (null `index`: every node looked up).
  // A `topo` other than the last call's starts the cache afresh; the cache holds `topo` so
  // that it stays the same object while it is remembered.
  Fabric Of(const std::shared_ptr<const topo::Topology>& topo, const uint32_t* index,
            const char* const* names, const char* const* features, size_t count,
            const std::string& feature, uint32_t* healthy);

  // The Fabric of nodes already counted: `counts[d]` of the job's nodes in domain d of
  // `topo` (`n` its domain count), as Of() would give for those nodes; the same rule for a
  // new `topo`. REQUIRES: n == topo->domains.size().
  Fabric Counted(const std::shared_ptr<const topo::Topology>& topo, const uint32_t* counts,
                 size_t n);

  // Node records looked up by name so far (since the last topology change); for tests.
  size_t lookups() const { return lookups_; }

 private:
  // The domain of the node `name` at slurmctld index `index` (-1: not on the rails).
  int Domain(uint32_t index, const char* name);
  // Sets topo_ and base_ when `topo` is another topology than the last call's.
  void Use(const std::shared_ptr<const topo::Topology>& topo);

  std::shared_ptr<const topo::Topology> topo_;
  Fabric base_;                     // FabricOf(*topo_)
  std::vector<std::string> names_;  // by slurmctld index; "" = not seen
  std::vector<int> domains_;        // by slurmctld index
  size_t lookups_ = 0;
};

// The one-hop domain of the node `name` in `topo` (its index in topo.domains), or -1 when the
// node is not on the rails.
int NodeDomain(const topo::Topology& topo, const char* name);

}  // namespace railguard::plugin
