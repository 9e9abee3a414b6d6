// SPDX-License-Identifier: GPL-2.0-or-later
/* See node_run.h. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include "src/common/slurm_xlator.h"

#include "src/common/bitstring.h"
#include "plugin/common/node_run.h"
// clang-format on

rg_node_run_t rg_node_run_of(bitstr_t *nodes) {
  rg_node_run_t run = {-1, -1};
  int first, last;

  if (!nodes || (first = bit_ffs(nodes)) < 0) return run;
  last = bit_fls(nodes);
  if (bit_set_count(nodes) == last - first + 1) {
    run.first = first;
    run.end = last + 1;
  }
  return run;
}

int rg_node_run_count(rg_node_run_t run, bitstr_t *nodes, bitstr_t *map) {
  if (!map || !nodes) return 0;
  if ((run.first >= 0) && (run.end <= bit_size(map)))
    return bit_set_count_range(map, run.first, run.end);
  return bit_overlap(nodes, map);
}
