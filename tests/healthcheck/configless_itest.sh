#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=60
# ctest: RESOURCE_LOCK=railcheck_lane1
# railcheck and railctl on configless Slurm nodes. slurmctld runs with
# SlurmctldParameters=enable_configless and every slurmd starts with --conf-server, no -f and
# no SLURM_CONF, in a file system of its own without /etc/slurm (the harness's --configless):
# it fetches slurm.conf into <spool>/conf-cache and links /run/slurm/conf to it. Slurm ships no
# railguard.yaml, so the nodes carry their own, /etc/railguard/railguard.yaml with the health
# section and `topology: rails.yaml` beside it (--node-etc); slurmctld's railguard.yaml, beside
# its slurm.conf, has no health section. Then:
#   - railcheck as Prolog and Epilog (SLURM_CONF = the cached slurm.conf, no railguard.yaml
#     beside it) passes a healthy node's job, and drains n002, whose rail 3 trained down, with
#     railcheck's reason;
#   - railcheck as HealthCheckProgram (no SLURM_CONF, no arguments; added by `scontrol
#     reconfigure`, which pushes the new slurm.conf to the nodes) resumes the repaired n002,
#     gives nodes that never ran a job the healthy feature and drains n003, talking to
#     slurmctld through /run/slurm/conf;
#   - `railctl report` on a node, with no arguments and no SLURM_CONF, reads the node's
#     railguard.yaml, its topology and its event log, and Slurm through /run/slurm/conf;
#   - with no railguard.yaml on the node, railcheck names each place it looked.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_configs
node_etc=$rgp_tmp/node-etc
mkdir -p "$node_etc/railguard"
sed 's|^topology: topology.yaml$|topology: rails.yaml|' "$rgp_tmp/railguard.yaml" \
  >"$node_etc/railguard/railguard.yaml"
grep -qx 'topology: rails.yaml' "$node_etc/railguard/railguard.yaml" ||
  rgp_fail "the node's railguard.yaml names no rails.yaml: $(cat "$node_etc/railguard/railguard.yaml")"
cp "$rgp_src/etc/dev-4su.yaml" "$node_etc/railguard/rails.yaml"
echo "topology: topology.yaml" >"$rgp_tmp/railguard.yaml"  # slurmctld's: no health section
rgh_start --configless --node-etc "$node_etc"

# --- what a configless node has ------------------------------------------------------------
cache=$RAILGUARD_CLUSTER_DIR/nodes/n001/spool/conf-cache
[ -f "$cache/slurm.conf" ] || rgp_fail "n001's slurmd fetched no slurm.conf into $cache"
[ ! -e "$cache/railguard.yaml" ] || rgp_fail "Slurm shipped a railguard.yaml into $cache"
rg_cluster_on n001 test ! -e /etc/slurm || rgp_fail "n001 has an /etc/slurm"
rg_cluster_on n001 test -f /etc/railguard/rails.yaml || rgp_fail "n001 has no /etc/railguard/rails.yaml"
rgp_expect_eq "n001's /run/slurm/conf" "$(rg_cluster_on n001 readlink /run/slurm/conf)" "$cache"
rgp_expect_eq "SLURM_CONF on n001" "$(rg_cluster_on n001 printenv SLURM_CONF || true)" ""
rgp_ok "n001: no /etc/slurm, slurm.conf in $cache (no railguard.yaml there), /run/slurm/conf -> it, /etc/railguard/ its own"

# --- Prolog and Epilog ---------------------------------------------------------------------
job=$(rgp_submit -N1 -w n001 --wrap 'echo done')
rgp_wait_state "$job" COMPLETED 60
rgp_expect_eq "restarts of job $job on n001" "$(rgp_job "$job" Restarts)" "0"
! rgh_drained n001 || rgp_fail "n001 drained: $(rgh_reason n001)"
rgh_wait "n001's railcheck state after its Prolog and Epilog" 10 rgh_state_at_least n001 runs 2
rgp_ok "job $job completed on n001; its Prolog and Epilog railcheck read /etc/railguard/railguard.yaml ($(rgh_state n001 runs) runs)"

rgh_node_tree n002 --fault rate-down:3
job=$(rgp_submit -N1 -w n002 --wrap 'true')
rgh_wait "n002 drained by its Prolog" 30 rgh_drained n002
rgp_expect_eq "n002's reason in sinfo -R" "$(rgh_reason n002)" \
  "railcheck: rail3 mlx5_5 width 2X < 4X"
