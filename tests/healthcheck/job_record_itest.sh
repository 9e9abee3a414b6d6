#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=100
# What a job got from the fabric, rail by rail (issue 27), on the real cluster: railcheck as
# Prolog opens each node's job file, a periodic run during the job adds a reading, the Epilog
# appends the job's per-rail record to the job log (health.job_log), and `railctl job` joins
# the four nodes' lines. While the job runs the test advances every rail's port counters of
# n001-n004 by the same traffic, except rail 3 of n003: a tenth of it, port_xmit_wait a
# hundred times the others', symbol_error +500. The record names n003 rail3 mlx5_5 and its
# leaf su1-rail3 as slow, waiting and erring, and nothing else. A first job with every rail
# alike has no findings and is kept as baseline train-4n: the degraded job differs from it on
# rail 3 (weakest n003), the good one not; `railctl job --since --prometheus` has both jobs;
# `railctl report` lists the degraded job, 1 of 2 recorded, on its slow path. Each job script
# writes its step times where the config's health.job_app_dir (%j) says: the good run 1.0 s a
# step, kept with its baseline; the degraded one 1.5 s, a baseline finding of its own.
# The fabric side, live: while the degraded job runs, a fabric sweep (`railctl fabric sweep
# --json`) of the dev-4su fabric under 2 core switches, simulated by ibsim and brought up by
# opensm, finds the symbol errors ibsim's console set on su1-rail3 port 3 (n003's rail 3) and
# on core1's port to spine1; `railctl job --sweeps DIR` adds both to the job's record as
# fabric findings: the host link on the leaf side, the core link (spine1 carries the uplinks
# of the job's leaves) on the core side.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"
# shellcheck source=../fabric/fabric_itest_lib.sh
source "$here/../fabric/fabric_itest_lib.sh"

job_log=$rgh_job_log
rgh_fixtures
for n in n001 n002 n003 n004; do rgh_node_tree "$n"; done
apps=$rgp_tmp/apps
rgh_configs "job_app_dir: $apps/%j"
rgh_start
rgh_checked_healthy

nics=(mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11)
# bump NODE RAIL COUNTER DELTA: adds DELTA to one port counter file of NODE's tree.
bump() {
  local rel=class/infiniband/${nics[$2]}/ports/1/counters/$3
  local v
  v=$(cat "$rgh_sys/$1/$rel")
  rgh_set "$1" "$rel" "$((v + $4))"
}
# traffic FRACTION_OF_RAIL3_ON_N003: one interval's traffic on every rail of n001-n004
# (256 MiB each way = 2^26 four-octet words), rail 3 of n003 at the fraction given (1/N).
traffic() {
  local n k words
  for n in n001 n002 n003 n004; do
    for k in 0 1 2 3 4 5 6 7; do
      words=$((1 << 26))
      [ "$n/$k" = n003/3 ] && words=$((words / $1))
      bump "$n" "$k" port_xmit_data "$words"
      bump "$n" "$k" port_rcv_data "$words"
      if [ "$n/$k" = n003/3 ] && [ "$1" != 1 ]; then bump "$n" "$k" port_xmit_wait 5000000; else
        bump "$n" "$k" port_xmit_wait 50000; fi
    done
  done
}

# The simulated fabric: dev-4su at HDR under 2 core switches. A second EXIT trap step stops it.
rgf_hdr_topology "$rgp_tmp/fabric-topo.yaml"
"$rgp_railctl" topology simulate "$rgp_tmp/fabric-topo.yaml" --cores 2 -o "$rgp_tmp/fabric.net" ||
  rgp_fail "topology simulate"
cluster_exit=$(trap -p EXIT | sed -E "s/^trap -- '(.*)' EXIT$/\1/")
rg_fabric_start --no-trap "$rgp_tmp/fabric.net" || rgp_fail "the simulated fabric did not come up"
# shellcheck disable=SC2064  # the cluster's own EXIT step, as it is now
trap "rg_fabric_stop; $cluster_exit" EXIT
sweeps=$rgp_tmp/sweeps
mkdir -p "$sweeps"
# sweep_fabric: errors on n003's rail-3 host link (leaf end) and on core1's port to spine1,
# then one sweep, kept as a site's cron job keeps them.
sweep_fabric() {
  rg_fabric_console 'PerformanceSet "S-fc6a1c0300000103"[3] PortCounters.SymbolErrorCounter=77'
  rg_fabric_console 'PerformanceSet "S-fc6a1c03fc000001"[1] PortCounters.SymbolErrorCounter=33'
  rg_fabric_run "$rgp_railctl" fabric sweep "$rgp_tmp/fabric-topo.yaml" --json \
    -o "$sweeps/sweep-$(date +%s).json" 2>"$rgp_tmp/sweep.err" || true
  ls "$sweeps"/sweep-*.json >/dev/null 2>&1 || rgp_fail "no sweep JSON: $(cat "$rgp_tmp/sweep.err")"
}

