#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=90
# job_submit/rail's feature keeper on a Slurm 25.11.7 cluster with
# NodeFeaturesPlugins=node_features/helpers (sites use it for changeable features such as NPS
# modes). There Slurm's update_node() gives a node's active list back every feature the
# helpers do not own: node_features_helpers.c, node_features_p_node_xlate, "merged =
# new_features U (orig_features - changeable_features)". So neither railcheck's
# `scontrol update ActiveFeatures=` nor an update_node() call can take rail_healthy from a node
# there; the keeper sets the lists itself (js_features.c, by group) and takes it:
#   - the premise: `scontrol update ActiveFeatures=su2` on n009 leaves rail_healthy active;
#   - n001, n017 and n025 published degraded as railcheck does (Extra and ActiveFeatures): the
#     keeper takes rail_healthy from all three within 20 s, and their active lists keep their
#     other features;
#   - with su1, su3 and su4 each holding a degraded node, of two 8-node jobs one runs in su2
#     and the other waits (topology/rail reads the active feature maps).
# Skips with one line when Slurm 25.11.7 or its plugins are not built.
set -euo pipefail
rg_release=25.11.7
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"
[ -f "$plugins/job_submit_rail.so" ] || fail "$plugins lacks job_submit_rail.so"
cat >"$tmp/extra.conf" <<CONF
JobSubmitPlugins=rail
SchedulerParameters=bf_interval=2,max_switch_wait=31536000
CONF
start_release
set_healthy

# helpers.conf(5): one changeable feature set, as a site with NPS modes writes it. slurmctld
# only reads it (the helper runs on the nodes); the plugin needs the file beside slurm.conf.
rg_cluster_kill slurmctld TERM || fail "cannot stop slurmctld"
echo "Feature=nps1,nps4 Helper=/bin/true" >"$RAILGUARD_CLUSTER_DIR/helpers.conf"
echo "NodeFeaturesPlugins=node_features/helpers" >>"$RAILGUARD_CLUSTER_DIR/slurm.conf"
rg_cluster_respawn slurmctld || fail "slurmctld did not start with node_features/helpers"
conf=$(scontrol show config)
[[ $conf =~ NodeFeaturesPlugins\ *=\ node_features/helpers ]] ||
  fail "slurmctld runs without node_features/helpers: $(grep NodeFeatures <<<"$conf")"
deadline=$((SECONDS + 20))
until [ "$(sinfo -h -N -o '%N %b' | grep -c rail_healthy)" -ge 32 ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "rail_healthy is active on $(sinfo -h -N -o '%N %b' | grep -c rail_healthy) of 32 nodes 20 s after the restart"
  sleep 0.5
done
ok "slurmctld runs node_features/helpers; rail_healthy is active on all 32 healthy nodes"

# The premise: Slurm itself keeps the feature on an update that drops it.
scontrol update NodeName=n009 ActiveFeatures=su2 || fail "scontrol update of n009's active features failed"
[ "$(sinfo -h -N -n n009 -o %b)" = su2,rail_healthy ] ||
  fail "n009's active features are '$(sinfo -h -N -n n009 -o %b)' after ActiveFeatures=su2; this test expects helpers to merge rail_healthy back"
ok "with helpers, scontrol update ActiveFeatures=su2 leaves n009 with su2,rail_healthy (Slurm merges it back)"

mark=$(wc -l <"$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log")
set_healthy n001 n017 n025
deadline=$((SECONDS + 20))
for n in n001 n017 n025; do
  until [ "$(sinfo -h -N -n "$n" -o %b)" = "$(su_of "$n")" ]; do
    [ "$SECONDS" -lt "$deadline" ] ||
      fail "$n (Extra degraded) still has active features '$(sinfo -h -N -n "$n" -o %b)' after 20 s; expected $(su_of "$n"). Keeper: $(tail -n +"$((mark + 1))" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | grep -m3 'job_submit/rail: took' || echo none)"
    sleep 0.5
  done
done
tail -n +"$((mark + 1))" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | grep -q 'job_submit/rail: took rail_healthy on' ||
  fail "no line of the keeper taking rail_healthy in slurmctld's log"
ok "the keeper took rail_healthy from n001, n017 and n025 (Extra degraded), which scontrol could not"

two_8_node_jobs
wait_state "${jobs[0]}" RUNNING
[ "$(sus_of_job "${jobs[0]}")" = su2 ] || fail "8-node job ${jobs[0]} runs in '$(sus_of_job "${jobs[0]}")', expected su2"
stays_pending "${jobs[1]}" "8 nodes, no whole healthy SU left"
scancel "${jobs[@]}"
ok "8-node job ${jobs[0]} ran in su2, ${jobs[1]} waits for a whole healthy SU"
echo "$name: PASS ($checks checks, ${SECONDS} s)"
