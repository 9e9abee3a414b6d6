#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# What Slurm 26.05 adds to a topology plugin, used by topology/rail, on a real 26.05.3 cluster
# (32 slurmd, etc/dev-4su.yaml with su1 and su2 swapped: su1 is n[009-016], su2 n[001-008], so
# that the order of the domains differs from the order of the node names):
#   - a job that fits one domain while no domain has room waits with the reason topology/rail
#     gives (26.05 shows an ESLURM_TOPO_* text instead of plain "Resources"): "No suitable
#     topology unit found";
#   - a job of a partition with Exclusive=TOPO keeps other jobs off its whole domain
#     (supports_exclusive_topo, whole_topo): a single-node job, which best fit would put into
#     the fullest domain (the exclusive job's), goes elsewhere;
#   - task ranks follow the domains: in a 16-node job over su1 and su2, ranks 0-7 run on su1's
#     nodes n[009-016], before su2's n[001-008] (topology/rail's node ranking orders the node
#     table by domain; 26.05's topology_p_get_rank reports the same order);
#   - single-node jobs take Slurm's one-node fast path (topology_p_allow_one_node is true) and
#     still go beside running jobs: with a job in su4 (n[025-032], last in Slurm's node order),
#     a single-node job runs in su4, not on n009 (su1's first node, first in Slurm's order and
#     in an unused domain: what Slurm's fast path alone would take); with no job anywhere but
#     an Exclusive=TOPO domain, a second single-node job joins the first
#     (topology_p_eval_node refuses nodes of unused domains in Slurm's first pass).
# Skips with one line when Slurm 26.05.3 or its plugins are not built.
set -euo pipefail
rg_release=${rg_release:-26.05.3}
# shellcheck source=itest_2411_lib.sh
source "$(dirname "$0")/itest_2411_lib.sh"

# dev-4su.yaml with the node ranges of su1 and su2 swapped.
topo=$tmp/swapped-4su.yaml
sed -e 's/"n\[001-008\]"/"n[SWAP]"/' -e 's/"n\[009-016\]"/"n[001-008]"/' \
  -e 's/"n\[SWAP\]"/"n[009-016]"/' "$src/etc/dev-4su.yaml" >"$topo"
grep -A1 'name: su1' "$topo" | grep -q 'n\[009-016\]' || fail "could not write $topo"
echo "PartitionName=wholesu Nodes=ALL Exclusive=TOPO State=UP" >>"$tmp/extra.conf"
rg_cluster_start --no-trap --topo "$topo" --slurm-version "$release" --topology-plugin rail \
  --plugin-dir "$plugins" --railguard-conf "$tmp/railguard.yaml" --conf-extra "$tmp/extra.conf" ||
  fail "the $release cluster with topology/rail did not start"

# domain_of NODE: the leaf (one-hop domain) of NODE as `scontrol show topology` lists it.
scontrol show topology >"$tmp/topology.txt"
domain_of() {
  local line sw nodes
  while read -r line; do
    [[ $line =~ ^SwitchName=([^ ]+)\ Level=0\ .*Nodes=([^ ]+) ]] || continue
    sw=${BASH_REMATCH[1]}
    nodes=${BASH_REMATCH[2]}
    scontrol show hostnames "$nodes" | grep -qx "$1" && { echo "$sw"; return 0; }
  done <"$tmp/topology.txt"
  echo none
}
[ "$(domain_of n001)" = su2 ] && [ "$(domain_of n009)" = su1 ] ||
  fail "scontrol show topology does not put n001 in su2 and n009 in su1: $(cat "$tmp/topology.txt")"
for s in 1 2 3 4; do
  scontrol update NodeName="n[$(printf '%03d' $((s * 8 - 7)))-$(printf '%03d' $((s * 8)))]" \
    Extra="$extra_ok" AvailableFeatures="rail_healthy" ActiveFeatures="rail_healthy"
done
ok "Slurm $release loads topology/rail; su1 is n[009-016], su2 n[001-008]"

# --- the pending reason ------------------------------------------------------------------------
jobs=()
for _ in 1 2 3 4; do jobs+=("$(submit -N5)"); done
for j in "${jobs[@]}"; do wait_state "$j" RUNNING; done
doms=$(for j in "${jobs[@]}"; do domain_of "$(scontrol show hostnames "$(job_field "$j" NodeList)" | head -n 1)"; done | sort -u | wc -l)
[ "$doms" = 4 ] || fail "four 5-node jobs did not take one domain each"
w=$(submit -N4)
stays_pending "$w" "4 nodes, no domain has 4 free"
reason=$(squeue -h -j "$w" -o %r)
[ "$reason" = "No suitable topology unit found" ] ||
  fail "job $w waits with reason '$reason'; expected 'No suitable topology unit found'"