# run_job FRACTION ERRORS STEP_SECONDS MIN_SECONDS [HOOK]: a 4-node job on n[001-004] with two
# intervals of traffic (rail 3 of n003 at 1/FRACTION, ERRORS symbol errors on it), a periodic
# run on n001 between them; waits for its four records; prints its id. HOOK, when given, runs
# in the background while the job runs, beside the traffic. The job runs MIN_SECONDS and then
# until the test has changed every counter (it waits for a file), so that on a loaded machine
# no Epilog reads before the last change. The baseline compares rates per node and second, so
# the second job runs at least as long as the first one did: CI, loaded, saw the first job
# take 16 s and the second, with its fabric sweep, 20 s, and every rail "differ" by -20%. Like
# a training script, it writes its step times (20 steps of STEP_SECONDS after a slow first
# one) to $apps/$SLURM_JOB_ID/steps.txt. HOOK starts once the four Prologs have written their
# job files.
run_job() {
  local job n go steps hook_pid=
  go=$(mktemp -u "$rgp_tmp/go.XXXXXX")
  steps="d=$apps/\$SLURM_JOB_ID; mkdir -p \$d; { echo '# step seconds'; echo '1 30.0';"
  steps+=" for i in \$(seq 2 21); do echo \"\$i $3\"; done; } >\$d/steps.txt"
  job=$(rgp_submit -N4 -w 'n[001-004]' \
    --wrap "$steps; sleep $4; until [ -e $go ]; do sleep 0.2; done")
  rgp_wait_state "$job" RUNNING 60
  for n in n001 n002 n003 n004; do
    rgh_wait "$n's job file from its Prolog" 20 test -f "$rgh_state/$n/jobs/$job.json"
  done
  # After the Prologs: the record's window starts at their readings (a sweep begun at the
  # allocation on a loaded machine had ended before them).
  if [ -n "${5:-}" ]; then
    "$5" >&2 &
    hook_pid=$!
  fi
  traffic "$1"
  rgh_periodic n001 || true
  grep -q "^job: 1 running job: counters read" "$rgp_tmp/periodic-n001.out" ||
    rgp_fail "n001's periodic run: $(cat "$rgp_tmp/periodic-n001.out")"
  traffic "$1"
  [ "$2" = 0 ] || bump n003 3 symbol_error "$2"
  [ -z "$hook_pid" ] || wait "$hook_pid" || rgp_fail "$5 failed"
  touch "$go"
  rgp_wait_state "$job" COMPLETED 90
  rgh_wait "four job records in $job_log" 30 \
    bash -c "[ \"\$(grep -c '\"job\":$job,' '$job_log' 2>/dev/null)\" = 4 ]"
  for n in n001 n002 n003 n004; do
    [ ! -e "$rgh_state/$n/jobs/$job.json" ] || rgp_fail "$n's Epilog left its job file"
  done
  echo "$job"
}

conf=$RAILGUARD_CLUSTER_DIR/railguard.yaml
# A known-good run first, kept as a baseline.
good=$(run_job 1 0 1.0 15)
rgp_ok "job $good (every rail alike): each node's Prolog read its counters, n001's periodic run added a reading, each Epilog appended its record and removed its job file"
"$rgp_railctl" job "$good" --config "$conf" >"$rgp_tmp/good.txt" 2>&1 ||
  rgp_fail "railctl job $good: $(cat "$rgp_tmp/good.txt")"
grep -q "^findings: none" "$rgp_tmp/good.txt" || rgp_fail "job $good: $(cat "$rgp_tmp/good.txt")"
"$rgp_railctl" job baseline "$good" --name train-4n --baselines "$rgp_tmp/baselines" \
  --config "$conf" >"$rgp_tmp/keep.txt" 2>&1 || rgp_fail "job baseline: $(cat "$rgp_tmp/keep.txt")"
[ -s "$rgp_tmp/baselines/train-4n.json" ] || rgp_fail "no baseline file: $(cat "$rgp_tmp/keep.txt")"
rgp_ok "job $good has no findings and is kept as baseline train-4n"

