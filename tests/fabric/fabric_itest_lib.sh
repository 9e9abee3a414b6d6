#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/fabric/*_itest.sh: pass/fail lines, railctl, and the simulated fabric of a
# rail topology (tests/harness/fabric.sh).
_rgf_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RGF_SRC=${RAILGUARD_SOURCE_DIR:-$(cd "$_rgf_here/../.." && pwd)}
RGF_BIN=${RAILGUARD_BINARY_DIR:-$RGF_SRC/build}
RGF_RAILCTL=$RGF_BIN/railctl
# shellcheck source=../harness/fabric.sh
source "$RGF_SRC/tests/harness/fabric.sh"

rgf_fail() {
  echo "FAIL: $*" >&2
  if [ -n "${RAILGUARD_FABRIC_DIR:-}" ]; then
    tail -n 5 "$RAILGUARD_FABRIC_DIR/ibsim.out" >&2 || true
  fi
  exit 1
}
rgf_ok() { echo "ok: $*"; }

# rgf_expect_eq WHAT ACTUAL EXPECTED
rgf_expect_eq() {
  [ "$2" = "$3" ] || rgf_fail "$1: got '$2', expected '$3'"
}

# rgf_hdr_topology OUT [SRC]: SRC (default etc/dev-4su.yaml) with its NDR or XDR rails at 4X
# HDR. Debian 12's ibsim (0.10) models link speeds up to HDR: an NDR port comes up at 4xSDR
# ("cannot parse speed").
rgf_hdr_topology() {
  local src=${2:-$RGF_SRC/etc/dev-4su.yaml}
  sed -E 's/rate_gbps: [0-9]+, width: 4X, speed: (NDR|XDR)/rate_gbps: 200, width: 4X, speed: HDR/' \
    "$src" >"$1"
  grep -q 'speed: HDR' "$1" || rgf_fail "could not make an HDR variant of $src"
}

# rgf_discover_dump OPT...: ibnetdiscover's dump of the running fabric into $work/dump.txt,
# then `railctl topology discover` of it with OPT... into $work/text.yaml (stderr in
# $work/text.err), which must exit 1 (the fabric has findings).
rgf_discover_dump() {
  local rc=0
  rg_fabric_run ibnetdiscover >"$work/dump.txt" 2>"$work/dump.err" ||
    rgf_fail "ibnetdiscover failed: $(cat "$work/dump.err")"
  "$RGF_RAILCTL" topology discover "$work/dump.txt" "$@" -o "$work/text.yaml" \
    2>"$work/text.err" || rc=$?
  rgf_expect_eq "exit of discover on the dump (findings)" "$rc" 1
}

# rgf_start_dev4su [SIMULATE-OPTION...]: a work directory ($work, removed on exit with the
# fabric), the HDR dev-4su topology ($work/topo.yaml), its simulated fabric ($work/fabric.net,
# `railctl topology simulate` with the options given: faults, --cores, ...) up under ibsim +
# opensm.
rgf_start_dev4su() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/railguard-fabric-itest.XXXXXX")
  trap 'rg_fabric_stop; rm -rf "$work"' EXIT
  rgf_hdr_topology "$work/topo.yaml"
  "$RGF_RAILCTL" topology simulate "$work/topo.yaml" "$@" -o "$work/fabric.net"
  rg_fabric_start --no-trap "$work/fabric.net" || rgf_fail "the simulated fabric did not come up"
}

# rgf_healthy_snapshot FILE: a railguard snapshot of the dev-4su nodes n001-n032, every one
# idle with railcheck ok on all 8 rails (the host ends see nothing), for `railctl report`.
rgf_healthy_snapshot() {
  python3 - "$1" <<'PY'
import json, sys, time
t = int(time.time())
extra = json.dumps({"railcheck": {"time": t, "verdict": "ok", "rails": ["ok"] * 8, "failed": []}})
nodes = [{"name": "n%03d" % i, "state": "idle", "flags": [], "reason": "", "reason_time": 0,
          "reason_user": "", "features": "su%d,rail_healthy" % ((i - 1) // 8 + 1),
          "features_act": "", "extra": extra} for i in range(1, 33)]
json.dump({"railguard_snapshot": 1, "time": t, "source": "itest", "slurm_cluster": "raildev",
           "nodes": nodes, "jobs": []}, open(sys.argv[1], "w"))
PY
}