ok "a 4-node job waits while 12 nodes are free but no domain has 4: squeue says '$reason'"
scancel "${jobs[0]}"
wait_state "$w" RUNNING
[ "$(domain_of "$(scontrol show hostnames "$(job_field "$w" NodeList)" | head -n 1)")" = \
  "$(domain_of "$(scontrol show hostnames "$(job_field "${jobs[0]}" NodeList)" | head -n 1)")" ] ||
  fail "job $w did not run in the domain job ${jobs[0]} left"
ok "it runs in one domain once job ${jobs[0]} ends"
scancel -u "$(id -un)"
for j in "${jobs[@]}" "$w"; do
  while [ -n "$(squeue -h -j "$j" -o %T 2>/dev/null)" ]; do sleep 0.5; done
done

# --- Exclusive=TOPO and single-node jobs -------------------------------------------------------
x=$(sbatch --parsable -p wholesu -N2 -o /dev/null --wrap 'sleep 300') || fail "sbatch -p wholesu refused"
wait_state "$x" RUNNING
xdom=$(domain_of "$(scontrol show hostnames "$(job_field "$x" NodeList)" | head -n 1)")
s=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 300') || fail "sbatch -N1 refused"
wait_state "$s" RUNNING
sdom=$(domain_of "$(job_field "$s" NodeList)")
[ "$sdom" != "$xdom" ] ||
  fail "single-node job $s runs in $sdom, the domain of job $x of the Exclusive=TOPO partition"
ok "a 2-node job of an Exclusive=TOPO partition holds all of $xdom: a single-node job runs in $sdom"
s2=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 300') || fail "sbatch -N1 refused"
wait_state "$s2" RUNNING
[ "$(domain_of "$(job_field "$s2" NodeList)")" = "$sdom" ] ||
  fail "single-node job $s2 runs in $(domain_of "$(job_field "$s2" NodeList)"), not beside $s in $sdom (best fit)"
ok "a second single-node job joins the first in $sdom (one-node fast path, unused domains refused first)"
scancel -u "$(id -un)"
for j in "$x" "$s" "$s2"; do
  while [ -n "$(squeue -h -j "$j" -o %T 2>/dev/null)" ]; do sleep 0.5; done
done

# --- single-node jobs beside running jobs, through the fast path -------------------------------
b=$(sbatch --parsable -N2 -w 'n[031-032]' -o /dev/null --wrap 'sleep 300') ||
  fail "sbatch of the 2-node job in su4 refused"
wait_state "$b" RUNNING
o=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 300') || fail "sbatch -N1 refused"
wait_state "$o" RUNNING
[ "$(domain_of "$(job_field "$o" NodeList)")" = su4 ] ||
  fail "single-node job $o runs on $(job_field "$o" NodeList) ($(domain_of "$(job_field "$o" NodeList)")), not in su4 beside job $b; every other domain is unused"
ok "a single-node job runs on $(job_field "$o" NodeList) in su4 beside job $b, not in an unused domain"
scancel -u "$(id -un)"
for j in "$b" "$o"; do
  while [ -n "$(squeue -h -j "$j" -o %T 2>/dev/null)" ]; do sleep 0.5; done
done

# --- task ranks in domain order ----------------------------------------------------------------
r=$(sbatch --parsable -N16 -n16 -w 'n[001-016]' --exclusive -o "$tmp/ranks.out" \
  --wrap 'srun -l printenv SLURMD_NODENAME') || fail "sbatch of the 16-node rank job refused"
deadline=$((SECONDS + 60))
while [ -n "$(squeue -h -j "$r" -o %T 2>/dev/null)" ] && [ "$SECONDS" -lt "$deadline" ]; do
  sleep 0.5
done
[ "$(grep -c . "$tmp/ranks.out" 2>/dev/null || true)" = 16 ] ||
  fail "the rank job printed $(grep -c . "$tmp/ranks.out" 2>/dev/null || echo no) lines: $(cat "$tmp/ranks.out" 2>/dev/null)"
first=$(sort -n "$tmp/ranks.out" | head -n 8 | awk '{print $2}' | sort | tr '\n' ' ')
[ "$first" = "n009 n010 n011 n012 n013 n014 n015 n016 " ] ||
  fail "ranks 0-7 ran on $first; expected su1's n009-n016 ($(sort -n "$tmp/ranks.out" | tr '\n' ' '))"
ok "ranks 0-7 of a 16-node step run on su1 (n009-n016), ranks 8-15 on su2 (n001-n008)"

echo "$name: PASS ($checks checks, ${SECONDS} s)"
