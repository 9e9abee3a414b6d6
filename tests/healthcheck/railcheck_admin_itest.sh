#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=100
# railcheck only resumes what it drained, on the real cluster with railcheck as
# HealthCheckProgram: an admin's drain of a healthy node stays, reason and all, run after run;
# a node railcheck drained and an admin then took over (own reason) stays drained after its
# rail is repaired and railcheck counts it clean; an admin's drain that lands between
# railcheck's read of the node and its write (railcheck paused there through
# RAILCHECK_TEST_PAUSE_DIR) is kept, reason and all, and never resumed.
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
  "railcheck: rail1 mlx5_3 phys_state 3 (Disabled) != 5 LinkUp (+1 more)"
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

# The race: railcheck by hand on n007 with a fault tree of its own (slurmd's runs read the
# healthy one), so that it plans a drain; paused after the read its plan is made from, the
# admin drains n007 by hand; railcheck reads the node again before writing and leaves the
# admin's drain alone.
pause=$rgp_tmp/pause-n007
mkdir -p "$pause"
python3 "$rgh_make_sysfs" "$rgh_sys/n007-faulty" --node n007 --fault rate-down:3 ||
  rgp_fail "make_sysfs.py failed"
RAILCHECK_TEST_PAUSE_DIR=$pause "$rgh_railcheck" --periodic --node n007 \
  --sysfs-root "$rgh_sys/n007-faulty" --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" \
  >"$rgp_tmp/n007.out" 2>&1 &
racer=$!
rgh_wait "railcheck on n007 paused between its read and its write" 30 test -e "$pause/paused"
rgh_drained n007 && rgp_fail "n007 drained before the admin's drain: $(rgh_reason n007)"
scontrol update NodeName=n007 State=DRAIN Reason="admin: drained between read and write"
touch "$pause/go"
rc=0
wait "$racer" || rc=$?
[ "$rc" -eq 1 ] || rgp_fail "railcheck on n007 exited $rc, expected 1 (drain verdict): $(cat "$rgp_tmp/n007.out")"
grep -q "planned again" "$rgp_tmp/n007.out" ||
  rgp_fail "railcheck on n007 did not see the admin's drain: $(cat "$rgp_tmp/n007.out")"
rgp_expect_eq "n007 reason" "$(rgh_reason n007)" "admin: drained between read and write"
target7=$(($(rgh_state n007 runs) + 3))
rgh_wait "3 more railcheck runs on n007" 60 rgh_state_at_least n007 runs "$target7"
rgp_expect_eq "n007 reason after 3 clean runs" "$(rgh_reason n007)" \
  "admin: drained between read and write"
rgh_drained n007 || rgp_fail "n007 was resumed"
rgp_ok "an admin's drain between railcheck's read and write kept: $(grep 'planned again' "$rgp_tmp/n007.out")"
rgp_done
