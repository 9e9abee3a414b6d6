#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=75
# railcheck SIGKILLed while it writes its state, on the real cluster (node n007):
#  - at three points of replacing state.json, made exact by an LD_PRELOAD shim (crash_at.cc):
#    half-way through writing the new file, before the rename, right after the rename. Each
#    time state.json is whole afterwards, the old record (the first two) or the new one (the
#    third), never a mix; the next run works, counts on from it and removes the leftover;
#  - the same half-way through `railcheck baseline`: the old baseline stays whole;
#  - 40 runs SIGKILLed at random moments: state.json parses after every one and its run count
#    never goes back;
#  - then a normal Prolog run: exit 0, nothing left over, rail_healthy on n007.
# railcheck does its work in a child process (healthcheck/isolate.h): the shim kills the child
# that writes, and the parent answers Slurm with exit 4 (could not judge), naming the signal.
# About 15 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"

shim=$rgp_tmp/crash_at.so
g++ -O1 -shared -fPIC -o "$shim" "$here/crash_at.cc" -ldl || rgp_fail "could not build $here/crash_at.cc"
rgh_fixtures
rgh_configs
rgh_start
dir=$rgh_state/n007
state=$dir/state.json

# run MODE-ARGS...: railcheck for n007 as slurmd runs it; its exit code in $rc. With $crash set, the shim kills it at that point of writing a path containing $crash_path.
run() {
  local -a shim_env=()
  [ -z "$crash" ] ||
    shim_env=(LD_PRELOAD="$shim" RAILGUARD_CRASH_AT="$crash" RAILGUARD_CRASH_PATH="$crash_path")
  env -i PATH=/usr/bin:/bin SLURMD_NODENAME=n007 SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
    "${shim_env[@]}" "$rgh_railcheck" "$@" >"$rgp_tmp/run.out" 2>&1 &
  rc=0
  wait "$!" 2>/dev/null || rc=$?  # quiet: bash reports a job that a signal ended
}
# killed_child_said WHAT: the run whose child the shim killed ended with exit 4 and said so.
killed_child_said() {
  rgp_expect_eq "exit status of railcheck, its child $1" "$rc" 4
  grep -q "ended without a result (signal 9)" "$rgp_tmp/run.out" ||
    rgp_fail "railcheck, its child $1, did not say the child was killed: $(cat "$rgp_tmp/run.out")"
}
# runs_in FILE: the run count of a state file; fails the test unless it is whole JSON.
runs_in() {
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"])' "$1" 2>"$rgp_tmp/json.err" ||
    rgp_fail "$1 is not whole: $(cat "$rgp_tmp/json.err"); starts: $(head -c 200 "$1")"
}
leftovers() { find "$dir" -name '.*.tmp.*' | wc -l; }

crash="" crash_path=""
run baseline
[ "$rc" = 0 ] || rgp_fail "railcheck baseline: exit $rc: $(cat "$rgp_tmp/run.out")"
run --periodic
[ "$rc" = 0 ] || rgp_fail "railcheck --periodic: exit $rc: $(cat "$rgp_tmp/run.out")"
rgp_ok "n007: baseline and a first periodic run ($(runs_in "$state") runs in state.json)"

# --- exact crash points ----------------------------------------------------------------------
for point in write rename renamed; do
  crash=$point
  cp "$state" "$rgp_tmp/state.before"
  before=$(runs_in "$state")
  crash_path=/state.json
  [ "$crash" != write ] || crash_path=/.state.json.tmp.
  run --periodic
  killed_child_said "killed at $crash"
  after=$(runs_in "$state")
  if [ "$crash" = renamed ]; then
    rgp_expect_eq "runs after a kill right after the rename" "$after" $((before + 1))
    rgp_expect_eq "leftover temporaries after a kill right after the rename" "$(leftovers)" 0
    what="the new record ($after runs)"
  else
    cmp -s "$state" "$rgp_tmp/state.before" ||
      rgp_fail "state.json changed although railcheck was killed at $crash, before the rename"
    rgp_expect_eq "leftover temporaries after a kill at $crash" "$(leftovers)" 1
    what="the old record byte for byte ($after runs), the new one a temporary beside it"
  fi
  crash=""
  run --periodic
  [ "$rc" = 0 ] || rgp_fail "the run after a kill at $point: exit $rc: $(cat "$rgp_tmp/run.out")"
  rgp_expect_eq "runs after the next run" "$(runs_in "$state")" $((after + 1))
  rgp_expect_eq "leftover temporaries after the next run" "$(leftovers)" 0
  rgp_ok "killed at $point: state.json is $what; the next run counts on and cleans up"
done

# --- the baseline ----------------------------------------------------------------------------
cp "$dir/baseline.json" "$rgp_tmp/baseline.before"
crash=write crash_path=/.baseline.json.tmp.
run baseline
crash=""
killed_child_said "baseline killed while writing"
cmp -s "$dir/baseline.json" "$rgp_tmp/baseline.before" ||
  rgp_fail "baseline.json changed although railcheck baseline was killed before its rename"
[ -n "$(find "$dir" -name '.baseline.json.tmp.*')" ] ||
  rgp_fail "railcheck baseline was not killed while writing: no temporary left"
run --periodic
[ "$rc" = 0 ] || rgp_fail "the run after the killed baseline: exit $rc: $(cat "$rgp_tmp/run.out")"
grep -q "link.counters" "$rgp_tmp/run.out" &&
  rgp_fail "the run after the killed baseline does not use the old one: $(cat "$rgp_tmp/run.out")"
rgp_ok "railcheck baseline killed half-way: the old baseline.json is whole and in use"
run baseline
[ "$rc" = 0 ] || rgp_fail "railcheck baseline again: exit $rc: $(cat "$rgp_tmp/run.out")"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/baseline.json" ||
  rgp_fail "the new baseline.json is not whole"
rgp_expect_eq "leftover temporaries after railcheck baseline again" "$(leftovers)" 0
rgp_ok "railcheck baseline again: a whole new baseline, the temporary of the killed one removed"

# --- SIGKILL at random moments ---------------------------------------------------------------
t0=$(date +%s%N)
run --periodic
ms=$((($(date +%s%N) - t0) / 1000000))
last=$(runs_in "$state")
written=0
for ((i = 0; i < 40; i++)); do
  env -i PATH=/usr/bin:/bin SLURMD_NODENAME=n007 SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
    "$rgh_railcheck" --periodic >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%03d' $((RANDOM % (ms + 5))))"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  now=$(runs_in "$state")
  [ "$now" -ge "$last" ] || rgp_fail "run count went back from $last to $now after kill $i"
  [ "$now" = "$last" ] || written=$((written + 1))
  last=$now
done
rgp_ok "40 runs SIGKILLed at random within a run's $ms ms: state.json whole after each ($written got to write it)"

run --prolog
[ "$rc" = 0 ] || rgp_fail "the Prolog after the kills: exit $rc: $(cat "$rgp_tmp/run.out")"
rgp_expect_eq "leftover temporaries at the end ($(find "$dir" -name '.*.tmp.*' -printf '%f '))" \
  "$(leftovers)" 0
[[ ,$(rgh_features n007), == *,rail_healthy,* ]] || rgp_fail "n007 lacks rail_healthy: $(rgh_features n007)"
rgh_drained n007 && rgp_fail "n007 drained: $(rgh_reason n007)"
rgp_ok "the Prolog after all that: exit 0, no leftovers, n007 healthy and not drained"
rgp_done
