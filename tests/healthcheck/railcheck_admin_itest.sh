#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railcheck only resumes what it drained, on the real cluster with railcheck as
# HealthCheckProgram: an admin's drain of a healthy node stays, reason and all, run after run;
# a node railcheck drained and an admin then took over (own reason) stays drained after its
# rail is repaired and railcheck counts it clean.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_configs
rgh_health_check 5
rgh_start  # every node healthy: slurmd runs the HealthCheckProgram before it registers

rgh_node_tree n006 --fault port-down:1
rgh_wait "n006 drained by railcheck" 30 rgh_drained n006
# The port went down between two runs: port.state and link.flap, the first one in the reason.
rgp_expect_eq "n006 reason" "$(rgh_reason n006)" \
  "railcheck: rail1 mlx5_3 port DOWN/Disabled (+1 more)"
rgp_ok "railcheck drained n006: $(rgh_reason n006)"

scontrol update NodeName=n004 State=DRAIN Reason="maintenance: reseat GPU 3"
scontrol update NodeName=n006 State=DRAIN Reason="RMA: replace NIC mlx5_3"
rgh_node_tree n006  # repaired
target4=$(($(rgh_state n004 runs) + 4))
target6=$(($(rgh_state n006 runs) + 4))
enough_runs() {
  [ "$(rgh_state n004 runs)" -ge "$target4" ] && [ "$(rgh_state n006 runs)" -ge "$target6" ]
}
rgh_wait "4 more railcheck runs on n004 and n006" 60 enough_runs
rgp_expect_eq "n004 reason" "$(rgh_reason n004)" "maintenance: reseat GPU 3"
rgp_expect_eq "n006 reason" "$(rgh_reason n006)" "RMA: replace NIC mlx5_3"
rgh_drained n004 || rgp_fail "n004 was resumed"
rgh_drained n006 || rgp_fail "n006 was resumed"
streak=$(rgh_state n006 drain_free_streak)
[ "$streak" -ge 3 ] || rgp_fail "n006 had only $streak clean runs"
rgp_ok "admin drains kept through 4 runs; n006 clean for $streak runs and still drained"
grep -q "railcheck never resumes it" <("$rgh_railcheck" --dry-run --node n006 \
  --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml") ||
  rgp_fail "railcheck --dry-run does not say why n006 stays drained"
rgp_ok "railcheck --dry-run on n006: $("$rgh_railcheck" --dry-run --node n006 \
  --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" | grep 'railcheck never resumes it')"
rgp_done