good_s=$(sed -nE '1s/.* \(([0-9]+) s\)$/\1/p' "$rgp_tmp/good.txt")
[ -n "$good_s" ] || rgp_fail "no duration in the head line of railctl job $good: $(head -1 "$rgp_tmp/good.txt")"
job=$(run_job 10 500 1.5 "$good_s" sweep_fabric)
rgp_ok "job $job: rail 3 of n003 at a tenth of the traffic, 100x the xmit wait, 500 symbol errors"

"$rgp_railctl" job "$job" --config "$conf" >"$rgp_tmp/job.txt" 2>"$rgp_tmp/job.err" ||
  rgp_fail "railctl job $job failed: $(cat "$rgp_tmp/job.err")"
cat "$rgp_tmp/job.txt"
grep -q "^job $job: 4 nodes (n\[001-004\])" "$rgp_tmp/job.txt" || rgp_fail "head line"
for kind in slow waiting errors; do
  grep -q "^  $kind: n003 rail3 mlx5_5 (leaf su1-rail3): " "$rgp_tmp/job.txt" ||
    rgp_fail "no '$kind' finding for n003 rail3 mlx5_5 (leaf su1-rail3)"
done
grep -q "symbol_error +500" "$rgp_tmp/job.txt" || rgp_fail "the errors finding lacks symbol_error +500"
[ "$(grep -c '^  [a-z]*: ' "$rgp_tmp/job.txt")" = 3 ] ||
  rgp_fail "expected exactly the three findings on n003 rail3"
rgp_ok "railctl job names n003 rail3 mlx5_5 on leaf su1-rail3: slow, waiting, erring; nothing else"

"$rgp_railctl" job "$job" --config "$conf" --json >"$rgp_tmp/job.json" 2>"$rgp_tmp/job.err" ||
  rgp_fail "railctl job --json failed: $(cat "$rgp_tmp/job.err")"
