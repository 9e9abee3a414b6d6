#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railctl topology discover --live on a fabric with several leaves per rail in an SU (one-hop
# domains, issue 14): tests/data/topo/b300-2su.yaml (2 SUs of 32 nodes, two leaves per rail of
# 16 nodes each) with its rails at 4X HDR (Debian 12's ibsim models speeds up to HDR) and two
# spines to join the leaves into one subnet, with n017's rail-0 and rail-1 cables swapped, served
# by ibsim and brought up by opensm. Discovery through libibnetdisc gives the same YAML and
# findings as discovery of ibnetdiscover's dump: 2 SUs of 2 one-hop domains each, the YAML the
# source, and two rail-mismatch findings on su1-d2's leaves.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/railguard-fabric-itest.XXXXXX")
trap 'rg_fabric_stop; rm -rf "$work"' EXIT
rgf_hdr_topology "$work/topo.yaml" "$RGF_SRC/tests/data/topo/b300-2su.yaml"
printf 'spines:\n  - {name: spine1}\n  - {name: spine2}\n' >>"$work/topo.yaml"
"$RGF_RAILCTL" topology simulate "$work/topo.yaml" --swap n017:0:1 -o "$work/fabric.net"
rg_fabric_start --no-trap "$work/fabric.net" || rgf_fail "the simulated fabric did not come up"

opts=(--cluster b300dev --node-type dgx-b300)
rgf_discover_dump "${opts[@]}"
rc=0
rg_fabric_run "$RGF_RAILCTL" topology discover --live "${opts[@]}" -o "$work/live.yaml" \
  2>"$work/live.err" || rc=$?
rgf_expect_eq "exit of discover --live (findings)" "$rc" 1
grep -q 'discovered 2 scalable units (4 one-hop domains), 64 hosts, 8 rails, 32 leaves and 2 spines' \
  "$work/live.err" || rgf_fail "discover --live summary: $(tail -n1 "$work/live.err")"
rgf_ok "discover --live: $(tail -n1 "$work/live.err")"

findings() { grep -v -e ': discovered ' -e '^ibwarn: ' "$1"; }
diff <(findings "$work/text.err") <(findings "$work/live.err") ||
  rgf_fail "discover --live's findings differ from discover's on the dump"
rgf_expect_eq "findings" "$(findings "$work/live.err" | grep -c .)" 2
rgf_expect_eq "rail-mismatch findings on su1-d2's leaves" \
  "$(grep -c '^rail-mismatch: n017 mlx5_[01] is cabled to su1-r[01]-b port 1, ' "$work/live.err")" 2
cmp "$work/text.yaml" "$work/live.yaml" || rgf_fail "discover --live's YAML differs from discover's"
diff <("$RGF_RAILCTL" topology show "$work/live.yaml") \
  <("$RGF_RAILCTL" topology show "$work/topo.yaml") ||
  rgf_fail "the topology discovered live differs from the YAML it was simulated from"
rgf_ok "same YAML and findings (2 rail-mismatch) live and from the dump; YAML = source, 4 domains"
echo "PASS"