requeued() { [ "$(rgp_job "$job" Restarts)" -ge 1 ]; }
rgh_wait "job $job requeued" 30 requeued
scancel "$job"
rgp_ok "n002's Prolog drained it ($(rgh_reason n002)) and Slurm requeued job $job"

# --- HealthCheckProgram ------------------------------------------------------------------
# n002 repaired; railcheck as HealthCheckProgram resumes it after its clean runs, gives nodes
# that never ran a job the healthy feature, and then drains n003 when its rail 3 goes down.
rgh_node_tree n002
printf '%s\n' "HealthCheckProgram=$rgp_railcheck_dir/railcheck-periodic" "HealthCheckInterval=5" \
  >>"$RAILGUARD_CLUSTER_DIR/slurm.conf"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
pushed() { grep -q '^HealthCheckProgram=' "$RAILGUARD_CLUSTER_DIR/nodes/n002/spool/conf-cache/slurm.conf"; }
rgh_wait "the new slurm.conf in n002's conf-cache" 30 pushed
resumed() {
  local state
  state=$(rgh_node_field n002 State)
  [ -n "$state" ] && [[ $state != *DRAIN* ]]
}
rgh_wait "n002 resumed by its HealthCheckProgram" 90 resumed
rgh_wait "n002's state after its resume" 10 rgh_state_at_least n002 resumes 1
healthy() { [[ $(rgh_features n004) == *rail_healthy* ]]; }
rgh_wait "rail_healthy on n004 from its HealthCheckProgram" 60 healthy
rgh_state_at_least n004 runs 1 || rgp_fail "n004 has no railcheck state"
rgp_ok "HealthCheckProgram railcheck (no SLURM_CONF) resumed n002 after $(rgh_state n002 drain_free_streak) clean runs and gave n004 rail_healthy"
rgh_node_tree n003 --fault rate-down:3
rgh_wait "n003 drained by its HealthCheckProgram" 60 rgh_drained n003
rgp_expect_eq "n003's reason in sinfo -R" "$(rgh_reason n003)" \
  "railcheck: rail3 mlx5_5 width 2X < 4X"
rgp_ok "HealthCheckProgram railcheck drained n003 ($(rgh_reason n003))"

# --- railctl on a node -------------------------------------------------------------------
rg_cluster_on n005 "$rgp_railctl" report --json >"$rgp_tmp/report.json" 2>"$rgp_tmp/report.err" ||
  rgp_fail "railctl report on n005 failed: $(cat "$rgp_tmp/report.err")"
report() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$rgp_tmp/report.json" "$1"
}
rgp_expect_eq "history files railctl report read on n005" "$(report 'r["history"]["files"]')" \
  "['$rgh_events']"
rgp_expect_eq "n002 and n003 in the report" \
  "$(report '[(n["name"], n["drained_by"], n["history"]["drains"]["24h"]) for n in r["nodes"] if n["name"] in ("n002", "n003")]')" \
  "[('n002', None, 1), ('n003', 'railcheck', 1)]"
rgp_ok "railctl report on n005 (no arguments, no SLURM_CONF) read /etc/railguard/railguard.yaml, its event log and Slurm: n003 drained by railcheck, n002's drain in its history"

# --- nothing to find ---------------------------------------------------------------------
# n005 without its /etc/railguard (an empty tmpfs over it, in a mount namespace of its own).
rc=0
# shellcheck disable=SC2016  # expanded by that sh
out=$(rg_cluster_on n005 unshare --mount --propagation private -- \
  sh -c 'mount -t tmpfs none /etc/railguard && exec "$0" --dry-run --node n005' \
  "$rgh_railcheck" 2>&1) || rc=$?
rgp_expect_eq "railcheck's exit without a railguard.yaml" "$rc" 4
rgp_expect_eq "railcheck's message without a railguard.yaml" "$out" \
  "railcheck: no railguard.yaml found: looked for /etc/slurm/railguard.yaml (beside the default slurm.conf /etc/slurm/slurm.conf) and /etc/railguard/railguard.yaml (the node's own, for configless Slurm); give --config FILE, or install it in one of those places (railguard.yaml(5), FILES)"
rgp_ok "without a railguard.yaml on the node, railcheck names where it looked"
rgp_done