check=$(python3 - "$rgp_tmp/job.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rows = {(x["node"], x["rail"]): x for x in r["nodes_rails"]}
full = 2 * (1 << 26) * 4          # two intervals of 2^26 words, in octets
assert len(rows) == 32, len(rows)
assert rows[("n001", 0)]["xmit_bytes"] == full, rows[("n001", 0)]
assert rows[("n003", 3)]["xmit_bytes"] == 2 * ((1 << 26) // 10) * 4, rows[("n003", 3)]
assert rows[("n001", 0)]["peak_xmit_bps"] > 0, "n001 had a periodic reading: a peak"
assert rows[("n002", 0)]["peak_xmit_bps"] == 0, "n002 had none: no peak"
assert r["rails"][3]["errors"] == 500, r["rails"][3]
print("ok")
PY
) || rgp_fail "the JSON record: $check"
rgp_ok "JSON: every node's rails in octets (port_xmit_data x 4), the peak where a periodic run read, rail 3's 500 errors"

compare() {
  "$rgp_railctl" job "$1" --config "$conf" --baseline train-4n --baselines "$rgp_tmp/baselines" \
    2>&1 || rgp_fail "railctl job $1 --baseline train-4n failed"
}
compare "$job" >"$rgp_tmp/cmp.txt"
grep -q "^  baseline: rail3 differs from baseline train-4n (job $good): .*weakest: n003 mlx5_5 (leaf su1-rail3)" \
  "$rgp_tmp/cmp.txt" || rgp_fail "no baseline finding for rail 3: $(cat "$rgp_tmp/cmp.txt")"
grep -q "^  baseline: median step time 1.5 s against 1 s (+50%) in baseline train-4n (job $good)" \
  "$rgp_tmp/cmp.txt" || rgp_fail "no step-time finding: $(cat "$rgp_tmp/cmp.txt")"
[ "$(grep -c '^  baseline: ' "$rgp_tmp/cmp.txt")" = 2 ] ||
  rgp_fail "expected two baseline findings (rail 3, the step time): $(cat "$rgp_tmp/cmp.txt")"
grep -q "^application (step-times, $apps/$job/steps.txt): 21 steps; median 1.5 s" \
  "$rgp_tmp/cmp.txt" || rgp_fail "the job's step times are not shown: $(cat "$rgp_tmp/cmp.txt")"
compare "$good" >"$rgp_tmp/cmp-good.txt"
grep -q "compared with baseline train-4n (job $good, 4 nodes, .*): no rail differs" \
  "$rgp_tmp/cmp-good.txt" || rgp_fail "the good run against itself: $(cat "$rgp_tmp/cmp-good.txt")"
rgp_ok "against baseline train-4n: job $job's rail 3 differs (weakest n003 mlx5_5, leaf su1-rail3) and its median step (1.5 s, from the steps.txt the job wrote in health.job_app_dir) is 50% slower; job $good does not differ"

"$rgp_railctl" job --since 3600 --prometheus --config "$conf" >"$rgp_tmp/jobs.prom" 2>&1 ||
  rgp_fail "railctl job --since --prometheus: $(cat "$rgp_tmp/jobs.prom")"
grep -q "^railguard_job_findings{job=\"$job\",kind=\"slow\"} 1$" "$rgp_tmp/jobs.prom" &&
  grep -q "^railguard_job_findings{job=\"$good\",kind=\"slow\"} 0$" "$rgp_tmp/jobs.prom" &&
  grep -Eq "^railguard_job_rail_min_share\{job=\"$job\",rail=\"3\"\} 0\.(1|0999999[0-9]*)$" \
    "$rgp_tmp/jobs.prom" ||
  rgp_fail "Prometheus series: $(grep -v '^#' "$rgp_tmp/jobs.prom" | head -40)"
rgp_ok "railctl job --since 3600 --prometheus: both jobs' series, the slow rail's share 0.1 (2^26/10 words of 2^26)"

"$rgp_railctl" report --config "$conf" >"$rgp_tmp/report.txt" 2>"$rgp_tmp/report.err" ||
  rgp_fail "railctl report: $(cat "$rgp_tmp/report.err")"
grep -q "^JOBS THAT RAN ON A SLOW OR ERRING PATH (job log, ended in the last 24h): 1 of 2 recorded jobs" \
  "$rgp_tmp/report.txt" && grep -q "^  job $job on n\[001-004\], ended " "$rgp_tmp/report.txt" &&
  grep -q "^    slow: n003 rail3 mlx5_5 (leaf su1-rail3): " "$rgp_tmp/report.txt" ||
  rgp_fail "the report's job section: $(sed -n '/^JOBS THAT RAN/,/^$/p' "$rgp_tmp/report.txt")"
rgp_ok "railctl report lists job $job (1 of 2 recorded jobs) on its slow path n003 rail3, leaf su1-rail3"

"$rgp_railctl" job "$job" --config "$conf" --sweeps "$sweeps" >"$rgp_tmp/fab.txt" 2>&1 ||
  rgp_fail "railctl job --sweeps: $(cat "$rgp_tmp/fab.txt")"
grep -q "^  fabric: errors on host link n003 mlx5_5 port 1 - su1-rail3 port 3 (leaf side) in 1 of 1 sweep(s) during the job: SymbolErrorCounter" \
  "$rgp_tmp/fab.txt" &&
  grep -q "^  fabric: errors on core link spine1 port [0-9]* - core1 port 1 (core side) in 1 of 1 sweep(s)" \
    "$rgp_tmp/fab.txt" && [ "$(grep -c '^  fabric: ' "$rgp_tmp/fab.txt")" = 2 ] ||
  rgp_fail "the fabric side of job $job: $(cat "$rgp_tmp/fab.txt")
sweep files (mtime, name; each one's summary): $(cd "$sweeps" && for s in *; do
    echo "$(stat -c %.Y "$s") $s $(tr -d ' \n' <"$s" | grep -o '"summary":{[^}]*}')"; done)
sweep stderr: $(cat "$rgp_tmp/sweep.err")"
rgp_ok "railctl job --sweeps: the live sweep during job $job names n003's rail-3 link (leaf end) and spine1's link to core1 (core end), nothing else"

nccl=$rgp_src/tests/data/nccl/a3mega_all_reduce_16gpu.txt
"$rgp_railctl" job "$job" --config "$conf" --nccl-tests "$nccl" >"$rgp_tmp/app.txt" 2>&1 ||
  rgp_fail "railctl job --nccl-tests: $(cat "$rgp_tmp/app.txt")"
grep -q "^application (nccl-tests, $nccl): 16 ranks on 2 hosts; bus bandwidth 70.7 GB/s on average" \
  "$rgp_tmp/app.txt" && grep -q "its hosts ztan-mig-235z, ztan-mig-gq73 are not among the job's nodes" \
  "$rgp_tmp/app.txt" || rgp_fail "the application's numbers: $(tail -5 "$rgp_tmp/app.txt")"
rgp_ok "railctl job --nccl-tests: a real all_reduce_perf capture's bus bandwidth beside the rails, its hosts named as not the job's"

"$rgp_railctl" job 999999 --config "$conf" >/dev/null 2>"$rgp_tmp/none.err" &&
  rgp_fail "railctl job of an unknown job succeeded"
grep -q "no record of job 999999" "$rgp_tmp/none.err" || rgp_fail "$(cat "$rgp_tmp/none.err")"
rgp_ok "a job without records: $(cat "$rgp_tmp/none.err")"
rgp_done
