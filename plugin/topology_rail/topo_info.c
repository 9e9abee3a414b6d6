// SPDX-License-Identifier: GPL-2.0-or-later
/* topology/rail's `scontrol show topology` on Slurm 24.11 and 25.11 (see topo_eval.h): the switch
 * table (one leaf switch per one-hop domain) copied, packed, unpacked and printed in the
 * records and wire layout topology/tree uses (slurm.h's topo_info_t). */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include <stdlib.h>

#include "src/common/slurm_xlator.h"

#include "slurm/slurm_errno.h"
#include "src/common/hostlist.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/interfaces/topology.h"
#include "plugin/topology_rail/topo_eval.h"
#include "topo_version.h" /* the switch table: slurm_2411/, slurm_2511/ */
// clang-format on

/* What TOPO_DATA_TOPOLOGY_PTR hands out and topology_p_topology_unpack makes. */
typedef struct {
  uint32_t record_count; /* switches */
  topo_info_t *records;  /* one per switch, leaves first, the top last */
} rg_topo_info_t;

extern int rail_topo_info_free(void *ptr) {
  rg_topo_info_t *info = ptr;

  if (!info) return SLURM_SUCCESS;
  for (uint32_t i = 0; info->records && (i < info->record_count); i++) {
    xfree(info->records[i].name);
    xfree(info->records[i].nodes);
    xfree(info->records[i].switches);
  }
  xfree(info->records);
  xfree(info);
  return SLURM_SUCCESS;
}

extern int rail_topo_get(topology_data_t type, void *data, uint32_t id) {
  switch (type) {
    case TOPO_DATA_TOPOLOGY_PTR: {
      dynamic_plugin_data_t **out = data;
      rg_topo_info_t *info = xmalloc(sizeof(*info));

      info->record_count = switch_record_cnt;
      info->records = xcalloc(switch_record_cnt + 1, sizeof(topo_info_t));
      for (int i = 0; i < switch_record_cnt; i++) {
        info->records[i].level = switch_record_table[i].level;
        info->records[i].link_speed = switch_record_table[i].link_speed;
        info->records[i].name = xstrdup(switch_record_table[i].name);
        info->records[i].nodes = xstrdup(switch_record_table[i].nodes);
        info->records[i].switches = xstrdup(switch_record_table[i].switches);
      }
      *out = xmalloc(sizeof(dynamic_plugin_data_t));
      (*out)->data = info;
      (*out)->plugin_id = id;
      return SLURM_SUCCESS;
    }
    case TOPO_DATA_REC_CNT:
      *(int *)data = switch_record_cnt;
      return SLURM_SUCCESS;
    case TOPO_DATA_EXCLUSIVE_TOPO:
      *(int *)data = 0;
      return SLURM_SUCCESS;
    default:
      error("railguard: topology/rail: unsupported topology data %d", type);
      return SLURM_ERROR;
  }
}

extern int rail_topo_info_pack(void *ptr, buf_t *buffer, uint16_t protocol_version) {
  rg_topo_info_t *info = ptr;

  (void)protocol_version; /* one layout since 23.x */
  pack32(info->record_count, buffer);
  for (uint32_t i = 0; i < info->record_count; i++) {
    pack16(info->records[i].level, buffer);
    pack32(info->records[i].link_speed, buffer);
    packstr(info->records[i].name, buffer);
    packstr(info->records[i].nodes, buffer);
    packstr(info->records[i].switches, buffer);
  }
  return SLURM_SUCCESS;
}

extern int rail_topo_info_unpack(void **out, buf_t *buffer, uint16_t protocol_version) {
  rg_topo_info_t *info = xmalloc(sizeof(*info));

  (void)protocol_version;
  *out = info;
  safe_unpack32(&info->record_count, buffer);
  safe_xcalloc(info->records, info->record_count + 1, sizeof(topo_info_t));
  for (uint32_t i = 0; i < info->record_count; i++) {
    safe_unpack16(&info->records[i].level, buffer);
    safe_unpack32(&info->records[i].link_speed, buffer);
    safe_unpackstr(&info->records[i].name, buffer);
    safe_unpackstr(&info->records[i].nodes, buffer);
    safe_unpackstr(&info->records[i].switches, buffer);
  }
  return SLURM_SUCCESS;

unpack_error:
  rail_topo_info_free(info);
  *out = NULL;
  return SLURM_ERROR;
}

/* One "SwitchName=... Level=... LinkSpeed=... [Nodes=...] [Switches=...]" line. */
static void _print_record(const topo_info_t *r, char **out) {
  xstrfmtcat(*out, "SwitchName=%s Level=%u LinkSpeed=%u", r->name, r->level, r->link_speed);
  if (r->nodes) xstrfmtcat(*out, " Nodes=%s", r->nodes);
  if (r->switches) xstrfmtcat(*out, " Switches=%s", r->switches);
  xstrcat(*out, "\n");
}

/* A switch of that name, else every leaf holding all of `name` (a node list). */
extern int rail_topo_info_print(void *ptr, char *name, char **out) {
  rg_topo_info_t *info = ptr;
  int shown = 0;

  *out = NULL;
  for (uint32_t i = 0; i < info->record_count; i++) {
    if (name && name[0] && xstrcmp(info->records[i].name, name)) continue;
    _print_record(&info->records[i], out);
    shown++;
  }
  if (shown || !name || !name[0]) return SLURM_SUCCESS;
  for (uint32_t i = 0; i < info->record_count; i++) {
    hostset_t *hs;

    if (!info->records[i].nodes || !info->records[i].nodes[0]) continue;
    if (!(hs = hostset_create(info->records[i].nodes))) continue;
    if (hostset_within(hs, name)) {
      _print_record(&info->records[i], out);
      shown++;
    }
    hostset_destroy(hs);
  }
  if (!shown) error("railguard: topology/rail: no switch or node named %s", name);
  return SLURM_SUCCESS;
}
