#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=60
# railcheck as slurmd 26.05's HealthCheckProgram with SlurmctldParameters=health_check_report
# (slurm.conf(5) of 26.05.3; slurmd.c run_script_health_check sets SLURM_NODE_IS_HEALTHY):
# once every node is checked healthy, the periodic runs go on (each node's state.json counts
# them) but ask slurmctld nothing (sdiag's REQUEST_NODE_INFO_SINGLE count stays), and a node
# whose rail goes down is still drained by its next run. Skips with one line when 26.05.3 or
# its railguard build is not there.
rg_release=26.05.3
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_configs
rgh_start
rgh_checked_healthy

# node_reads: how many single-node reads slurmctld has served (sdiag).
node_reads() {
  sdiag | awk '/REQUEST_NODE_INFO_SINGLE/ { sub(/.*count:/, ""); print $1 + 0; found = 1 }
               END { if (!found) print 0 }'
}

# As rgh_health_check, with health_check_report: $rgp_tmp/healthcheck.sh runs railcheck-periodic
# with this cluster's SLURM_CONF (slurmd passes SLURMD_NODENAME and SLURM_NODE_IS_HEALTHY).
conf=$RAILGUARD_CLUSTER_DIR/slurm.conf
params=$(grep -i '^SlurmctldParameters=' "$conf" | tail -n1 | cut -d= -f2- || true)
sed -i '/^SlurmctldParameters=/Id' "$conf"
printf '%s\n' "SlurmctldParameters=${params:+$params,}health_check_report" \
  "HealthCheckProgram=$rgp_tmp/healthcheck.sh" "HealthCheckInterval=5" \
  "HealthCheckNodeState=ANY" >>"$conf"
scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
runs0=$(rgh_state n005 runs)
ran_twice() { rgh_state_at_least n005 runs $((runs0 + 2)); }
rgh_wait "two runs of n005's HealthCheckProgram" 60 ran_twice
# From here on, only the health checks run; nothing else reads nodes.
reads0=$(node_reads)
runs1=$(rgh_state n005 runs)
ran_more() { rgh_state_at_least n005 runs $((runs1 + 3)); }
rgh_wait "three more runs of n005's HealthCheckProgram" 60 ran_more
reads1=$(node_reads)
runs=$(($(rgh_state n005 runs) - runs1))
[ $((reads1 - reads0)) -le 4 ] ||
  rgp_fail "slurmctld served $((reads1 - reads0)) node reads while every node's health check ran $runs times (expected none: SLURM_NODE_IS_HEALTHY=yes, health unchanged)"
rgp_ok "32 nodes' health checks ran $runs times each with $((reads1 - reads0)) node reads at slurmctld"

# A fault still drains at the next run.
rgh_node_tree n003 --fault rate-down:3
rgh_wait "n003 drained by its HealthCheckProgram" 30 rgh_drained n003
rgp_expect_eq "n003's reason in sinfo -R" "$(rgh_reason n003)" \
  "railcheck: rail3 mlx5_5 width 2X < 4X"
rgp_ok "n003 drained by its HealthCheckProgram ($(rgh_reason n003))"
rgp_done
