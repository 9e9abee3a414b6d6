#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=100
# railcheck's state folder full, on the real cluster: n006's health.state_dir is a 64 KiB tmpfs
# (needs root), filled to the last byte after a first run. The policy this checks
# (healthcheck/README.md): railcheck drains for what it finds in the hardware, never for its own
# disk; a record it cannot write is reported and left as it was.
#  - a job on n006 runs: its Prolog and Epilog judge the healthy node, cannot write state.json
#    and still exit 0; n006 is not drained; state.json is byte for byte the one from before and
#    no temporary is left;
#  - railcheck-periodic by hand: Slurm is still updated (rail_healthy), exit 4 and one line
#    naming the file, the cause (No space left on device) and that state.json is unchanged;
#  - rail 1 goes down while the disk is full: the Prolog still drains n006 with railcheck's
#    reason (the hardware decides) and the job runs elsewhere;
#  - space freed and rail 1 repaired: runs record again and n006 is resumed after its 3 clean
#    runs, counted from when they could be recorded.
# About 15 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"

[ "$(id -u)" = 0 ] || rgp_fail "needs root to mount a tmpfs"
mnt=$rgh_state/n006
mkdir -p "$mnt"
mount -t tmpfs -o size=64k,mode=0755 railguard-itest-full "$mnt" || rgp_fail "cannot mount a tmpfs on $mnt"
# The mount goes before the run directory is removed; the exit status stays the test's.
cleanup() {
  local rc=$?
  umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
  rgp_cleanup
  return "$rc"
}
trap cleanup EXIT

rgh_fixtures
rgh_configs
rgh_start
# n007 checked healthy once: multi-node jobs get only nodes railcheck found healthy.
rgh_checked_healthy n007

# by_hand ARGS...: railcheck-periodic on n006 as slurmd runs it; exit code in $rc.
by_hand() {
  rc=0
  rgf_periodic n006 || rc=$?
}
leftovers() { find "$mnt" -name '.*.tmp.*' | wc -l; }
runs() { rgh_state n006 runs; }

by_hand
[ "$rc" = 0 ] || rgp_fail "first run on n006: exit $rc: $(cat "$rgp_tmp/periodic-n006.out")"
cp "$mnt/state.json" "$rgp_tmp/state.before"
dd if=/dev/zero of="$mnt/fill" bs=4k 2>/dev/null || true  # until the disk is full
rgp_expect_eq "free blocks on n006's state disk" "$(stat -f -c %a "$mnt")" 0
rgp_ok "n006's state_dir is a full tmpfs; state.json holds $(runs) run(s)"

# --- a job on the healthy node --------------------------------------------------------------
job=$(rgp_submit -N1 -w n006 --wrap 'echo ran')
rgp_wait_state "$job" COMPLETED 60
sleep 1  # the Epilog
rgh_drained n006 && rgp_fail "n006 drained with a full state disk: $(rgh_reason n006)"
cmp -s "$mnt/state.json" "$rgp_tmp/state.before" || rgp_fail "state.json changed on a full disk"
rgp_expect_eq "temporaries left on the full disk" "$(leftovers)" 0
rgp_ok "job $job completed on n006; Prolog and Epilog exit 0; state.json untouched; not drained"

by_hand
rgp_expect_eq "railcheck-periodic exit code on a full disk" "$rc" 4
want="error: cannot write $mnt/.state.json.tmp.[0-9]*: No space left on device; $mnt/state.json is left as it was"
grep -qx -- "$want" "$rgp_tmp/periodic-n006.out" ||
  rgp_fail "railcheck-periodic does not say: $want"$'\n'"it said: $(cat "$rgp_tmp/periodic-n006.out")"
[[ ,$(rgh_features n006), == *,rail_healthy,* ]] || rgp_fail "n006 lacks rail_healthy: $(rgh_features n006)"
cmp -s "$mnt/state.json" "$rgp_tmp/state.before" || rgp_fail "state.json changed on a full disk"
rgp_ok "periodic: exit 4, says: $(grep '^error: cannot write' "$rgp_tmp/periodic-n006.out")"

# --- a real fault while the disk is full ----------------------------------------------------
rgh_node_tree n006 --fault port-down:1
job=$(rgp_submit -N2 -w n006,n007 --wrap 'true')
rgh_wait "n006 drained by its Prolog" 30 rgh_drained n006
rgp_expect_eq "n006's reason" "$(rgh_reason n006)" "railcheck: rail1 mlx5_3 phys_state 3 (Disabled) != 5 LinkUp (+1 more)"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
scancel "$job"
cmp -s "$mnt/state.json" "$rgp_tmp/state.before" || rgp_fail "state.json changed on a full disk"
rgp_ok "rail 1 down on a full disk: the Prolog drained n006: $(rgh_reason n006)"

# --- space back, rail repaired --------------------------------------------------------------
rm "$mnt/fill"
rgh_node_tree n006
before=$(runs)
for i in 1 2 3; do
  by_hand
  [ "$rc" = 0 ] || rgp_fail "periodic run $i after the repair: exit $rc: $(cat "$rgp_tmp/periodic-n006.out")"
  rgp_expect_eq "runs recorded after periodic run $i" "$(runs)" $((before + i))
  if [ "$i" -lt 3 ]; then
    rgh_drained n006 || rgp_fail "n006 resumed after only $i clean run(s)"
  fi
done
rgh_drained n006 && rgp_fail "n006 still drained after 3 clean runs: $(rgh_reason n006)"
rgp_ok "space freed and rail 1 repaired: runs recorded again, n006 resumed at the 3rd clean run"
rgp_done
