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

# rgf_hdr_topology OUT: etc/dev-4su.yaml with its rails at 4X HDR. Debian 12's ibsim (0.10)
# models link speeds up to HDR: an NDR port comes up at 4xSDR ("cannot parse speed").
rgf_hdr_topology() {
  sed 's/rate_gbps: 400, width: 4X, speed: NDR/rate_gbps: 200, width: 4X, speed: HDR/' \
    "$RGF_SRC/etc/dev-4su.yaml" >"$1"
  grep -q 'speed: HDR' "$1" || rgf_fail "could not make an HDR variant of etc/dev-4su.yaml"
}

# rgf_start_dev4su: a work directory ($work, removed on exit with the fabric), the HDR dev-4su
# topology ($work/topo.yaml), its simulated fabric ($work/fabric.net) up under ibsim + opensm.
rgf_start_dev4su() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/railguard-fabric-itest.XXXXXX")
  trap 'rg_fabric_stop; rm -rf "$work"' EXIT
  rgf_hdr_topology "$work/topo.yaml"
  "$RGF_RAILCTL" topology simulate "$work/topo.yaml" -o "$work/fabric.net"
  rg_fabric_start --no-trap "$work/fabric.net" || rgf_fail "the simulated fabric did not come up"
}
