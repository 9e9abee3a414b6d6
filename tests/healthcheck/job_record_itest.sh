#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=70
# What a job got from the fabric, rail by rail (issue 27), on the real cluster: railcheck as
# Prolog opens each node's job file, a periodic run during the job adds a reading, the Epilog
# appends the job's per-rail record to the job log (health.job_log), and `railctl job` joins
# the four nodes' lines. While the job runs the test advances every rail's port counters of
# n001-n004 by the same traffic, except rail 3 of n003: a tenth of it, port_xmit_wait a
# hundred times the others', symbol_error +500. The record names n003 rail3 mlx5_5 and its
# leaf su1-rail3 as slow, waiting and erring, and nothing else.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

job_log=$rgp_tmp/state/jobs.log
rgh_fixtures
for n in n001 n002 n003 n004; do rgh_node_tree "$n"; done
rgh_configs "job_log: $job_log"
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
      if [ "$n/$k" = n003/3 ]; then bump "$n" "$k" port_xmit_wait 5000000; else
        bump "$n" "$k" port_xmit_wait 50000; fi
    done
  done
}

job=$(rgp_submit -N4 -w 'n[001-004]' --wrap 'sleep 30')
rgp_wait_state "$job" RUNNING 60
for n in n001 n002 n003 n004; do
  rgh_wait "$n's job file from its Prolog" 20 test -f "$rgh_state/$n/jobs/$job.json"
done
rgp_ok "job $job running on n[001-004]; each node's Prolog read its counters ($rgh_state/NODE/jobs/$job.json)"

traffic 10
rgh_periodic n001 || true
grep -q "^job: 1 running job: counters read" "$rgp_tmp/periodic-n001.out" ||
  rgp_fail "n001's periodic run: $(cat "$rgp_tmp/periodic-n001.out")"
rgp_ok "a periodic run on n001 read the running job's counters"
traffic 10
bump n003 3 symbol_error 500
rgp_wait_state "$job" COMPLETED 90

rgh_wait "four job records in $job_log" 30 \
  bash -c "[ \"\$(grep -c '\"job\":$job,' '$job_log' 2>/dev/null)\" = 4 ]"
for n in n001 n002 n003 n004; do
  [ ! -e "$rgh_state/$n/jobs/$job.json" ] || rgp_fail "$n's Epilog left its job file"
done
rgp_ok "each node's Epilog appended its record and removed its job file"

conf=$RAILGUARD_CLUSTER_DIR/railguard.yaml
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

"$rgp_railctl" job 999999 --config "$conf" >/dev/null 2>"$rgp_tmp/none.err" &&
  rgp_fail "railctl job of an unknown job succeeded"
grep -q "no record of job 999999" "$rgp_tmp/none.err" || rgp_fail "$(cat "$rgp_tmp/none.err")"
rgp_ok "a job without records: $(cat "$rgp_tmp/none.err")"
rgp_done
