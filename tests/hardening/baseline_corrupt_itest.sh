#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=100
# A truncated, a corrupt and a cut run-state file, on the real cluster, and the way back:
#  - n008's baseline.json cut in half: the Prolog of a job sent there cannot judge (exit 4), so
#    Slurm requeues the job and drains n008 "Prolog error"; railcheck by hand says which file,
#    where it broke, the form expected and the way out; `railcheck baseline` replaces it (before
#    the fix it refused, on the very error whose way out it is); once an admin resumes n008 the
#    job completes there and its Prolog runs again;
#  - n009's baseline.json replaced by text that is not JSON: the same message, the same way out;
#  - n010's state.json cut short: "corrupt run state", the way out is to delete it, and the
#    next run starts a new record.
# Policy (healthcheck/README.md): railcheck stops on a record it cannot read instead of
# judging without it, and never rewrites one outside `railcheck baseline`.
# About 20 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"

rgh_fixtures
rgh_configs
rgh_start

# by_hand NODE ARGS...: railcheck for NODE as an admin runs it there; exit code in $rc,
# output in $rgp_tmp/hand.out.
by_hand() {
  local node=$1
  shift
  rc=0
  env -i PATH=/usr/bin:/bin SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
    "$rgh_railcheck" --node "$node" "$@" >"$rgp_tmp/hand.out" 2>&1 || rc=$?
}
# expect_rc WHAT WANT: fails unless the last by_hand exited WANT.
expect_rc() {
  [ "$rc" = "$2" ] || rgp_fail "$1: exit $rc, expected $2: $(cat "$rgp_tmp/hand.out")"
}

for node in n008 n009 n010; do
  by_hand "$node" baseline
  expect_rc "railcheck baseline on $node" 0
done

# --- n008: a baseline cut in half --------------------------------------------------------------
file=$rgh_state/n008/baseline.json
size=$(stat -c %s "$file")
truncate -s $((size / 2)) "$file"
job=$(rgp_submit -N1 -w n008 --wrap 'echo ran')
rgh_wait "n008 drained after its Prolog failed" 30 rgh_drained n008
rgp_expect_eq "n008's reason" "$(rgh_reason n008)" "Prolog error"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
rgp_ok "truncated baseline: the Prolog could not judge; Slurm requeued job $job and drained n008 'Prolog error'"
by_hand n008 --dry-run
expect_rc "railcheck --dry-run on n008" 4
msg=$(cat "$rgp_tmp/hand.out")
[[ $msg == "railcheck: corrupt baseline: $file:"*": syntax error while parsing "*"; expected the JSON railcheck writes (recover: record a new baseline with \`railcheck baseline\`, or delete $file to judge error rates since the last run only)" ]] ||
  rgp_fail "railcheck on n008 says: $msg"
rgp_ok "railcheck by hand: ${msg:0:150}..."
by_hand n008 baseline
expect_rc "railcheck baseline over the truncated one" 0
grep -qF "slurm: replacing the corrupt baseline: $file:" "$rgp_tmp/hand.out" ||
  rgp_fail "railcheck baseline does not say it replaced the corrupt one: $(cat "$rgp_tmp/hand.out")"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["node"] == "n008"' "$file" ||
  rgp_fail "the new baseline of n008 is not whole"
rgp_ok "railcheck baseline replaced it: $(grep 'replacing' "$rgp_tmp/hand.out" | cut -c1-120)..."
runs=$(rgh_state n008 runs)
scontrol update NodeName=n008 State=RESUME
rgp_wait_state "$job" COMPLETED 60
rgh_wait "n008's Prolog and Epilog in railcheck's state" 10 rgh_state_at_least n008 runs $((runs + 2))
rgh_drained n008 && rgp_fail "n008 drained again: $(rgh_reason n008)"
rgp_ok "resumed by hand, n008 ran job $job; its Prolog and Epilog ran railcheck again"

# --- n009: a baseline that is not JSON ---------------------------------------------------------
file=$rgh_state/n009/baseline.json
printf 'baseline: yes\n' >"$file"
by_hand n009 --periodic
expect_rc "railcheck --periodic on n009" 4
msg=$(cat "$rgp_tmp/hand.out")
[[ $msg == "railcheck: corrupt baseline: $file:1:1: syntax error while parsing value - invalid literal; last read: 'b'; expected the JSON railcheck writes (recover: record a new baseline with \`railcheck baseline\`, or delete $file"* ]] ||
  rgp_fail "railcheck on n009 says: $msg"
by_hand n009 baseline
expect_rc "railcheck baseline over the garbage one" 0
by_hand n009 --periodic
expect_rc "railcheck --periodic on n009 after the new baseline" 0
rgp_ok "a baseline that is not JSON: named with line and column; railcheck baseline replaced it"

# --- n010: a run state cut short ---------------------------------------------------------------
by_hand n010 --periodic
expect_rc "railcheck --periodic on n010" 0
file=$rgh_state/n010/state.json
truncate -s 100 "$file"
by_hand n010 --periodic
expect_rc "railcheck --periodic on n010 with a cut state" 4
msg=$(cat "$rgp_tmp/hand.out")
[[ $msg == "railcheck: corrupt run state: $file:"*"; expected the JSON railcheck writes (recover: delete $file; railcheck starts a new record at its next run: rates count from then, and a node it drained needs its clean runs again)" ]] ||
  rgp_fail "railcheck on n010 says: $msg"
[ "$(stat -c %s "$file")" = 100 ] || rgp_fail "railcheck rewrote the corrupt state.json"
rm "$file"
by_hand n010 --periodic
expect_rc "railcheck --periodic on n010 after deleting state.json" 0
rgp_expect_eq "runs in n010's new record" "$(rgh_state n010 runs)" 1
rgp_ok "a cut state.json: named, left as it was; deleted, the next run starts a new record"
rgp_done
