// SPDX-License-Identifier: GPL-2.0-or-later
/* The domain index of topology/rail's switch table (see topo_domains.h). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdbool.h>

#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "src/common/xmalloc.h"
#include "src/interfaces/topology.h"
#include "plugin/topology_rail/topo_domains.h"
#include "plugin/topology_rail/topo_slurm.h"
#include "topo_version.h" /* the switch table: slurm_2411/, slurm_2511/ */
// clang-format on

static struct {
  bool valid;
  unsigned long generation; /* rg_topo_table_generation it was built for */
  const void *table;        /* and the table (25.11+: a context's) and its size */
  int cnt;
  rg_domain_t *domains;
  int n;
  bitstr_t *all; /* every domain's nodes */
  uint32_t *leaf_of;
  int32_t *domain_of; /* per node index, its domain's index in `domains`; -1: none */
  int nodes;          /* entries of leaf_of and domain_of */
} idx;

void rg_domains_free(void) {
  xfree(idx.domains);
  xfree(idx.leaf_of);
  xfree(idx.domain_of);
  FREE_NULL_BITMAP(idx.all);
  idx.n = 0;
  idx.nodes = 0;
  idx.valid = false;
}

static void _build(void) {
  int leaf = 0;

  rg_domains_free();
  idx.valid = true;
  idx.generation = rg_topo_table_generation;
  idx.table = switch_record_table;
  idx.cnt = switch_record_cnt;
  if (!switch_record_table || switch_record_cnt <= 0) return;
  idx.domains = xcalloc(switch_record_cnt, sizeof(rg_domain_t));
  for (int i = 0; i < switch_record_cnt; i++) {
    bitstr_t *nodes = switch_record_table[i].node_bitmap;

    if (switch_record_table[i].level != 0) continue;
    leaf++;
    if (!nodes) continue;
    if (!idx.leaf_of) {
      idx.nodes = bit_size(nodes);
      idx.leaf_of = xcalloc(idx.nodes, sizeof(uint32_t));
      idx.domain_of = xcalloc(idx.nodes, sizeof(int32_t));
      for (int k = 0; k < idx.nodes; k++) idx.domain_of[k] = -1;
    }
    for (int k = 0; next_node_bitmap(nodes, &k); k++)
      if (k < idx.nodes && !idx.leaf_of[k]) {
        idx.leaf_of[k] = (uint32_t)leaf;
        if (i != rg_unmapped_leaf) idx.domain_of[k] = idx.n;
      }
    if (i == rg_unmapped_leaf) continue;
    {
      rg_domain_t *d = &idx.domains[idx.n++];

      d->sw = i;
      d->size = bit_set_count(nodes);
      d->run = rg_node_run_of(nodes);
      if (!idx.all) idx.all = bit_alloc(bit_size(nodes));
      if (bit_size(idx.all) == bit_size(nodes)) bit_or(idx.all, nodes);
    }
  }
}

const rg_domain_t *rg_domains(int *n) {
  if (!idx.valid || idx.generation != rg_topo_table_generation ||
      idx.table != (const void *)switch_record_table || idx.cnt != switch_record_cnt)
    _build();
  *n = idx.n;
  return idx.n ? idx.domains : NULL;
}

int rg_domain_count(const rg_domain_t *d, bitstr_t *map) {
  return rg_node_run_count(d->run, switch_record_table[d->sw].node_bitmap, map);
}

bool rg_domains_overlap_any(bitstr_t *map) {
  int n;

  rg_domains(&n);
  if (!n || !map || !idx.all) return false;
  if (bit_size(idx.all) != bit_size(map)) {
    for (int k = 0; k < n; k++)
      if (bit_overlap_any(switch_record_table[idx.domains[k].sw].node_bitmap, map)) return true;
    return false;
  }
  return bit_overlap_any(idx.all, map);
}

const uint32_t *rg_leaf_number_of_nodes(int *n) {
  int domains;

  rg_domains(&domains);
  *n = idx.nodes;
  return idx.leaf_of;
}

const rg_domain_t *rg_domain_of_node(int node_idx) {
  int n;

  rg_domains(&n);
  if (!n || (node_idx < 0) || (node_idx >= idx.nodes) || (idx.domain_of[node_idx] < 0)) return NULL;
  return &idx.domains[idx.domain_of[node_idx]];
}
