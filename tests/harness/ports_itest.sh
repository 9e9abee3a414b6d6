#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: COST=2
# The harness's port claims (tests/harness/cluster.sh: _rg_claim_ports) while another run
# stops, as CTest runs four integration tests side by side. A run that stops releases its
# claim without the registry's lock, so a claim can vanish between a starting run's glob of
# the registry and its read of that claim: CI failed a cluster start on "head: cannot open
# .../railguard-harness-ports/....claim". Four runs at once did not hit that window in 600
# rounds here, so this test makes it happen: `head` removes the claim it is asked to read
# just before reading it, as the stopping run would. The start's claim must succeed, get
# ports the stopped run no longer holds, and not take a live run's ports. No Slurm needed.
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
name=ports_itest
# shellcheck source=cluster.sh
source "$src/tests/harness/cluster.sh"

TMPDIR=$(mktemp -d)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT

# claim_as DIR COUNT: a run directory with the harness's marker, and its claim (the stopping
# and the live run).
claim_as() {
  mkdir -p "$1"
  touch "$1/$_RG_MARKER"
  _rg_claim_ports "$2" "$1"
}

claim_as "$TMPDIR/live" 2
live=("${_rg_ports[@]}")
claim_as "$TMPDIR/stopping" 2
stopping_claim=$(cat "$TMPDIR/stopping/ports.claim")

# The starting run, in a shell of its own as a test's start runs (errexit on: in this one a
# command under `if` would run with it off). Its `head` removes the stopping run's claim just
# before reading it: the stopping run released it between the glob and the read.
export RG_PORTS_SRC=$src RG_PORTS_STOPPING=$stopping_claim RG_PORTS_DIR=$TMPDIR/starting
if ! bash -c '
  set -euo pipefail
  source "$RG_PORTS_SRC/tests/harness/cluster.sh"
  head() {
    local last=${!#}
    [ "$last" != "$RG_PORTS_STOPPING" ] || rm -f "$last"
    command head "$@"
  }
  mkdir -p "$RG_PORTS_DIR"
  touch "$RG_PORTS_DIR/$_RG_MARKER"
  _rg_claim_ports 3 "$RG_PORTS_DIR"
' 2>"$TMPDIR/err"; then
  echo "$name: FAIL: a claim failed while another run released its own: $(cat "$TMPDIR/err")"
  exit 1
fi
[ ! -e "$stopping_claim" ] || { echo "$name: FAIL: the stopping run's claim was not read (the test did not race)"; exit 1; }
mapfile -t got < <(tail -n +2 "$(cat "$TMPDIR/starting/ports.claim")")
[ "${#got[@]}" = 3 ] || { echo "$name: FAIL: the claim holds ${#got[@]} ports, expected 3"; exit 1; }
for p in "${got[@]}"; do
  for q in "${live[@]}"; do
    [ "$p" != "$q" ] || { echo "$name: FAIL: port $p claimed twice (the live run holds it)"; exit 1; }
  done
done
echo "$name: ok: a run's claim succeeded while another run released its own between the registry's glob and the read; its 3 ports are none of the live run's"
echo "$name: PASS (${SECONDS} s)"
