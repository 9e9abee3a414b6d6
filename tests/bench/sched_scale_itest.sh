#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=480 TIMEOUT=1200 RUN_SERIAL=TRUE
# bench/sched_scale.sh scaled down, as a guard on what railguard costs inside slurmctld: 512
# State=CLOUD nodes in 16 one-hop domains of 32, full, 300 waiting jobs of 1-64 nodes, two
# backfill cycles, on Slurm 25.11.7 (the release issue 30 measured). Stock block, topology/rail
# and topology/rail + job_submit/rail, twice: in that order, then in the reverse order (each
# cluster's job state directories make the file system slower for the next, so order alone
# moved sbatch by 2-3 ms). Each policy's figure is the mean of its two runs (backfill: the
# faster run).
#  - backfill per job tested with rail + job_submit/rail is at most block's plus the noise (the
#    largest spread between one policy's two runs, at least 5%: the issue's limit on what
#    job_submit/rail may add), each policy taken at the faster of its two runs: CI builds the
#    hardening tree beside ctest, and a compile that takes a core during one policy's two
#    cycles slows that run alone (CI once saw rail + job_submit/rail at 2.02 and 3.70 ms,
#    block at 2.15 and 2.45). Interference only adds time; a cost of railguard's own shows in
#    both runs, so in the faster one too;
#  - job_submit/rail's own time per submission in slurmctld (its stats line) is at most 1 ms at
#    p99; the submit RPC's mean inside slurmctld (sdiag, which starts timing after the job_submit
#    plugins) with job_submit/rail exceeds topology/rail's by at most 1 ms; and the sbatch round
#    trip with it exceeds the one without by at most 1 ms: the median of the differences of
#    300 pairs of submissions (bench/sched_scale.sh --paired: the topology/rail and rail +
#    job_submit/rail clusters side by side, one sbatch to each in turn), no allowance. Two
#    clusters one after another do not measure that: CI's hardening build beside them put
#    rail + job_submit/rail 3.3 ms above topology/rail in both runs, and a local run with CPU
#    bursts beside it +3.3 and -3.9 ms, where the pairs gave -0.4 and -0.8 ms;
#  - job_submit/rail's keeper, restoring every node's lists after a start, changes at most 32
#    nodes per hold of slurmctld's write locks, and no hold of any lock in its fastest
#    restore (of the four: two clusters per run) takes over 1 ms on the keeper's CPU. Each
#    pass is taken at its hold with the most CPU, the test at the fastest pass: load beside
#    the test only adds time (this machine's hypervisor takes a vCPU away for up to ~24 ms
#    and charges it to the running thread's CPU clock, bench/cpu_stall.c; with CPU bursts
#    beside the test one 512-node restore's longest hold took 1.41 ms on CPU where it takes
#    0.43 ms alone), while a keeper that spent over 1 ms per hold (all 512 nodes in one hold
#    took 10 ms and more) does so in every pass; and in its cheapest restore the holds that
#    change features take at most 1.9 ms of the keeper's CPU in all (Slurm's feature maps
#    changed once per group of nodes, js_features.h: 0.8-1.0 ms alone, and 1.55 ms in CI's
#    run of 7 Dec, the cheapest of four restores, with the hardening build compiling on the
#    other core, which slows this one's CPU clock too; through update_node(), node by node,
#    2.0-2.3 ms alone).
# Runs alone (RUN_SERIAL): timings taken beside three other clusters say little. Skipped (one
# line) when Slurm 25.11.7 or its plugins are not built. About 5 minutes.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
release=${rg_release:-25.11.7}
out=$(mktemp -d "${TMPDIR:-/tmp}/rg-$name.XXXXXX")
trap 'rm -rf -- "$out"' EXIT

fail() {
  echo "$name: FAIL: $*" >&2
  for f in "$out"/run-*.txt; do
    [ -s "$f" ] && { echo "---- $(basename "$f")" >&2; tail -n 25 "$f" >&2; }
  done
  exit 1
}

prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$release
if [ ! -x "$prefix/sbin/slurmctld" ] || [ ! -f "$bin/slurm-plugins-$release/job_submit_rail.so" ]; then
  echo "$name: skipped: no Slurm $release in $prefix or no" \
    "$bin/slurm-plugins-$release/job_submit_rail.so (scripts/build_slurm.sh $release, then rebuild)"
  exit 0
fi

scale=(--slurm-version "$release" --domains 16 --size 32 --queue 300 --cycles 2)
# The pairs (--paired) in run a only: each run of them costs about 40 s of a test that runs
# alone in CI, and 300 pairs gave medians within 0.6 ms of each other in every run here.
for run in a:block,rail,rail+js b:rail+js,rail,block; do
  paired=()
  [ "${run%%:*}" = b ] || paired=(--paired)
  RAILGUARD_BINARY_DIR=$bin bash "$src/bench/sched_scale.sh" "${scale[@]}" \
    --policies "${run#*:}" "${paired[@]}" --out "$out/${run%%:*}" >"$out/run-${run%%:*}.txt" 2>&1 ||
    fail "bench/sched_scale.sh --policies ${run#*:} exited with $?"
done

# value RUN POLICY ROW: the policy's figure in RUN's table (for the sbatch row, the p50).
declare -A column=([a:block]=1 [a:rail]=2 [a:rail+js]=3 [b:rail+js]=1 [b:rail]=2 [b:block]=3)
value() {
  local table=$out/$1/table.txt line v
  line=$(grep -m 1 -F -- "$3" "$table") || fail "$table has no row '$3'"
  line=${line#"$3"}
  v=$(sed -E 's/^ +//; s/ {2,}/\n/g' <<<"$line" | sed -n "${column[$1:$2]}p")
  v=${v%% /*}
  [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "$table, $2, '$3': '$v' is not a number"
  echo "$v"
}
grep -qE '^metric +stock block +topology/rail +rail \+ js/rail$' "$out/a/table.txt" ||
  fail "unexpected table header in run a"
grep -qE '^metric +rail \+ js/rail +topology/rail +stock block$' "$out/b/table.txt" ||
  fail "unexpected table header in run b"
declare -A bf sb rpc
for p in block rail rail+js; do
  for r in a b; do
    bf[$r:$p]=$(value $r $p "backfill per job tested (ms)")
    sb[$r:$p]=$(value $r $p "sbatch round trip p50 / p99 (ms)")
    rpc[$r:$p]=$(value $r $p "submit RPC in slurmctld, mean (ms)")
  done
done
mean() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a + b) / 2 }'; }

least() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (a < b) ? a : b }'; }
# The noise: the largest spread between the two runs of one policy, of all three (block's
# alone understated it: a local run right after a -j4 test run had block at 1.93 and 1.92 ms
# and topology/rail at 2.76 and 3.10, the next run 1.89/1.81 and 1.84/1.70).
read -r limit noise < <(awk -v a="${bf[a:block]}" -v b="${bf[b:block]}" \
  -v c="${bf[a:rail]}" -v d="${bf[b:rail]}" -v e="${bf[a:rail+js]}" -v f="${bf[b:rail+js]}" '
  function spread(x, y) { return (x > y) ? (x - y) / y : (y - x) / x }
  BEGIN {
  lo = (a > b) ? b : a; n = spread(a, b)
  if (spread(c, d) > n) n = spread(c, d)
  if (spread(e, f) > n) n = spread(e, f)
  if (n < 0.05) n = 0.05
  printf "%.2f %.1f\n", lo * (1 + n), n * 100 }')
bf_js=$(least "${bf[a:rail+js]}" "${bf[b:rail+js]}")
echo "$name: backfill per job tested (ms), runs a and b: block ${bf[a:block]} and ${bf[b:block]}" \
  "(noise $noise%), topology/rail ${bf[a:rail]} and ${bf[b:rail]}, rail + job_submit/rail" \
  "${bf[a:rail+js]} and ${bf[b:rail+js]} (faster run $bf_js, limit $limit)"
awk -v x="$bf_js" -v l="$limit" 'BEGIN { exit !(x <= l) }' ||
  fail "rail + job_submit/rail tests a job in $bf_js ms in its faster run, above block's faster run plus the noise ($limit ms)"
echo "$name: ok: backfill with rail + job_submit/rail within block's plus the noise"

sb_rail=$(mean "${sb[a:rail]}" "${sb[b:rail]}") sb_js=$(mean "${sb[a:rail+js]}" "${sb[b:rail+js]}")
echo "$name: sbatch round trip p50 (ms), runs a and b: topology/rail ${sb[a:rail]} and" \
  "${sb[b:rail]} (mean $sb_rail), with job_submit/rail ${sb[a:rail+js]} and ${sb[b:rail+js]}" \
  "(mean $sb_js); submit RPC mean (ms): ${rpc[a:rail]}/${rpc[b:rail]} and" \
  "${rpc[a:rail+js]}/${rpc[b:rail+js]}"
# Three views of what job_submit/rail adds to a submission:
#  - its own time in slurmctld, per call (plugin/job_submit_rail/js_stats.h): sdiag's submit RPC
#    time starts after the job_submit plugins ran, so only the plugin's own clock shows it; each
#    run's p99 at most 1 ms, without allowance;
#  - the submit RPC's time after it (Slurm's work on what the plugin set): at most 1 ms more;
#  - the client's round trip, which also holds the waits for slurmctld's locks (the keeper's
#    holds among them). Between two clusters one after another it moves by milliseconds on a
#    loaded 2-core machine (the figures above, printed only); the pairs of submissions to the
#    two clusters running side by side see the same load: the median of their differences at
#    most 1 ms.
for r in a b; do
  line=$(grep -m 1 -F -- "job_submit/rail's own p50 / p99 (ms)" "$out/$r/table.txt") ||
    fail "$out/$r/table.txt has no row for job_submit/rail's own time"
  read -r own_p50 own_p99 < <(awk -v c="${column[$r:rail+js]}" '{
      sub(/^job_submit\/rail.s own p50 \/ p99 \(ms\) +/, ""); n = split($0, f, /  +/)
      split(f[c], v, " / "); print v[1], v[2] }' <<<"$line")
  [[ $own_p99 =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "run $r: job_submit/rail's own p99 is '$own_p99' ($line)"
  echo "$name: run $r: job_submit/rail's own time per submission in slurmctld p50 $own_p50 ms, p99 $own_p99 ms"
  awk -v x="$own_p99" 'BEGIN { exit !(x <= 1.0) }' ||
    fail "run $r: job_submit/rail took $own_p99 ms per submission at p99 in slurmctld (limit 1 ms)"
done
[ "$(wc -l <"$out/a/paired.ms")" = 300 ] || fail "run a: $out/a/paired.ms does not hold 300 pairs"
sb_pairs=$(awk '{ print $2 - $1 }' "$out/a/paired.ms" | sort -g | awk '{ d[NR] = $1 } END { printf "%.2f", d[int((NR + 1) / 2)] }')
echo "$name: sbatch round trip, 300 pairs (one submission to topology/rail's cluster and one to" \
  "rail + job_submit/rail's, side by side): median of the differences $sb_pairs ms"
awk -v d="$sb_pairs" 'BEGIN { exit !(d <= 1.0) }' ||
  fail "job_submit/rail adds $sb_pairs ms to the sbatch round trip (median of 300 pairs; limit 1 ms)"
rpc_rail=$(mean "${rpc[a:rail]}" "${rpc[b:rail]}") rpc_js=$(mean "${rpc[a:rail+js]}" "${rpc[b:rail+js]}")
awk -v a="$rpc_rail" -v b="$rpc_js" 'BEGIN { exit !(b - a <= 1.0) }' ||
  fail "job_submit/rail adds $(awk -v a="$rpc_rail" -v b="$rpc_js" 'BEGIN { printf "%.2f", b - a }') ms to the submit RPC inside slurmctld (mean $rpc_rail -> $rpc_js ms; limit 1 ms)"
echo "$name: ok: job_submit/rail takes at most 1 ms per submission at p99 in slurmctld, adds at most 1 ms to the submit RPC after it ($rpc_rail -> $rpc_js ms) and to sbatch's round trip ($sb_pairs ms)"
# The keeper's restore after each start gives every node its lists: at most 32 nodes per hold
# of slurmctld's write locks (before, all 512 in one hold, 4,096 in 55-130 ms at site scale),
# and each hold short on the keeper thread's CPU (its wall time also counts waits for a CPU).
fastest="" cheapest="" restores=0
for r in a b; do
  f=$out/$r/keeper-rail_js.log
  [ -s "$f" ] || fail "no keeper stats in $f"
  # passes holds changed most cpu over: over the passes that changed features, one line
  # (fields of bench/keeper_stats.awk: 3 lock_cpu_ms, 4 changed, 5 holds, 6 most, 12
  # cpu_max_ms: the most CPU of any hold of the pass, where logged, else the CPU of its longest
  # hold in wall time); "over" counts passes with a hold over 1 ms of CPU.
  # changing: the least CPU a restore's holds that changed features took (field 16).
  read -r passes holds changed most cpu over least changing < <(awk -f "$src/bench/keeper_stats.awk" "$f" | awk '
    $4 > 0 { passes++
             c = ($12 != "-") ? $12 : $3
             if ($6 > most) most = $6
             if ($4 > changed) { changed = $4; holds = $5 }
             if (c > cpu) cpu = c
             if (passes == 1 || c < least) least = c
             if (passes == 1 || $16 < whole) whole = $16
             if (c > 1.0) over++ }
    END { printf "%d %d %d %d %.2f %d %.2f %.2f\n", passes, holds, changed, most, cpu, over, least, whole }')
  # The probe's longest stall on its CPU clock over rail + job_submit/rail's two phases (ms).
  stall=$(cat "$out/$r/stall-rail_js.txt" "$out/$r/stall-rail_js-cycles.txt" 2>/dev/null |
    sed -n 's/.*longest_ms=\([0-9.]*\).*/\1/p' | sort -g | tail -n 1)
  stall=${stall:-0}
  echo "$name: run $r: the keeper changed features in $passes passes, at most $changed nodes in" \
    "a pass, in $holds holds of the write locks, at most $most nodes in one; a hold over 1 ms" \
    "on CPU in $over of them (a pass's most CPU in one hold: at most $cpu ms, at least" \
    "$least ms; the machine's longest stall in the same phases $stall ms)"
  [ "$changed" -ge 512 ] || fail "run $r: no keeper pass gave all 512 nodes their lists ($f)"
  [ "$holds" -ge 16 ] || fail "run $r: the keeper gave 512 nodes their lists in $holds holds of the write locks (at least 16 of at most 32 nodes)"
  [ "$most" -le 32 ] || fail "run $r: the keeper changed $most nodes in one hold of the write locks (limit 32)"
  fastest=$(awk -v a="$fastest" -v c="$least" 'BEGIN { print (a == "" || c < a) ? c : a }')
  cheapest=$(awk -v a="$cheapest" -v c="$changing" 'BEGIN { print (a == "" || c < a) ? c : a }')
  restores=$((restores + passes))
done
awk -v c="$fastest" 'BEGIN { exit !(c <= 1.0) }' ||
  fail "the keeper's fastest restore of $restores held one of slurmctld's locks $fastest ms on CPU (limit 1 ms)"
echo "$name: ok: the keeper restores 512 nodes at most 32 per hold of slurmctld's write locks; the most CPU one hold of its fastest restore of $restores took: $fastest ms"
awk -v c="$cheapest" 'BEGIN { exit !(c <= 1.9) }' ||
  fail "the keeper's cheapest restore of $restores changed 512 nodes' features in $cheapest ms of its CPU under slurmctld's write locks (limit 1.9 ms; through update_node() 2.0-2.3 ms alone, by group 0.8-1.0 alone)"
echo "$name: ok: the keeper's cheapest restore of $restores changed 512 nodes' features in $cheapest ms of its CPU under slurmctld's write locks (limit 1.9 ms)"
echo "$name: PASS (${SECONDS} s)"
