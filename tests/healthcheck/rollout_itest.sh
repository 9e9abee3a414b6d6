#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=90
# Rolling railguard out on a real cluster (issue 23), railcheck as Prolog, Epilog and
# HealthCheckProgram (run here by hand, as slurmd would) on the 32 nodes of etc/dev-4su.yaml:
#  1. observe mode (health.mode: observe), day one: no node has rail_healthy, and rail 3 of
#     n002 is trained down. A 2-node job on n001+n002 runs at once and is not requeued; n002
#     is not drained and keeps its features; its Extra says what railcheck would have done
#     (drain, requeue), and `railctl report --json` lists it;
#  2. one line switches to enforce (mode: enforce, scontrol reconfigure), with
#     health.drain_budget: 4. A fault on every node (a bad rule, a firmware update: all 32
#     trained down) and railcheck on all 32 at the same moment, twice: exactly 4 nodes are
#     drained, the other 28 stay in service with "budget":"over" in Extra, slurmctld's log
#     raises the alert, and `railctl report` names one shared cause (rail 3's plane);
#  3. recovery frees the budget: the 4 drained nodes are repaired and resumed after their
#     clean runs, and when the 28 still faulty run again (all at once), the first 4 in the
#     fair order (lowest names of those waiting) take the places; still 4 drained.
# About 90 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_configs "mode: observe" "drain_budget: 4"
rgh_start
rgh_node_tree n002 --fault rate-down:3

# --- 1. observe mode: nothing changes in Slurm, the report says what would have -------------
if sinfo -h -N -o '%b' | grep -q rail_healthy; then rgp_fail "a node has rail_healthy on day one"; fi
job=$(rgp_submit -N2 -w 'n[001-002]' -t 5 --wrap 'true')
grep -q 'node health observed only (health.mode: observe)' "$rgp_tmp/submit.err" ||
  rgp_fail "sbatch did not say health is only observed: $(cat "$rgp_tmp/submit.err")"
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "Restarts of job $job" "$(rgp_job "$job" Restarts)" 0
rgh_drained n002 && rgp_fail "observe mode drained n002: $(rgh_reason n002)"
# A periodic run's exit code is its verdict's (slurmd only logs it); its output says "would".
rgh_periodic n002 || true
grep -q '^slurm: would drain n002: railcheck: rail3 ' "$rgp_tmp/periodic-n002.out" ||
  rgp_fail "railcheck's output does not say it would drain n002: $(cat "$rgp_tmp/periodic-n002.out")"
extra=$(rgh_node_field n002 Extra)
[[ $extra == *'"verdict":"drain"'* && $extra == *'"would":["drain"]'* ]] ||
  rgp_fail "n002 Extra after a periodic run in observe mode: $extra"
rgh_drained n002 && rgp_fail "observe mode drained n002"
rgp_ok "observe mode: job $job ran on n001+n002 without a requeue; n002 not drained; Extra: $extra"
"$rgp_railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" --json \
  >"$rgp_tmp/report.json" 2>"$rgp_tmp/report.err" ||
  rgp_fail "railctl report failed: $(cat "$rgp_tmp/report.err")"
would=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
print([n.get("would") for n in r["nodes"] if n["name"]=="n002"])' "$rgp_tmp/report.json")
rgp_expect_eq "n002's would in the JSON report" "$would" "[['drain']]"
rgp_ok "railctl report --json: n002 would be drained"

# --- 2. enforce, with a budget of 4: a fault on every node ------------------------------------
sed -i 's/^  mode: observe$/  mode: enforce/' "$RAILGUARD_CLUSTER_DIR/railguard.yaml"
grep -q '^  mode: enforce$' "$RAILGUARD_CLUSTER_DIR/railguard.yaml" ||
  rgp_fail "the switch to enforce did not land in $RAILGUARD_CLUSTER_DIR/railguard.yaml"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
