// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/fabric_cache.h"

#include <cstring>


namespace railguard::plugin {

// Beyond this many records an index is looked up without being remembered (slurmctld's
// table holds MaxNodeCount records at most; this bounds the cache's memory whatever it is
// handed).
constexpr uint32_t kMaxRemembered = 1u << 20;

// HasFeature(list, feature) over a C string: glibc's strstr finds each candidate, then its
// ends are checked against the commas (4,096 nodes per submission: a third of the time of
// splitting every list at its commas).
bool ListHas(const char* list, const std::string& feature) {
  const size_t n = feature.size();
  for (const char* at = std::strstr(list, feature.c_str()); at;
       at = std::strstr(at + 1, feature.c_str())) {
    if ((at == list || at[-1] == ',') && (at[n] == '\0' || at[n] == ',')) return true;
  }
  return false;
}

int NodeDomain(const topo::Topology& topo, const char* name) {
  const topo::NodeRef* ref = topo.FindNode(name);
  return ref && ref->domain >= 0 && static_cast<size_t>(ref->domain) < topo.domains.size()
             ? ref->domain
             : -1;
}

int FabricCache::Domain(uint32_t index, const char* name) {
  if (index < names_.size() && !names_[index].empty() &&
      std::strcmp(names_[index].c_str(), name) == 0)
    return domains_[index];
  ++lookups_;
  const int domain = NodeDomain(*topo_, name);
  if (index < kMaxRemembered) {
    if (index >= names_.size()) {
      names_.resize(index + 1);
      domains_.resize(index + 1, -1);
    }
    names_[index] = name;
    domains_[index] = domain;
  }
  return domain;
}

Fabric FabricCache::Of(const std::shared_ptr<const topo::Topology>& topo, const uint32_t* index,
                       const char* const* names, const char* const* features, size_t count,
                       const std::string& feature, uint32_t* healthy) {
  Use(topo);
  Fabric f;
  f.gpus_per_node = base_.gpus_per_node;
  f.split = base_.split;
  f.su_sizes.assign(topo_->domains.size(), 0);
  *healthy = 0;
  for (size_t i = 0; names && i < count; ++i) {
    if (!names[i] || !names[i][0]) continue;
    const int domain = Domain(index ? index[i] : kMaxRemembered, names[i]);
    if (domain < 0) continue;
    f.su_sizes[static_cast<size_t>(domain)] += 1;
    const char* list = features ? features[i] : nullptr;
    if (!feature.empty() && list && ListHas(list, feature)) *healthy += 1;
  }
  return f;
}

void FabricCache::Use(const std::shared_ptr<const topo::Topology>& topo) {
  if (topo == topo_) return;
  topo_ = topo;
  base_ = FabricOf(*topo_);
  names_.clear();
  domains_.clear();
  lookups_ = 0;
}

Fabric FabricCache::Counted(const std::shared_ptr<const topo::Topology>& topo,
                            const uint32_t* counts, size_t n) {
  Use(topo);
  Fabric f;
  f.gpus_per_node = base_.gpus_per_node;
  f.split = base_.split;
  f.su_sizes.assign(topo_->domains.size(), 0);
  for (size_t d = 0; counts && d < n && d < f.su_sizes.size(); ++d) f.su_sizes[d] = counts[d];
  return f;
}

}  // namespace railguard::plugin
