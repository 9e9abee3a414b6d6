#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=200
# A flapping link on the real cluster: rail 2 of n007 bounces between DOWN/Polling and
# ACTIVE/LinkUp while its link_downed counter rises, for 30 s, with railcheck as
# HealthCheckProgram every 5 s. n007 is drained once, stays drained with one unchanged reason
# while the link flaps (no oscillation between drained and idle), and is resumed only after
# the link has been stable for 3 runs.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_node_tree n007
rgh_configs
rgh_health_check 5
rgh_start

port=class/infiniband/mlx5_4/ports/1
flap() {
  local i
  for ((i = 1; i <= 20; i++)); do
    rgh_set n007 "$port/counters/link_downed" "$i"
    if ((i % 2)); then
      rgh_set n007 "$port/state" "1: DOWN"
      rgh_set n007 "$port/phys_state" "2: Polling"
    else
      rgh_set n007 "$port/state" "4: ACTIVE"
      rgh_set n007 "$port/phys_state" "5: LinkUp"
    fi
    sleep 1.5
  done
}
flap &
flapper=$!
trap 'kill "$flapper" 2>/dev/null || true; rgp_cleanup' EXIT

rgh_watch_flapping_drain "$flapper" n007 "link"
first=$rgh_first samples=$rgh_samples runs_at_drain=$rgh_runs_at_drain
runs=$(rgh_state n007 runs)
rgp_ok "drained as '$first'; unchanged over $samples samples and" \
  "$((runs - runs_at_drain)) more railcheck runs"
rgp_expect_eq "railcheck's drains of n007 while flapping" "$(rgh_state n007 drains)" "1"
rgp_ok "n007 drained exactly once"

# Stable again (ACTIVE, link_downed still): 3 clean runs, then resumed.
resumed() { ! rgh_drained n007; }
rgh_wait "n007 resumed after the link settled" 60 resumed
rgh_wait "n007's state after its resume" 10 rgh_state_at_least n007 resumes 1
streak=$(rgh_state n007 drain_free_streak)
[ "$streak" -ge 3 ] || rgp_fail "n007 resumed after $streak clean runs"
rgp_expect_eq "drains of n007" "$(rgh_state n007 drains)" "1"
rgp_expect_eq "resumes of n007" "$(rgh_state n007 resumes)" "1"
rgp_ok "n007 resumed once, after $streak clean runs"
rgp_done
