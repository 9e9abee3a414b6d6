#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1 COST=100
# railcheck as Prolog on the real cluster: rail 3 of n002 trained down to 200 Gb/s. A 2-node
# job placed on n001+n002 is requeued by n002's Prolog and completes on healthy nodes, while
# n002 stays drained with railcheck's reason (sinfo -R) and its rails in Extra. Then the
# fixture is repaired and railcheck becomes the HealthCheckProgram (scontrol reconfigure):
# n002 is resumed after 3 clean runs and not before, and the healthy feature, which the
# reconfigure dropped, is back on every node. Every change is in the event log
# (health.events_log), and `railctl report --config` reads it from there: n002's drain shows in
# its history while drained and after the resume.
# On the system Slurm; railcheck_drain_2411_itest.sh and _2511_ run it on another release
# (rg_release: tests/plugin/itest_lib.sh), with that release's railcheck and railctl.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_configs
rgh_start
# Every node checked healthy once (rail_healthy + Extra), then rail 3 of n002 trains down.
rgh_checked_healthy
rgh_node_tree n002 --fault rate-down:3

# --- the Prolog drains n002 and Slurm requeues the job onto healthy nodes -------------------
# shellcheck disable=SC2016  # expanded by the job, not here
job=$(rgp_submit -N2 --wrap 'echo "nodes=$SLURM_JOB_NODELIST"')
rgh_wait "n002 drained by its Prolog" 30 rgh_drained n002
rgp_ok "n002's Prolog drained it"
rgp_expect_eq "n002's reason in sinfo -R" "$(rgh_reason n002)" \
  "railcheck: rail3 mlx5_5 width 2X < 4X"
rgp_ok "sinfo -R: $(rgh_reason n002)"
rgp_wait_state "$job" COMPLETED 90
nodes=$(rgp_job "$job" NodeList)
[[ $(scontrol show hostnames "$nodes") != *n002* ]] || rgp_fail "job $job ran on n002 ($nodes)"
restarts=$(rgp_job "$job" Restarts)
[ "$restarts" -ge 1 ] || rgp_fail "job $job was not requeued (Restarts=$restarts)"
grep -qxF "nodes=$nodes" "$rgp_tmp/job-$job.out" ||
  rgp_fail "job output: $(cat "$rgp_tmp/job-$job.out")"
rgp_ok "job $job was requeued $restarts time(s) and completed on $nodes"

extra=$(rgh_node_field n002 Extra)
[[ $extra == *'"rails":["ok","ok","ok","degraded","ok","ok","ok","ok"]'* &&
  $extra == *'"verdict":"drain"'* && $extra == *'"failed":["rail3:port.rate"]'* ]] ||
  rgp_fail "n002 Extra: $extra"
rgp_ok "n002 Extra: $extra"
[[ $(rgh_features n002) != *rail_healthy* ]] || rgp_fail "n002 kept rail_healthy"
for n in $(scontrol show hostnames "$nodes"); do
  [[ $(rgh_features "$n") == *rail_healthy* ]] ||
    rgp_fail "$n lacks rail_healthy: $(rgh_features "$n")"
done
rgp_ok "rail_healthy on $nodes, not on n002"

# report_json EXPR: EXPR (Python, over the JSON report `r`) of `railctl report --config` on
# the live cluster; the history comes from the config's events_log, no --history given.
report_json() {
  "$rgp_railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" --json \
    >"$rgp_tmp/report.json" 2>"$rgp_tmp/report.err" ||
    rgp_fail "railctl report failed: $(cat "$rgp_tmp/report.err")"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$rgp_tmp/report.json" "$1"
}
# report_text: the text report, the same way.
report_text() {
  "$rgp_railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" \
    2>"$rgp_tmp/report.err" || rgp_fail "railctl report failed: $(cat "$rgp_tmp/report.err")"
}

rgp_expect_eq "n002's events after its Prolog" "$(rgh_events n002 | tr '\n' ',')" \
  "restored -1,degraded 3,drained -1,restricted -1,"