rgp_log_has "health enforce" 20
# The same fault everywhere: the shared tree (n002 has its own, already faulty).
rm -rf "${rgh_sys:?}/healthy.new"
python3 "$rgh_make_sysfs" "$rgh_sys/healthy.new" --fault rate-down:3 || rgp_fail "make_sysfs.py failed"
rm -rf "${rgh_sys:?}/healthy" && mv "$rgh_sys/healthy.new" "$rgh_sys/healthy"

mapfile -t all < <(seq -f 'n%03g' 1 32)
# round NODE...: railcheck-periodic on every NODE at the same moment.
round() {
  local node
  local -a pids=()
  for node in "$@"; do
    rgh_periodic "$node" &
    pids+=($!)
  done
  for node in "${pids[@]}"; do wait "$node" || true; done
}
drained_nodes() {
  sinfo -h -N -t drain,drained,draining -o '%N' | sort -u | tr '\n' ' ' | sed 's/ $//'
}
over_nodes() {
  local n
  for n in "${all[@]}"; do
    [[ $(rgh_node_field "$n" Extra) == *'"budget":"over"'* ]] && echo "$n"
  done | tr '\n' ' ' | sed 's/ $//'
}
round "${all[@]}"
first=$(drained_nodes)
echo "$rgp_name: after the first round, drained: $first"
round "${all[@]}"
drained=$(drained_nodes)
read -ra held <<<"$drained"
rgp_expect_eq "nodes drained after two rounds (budget 4): $drained" "${#held[@]}" 4
read -ra over <<<"$(over_nodes)"
rgp_expect_eq "nodes over the budget" "${#over[@]}" 28
for n in "${held[@]}"; do
  [[ $(rgh_reason "$n") == railcheck:* ]] || rgp_fail "$n is drained with '$(rgh_reason "$n")'"
done
for n in "${over[@]}"; do
  if rgh_drained "$n"; then rgp_fail "$n is over the budget and drained"; fi
  [[ $(rgh_features "$n") == *rail_healthy* ]] || rgp_fail "$n over the budget lost rail_healthy"
done
rgp_log_has "drain budget spent: 28 nodes have findings" 20
# One shared cause, not 32 separate faults: rail 3 bad on every SU is one rail-plane suspect.
"$rgp_railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" --json \
  >"$rgp_tmp/report.json" 2>"$rgp_tmp/report.err" ||
  rgp_fail "railctl report failed: $(cat "$rgp_tmp/report.err")"
cause=$(python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))
s=r["suspects"]
print(len(s), s[0]["kind"], s[0]["rail"], s[0]["affected_nodes"]) if s else print(0)' "$rgp_tmp/report.json")
rgp_expect_eq "the report's suspects (count, first kind, rail, nodes)" "$cause" "1 rail-plane 3 32"
rgp_ok "a fault on all 32 nodes: 4 drained ($drained; after the first round: $first), 28 in service with \"budget\":\"over\", the alert in slurmctld's log"

# --- 3. recovery frees the budget --------------------------------------------------------------
for n in "${held[@]}"; do rgh_node_tree "$n"; done
for _ in 1 2 3; do round "${held[@]}"; done
# The faulty nodes run again, all at once, as their next HealthCheckProgram round comes.
round "${all[@]}"
now=$(drained_nodes)
read -ra again <<<"$now"
rgp_expect_eq "nodes drained after the repair (budget 4): $now" "${#again[@]}" 4
for n in "${held[@]}"; do
  if rgh_drained "$n"; then rgp_fail "$n was repaired but is still drained"; fi
done
# The next 4 in the fair order: the lowest names of the nodes still faulty.
want=$(for n in "${all[@]}"; do
  case " ${held[*]} " in *" $n "*) ;; *) echo "$n" ;; esac
done | head -n 4 | tr '\n' ' ' | sed 's/ $//')
rgp_expect_eq "the nodes that took the freed places" "$now" "$want"
rgp_ok "the 4 repaired nodes were resumed and their places went to $now, the first waiting"
rgp_done