rgp_ok "event log: n002 given rail_healthy by its first (healthy) run, then rail 3 degraded, n002 drained, the feature taken"
rgp_expect_eq "history files the report read" "$(report_json 'r["history"]["files"]')" \
  "['$rgh_events']"
rgp_expect_eq "n002 in the report" \
  "$(report_json '[(n["drained_by"], n["history"]["drains"]["24h"]) for n in r["nodes"] if n["name"] == "n002"]')" \
  "[('railcheck', 1)]"
report_text >"$rgp_tmp/report.txt"
grep -Eq '^n002 +idle\+drain .* railcheck +railcheck: rail3 mlx5_5 width 2X < 4X' "$rgp_tmp/report.txt" ||
  rgp_fail "the text report does not list n002 drained by railcheck: $(cat "$rgp_tmp/report.txt")"
grep -Eq '^n002 +node +- +- +1/1 ' "$rgp_tmp/report.txt" ||
  rgp_fail "the text report's history has no drain of n002: $(grep -A6 '^HISTORY' "$rgp_tmp/report.txt")"
rgp_ok "railctl report --config read $rgh_events: n002 drained by railcheck, 1 drain in 24 h"

# --- repaired: the HealthCheckProgram resumes n002 after 3 clean runs ------------------------
rgh_node_tree n002
rgh_health_check 5
streaks_seen=""
deadline=$((SECONDS + 90))
while :; do
  # The streak first: railcheck resumes the node before it writes the streak that allowed it.
  streak=$(rgh_state n002 drain_free_streak)
  rgh_drained n002 || break
  [ -z "$streak" ] || [ "$streak" -lt 3 ] ||
    rgp_fail "n002 still drained after $streak clean runs (reason: $(rgh_reason n002))"
  [[ " $streaks_seen " == *" $streak "* ]] || streaks_seen="$streaks_seen $streak"
  [ "$SECONDS" -lt "$deadline" ] || rgp_fail "n002 not resumed within 90 s (streak $streak)"
  sleep 0.5
done
rgh_wait "n002's state after its resume" 10 rgh_state_at_least n002 resumes 1
streak=$(rgh_state n002 drain_free_streak)
[ "$streak" -ge 3 ] || rgp_fail "n002 resumed after only $streak clean runs"
rgp_ok "n002 stayed drained at clean-run streaks:$streaks_seen; resumed at $streak"
rgp_expect_eq "n002 reason after resume" "$(rgh_reason n002)" ""
rgp_expect_eq "railcheck's drains of n002" "$(rgh_state n002 drains)" "1"
rgp_expect_eq "railcheck's resumes of n002" "$(rgh_state n002 resumes)" "1"
# railcheck appends its events before it writes the state file that was waited for above.
rgp_expect_eq "n002's events after its resume" "$(rgh_events n002 | tr '\n' ',')" \
  "restored -1,degraded 3,drained -1,restricted -1,recovered 3,resumed -1,restored -1,"
rgp_ok "event log: n002 rail 3 recovered at the first clean run, resumed and restored at the third"
rgp_expect_eq "n002 in the report after its resume" \
  "$(report_json '[(n["drained"], n["history"]["drains"]["24h"]) for n in r["nodes"] if n["name"] == "n002"]')" \
  "[(False, 1)]"
rgp_ok "railctl report after the resume: n002 not drained, its drain still in the history"

# `scontrol reconfigure` (above) reset features set by update; the periodic runs put
# rail_healthy back everywhere, n002 included once its streak allowed it.
check_features() {
  local n
  for n in $(scontrol show hostnames 'n[001-032]'); do
    [[ $(rgh_features "$n") == *rail_healthy* ]] || return 1
  done
}
rgh_wait "rail_healthy back on all 32 nodes" 30 check_features
rgp_ok "rail_healthy on all 32 nodes after the reconfigure"

job=$(rgp_submit -N2 -w n002,n003 --wrap 'true')
rgp_wait_state "$job" COMPLETED 60
rgp_ok "n002 runs jobs again (job $job)"
rgp_done
