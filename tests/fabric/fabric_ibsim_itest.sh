#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The simulated fabric of a rail topology: `railctl topology simulate` writes etc/dev-4su.yaml
# (rails at HDR, see rgf_hdr_topology) as ibnetdiscover text, ibsim serves it, opensm brings it
# up, and ibnetdiscover run through libumad2sim sees every switch, HCA and link with its
# description, width and speed; `railctl topology discover` turns that dump back into the
# same SUs, rails, leaves and spines. Stopping the harness ends ibsim and opensm.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

rgf_start_dev4su
dir=$RAILGUARD_FABRIC_DIR
ibsim_pid=$(cat "$dir/ibsim.pid")
osm_pid=$(cat "$dir/opensm.pid")
rgf_ok "ibsim ($ibsim_pid) and opensm ($osm_pid) up on a fabric of $(grep -c '^Switch' "$work/fabric.net") switches"
if grep -q 'cannot parse' "$dir/ibsim.out"; then rgf_fail "ibsim could not parse the netfile"; fi

start=$(date +%s%N)
rg_fabric_run ibnetdiscover >"$work/disc.out" 2>"$work/disc.err" ||
  rgf_fail "ibnetdiscover failed: $(cat "$work/disc.err")"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
rgf_expect_eq "switches ibnetdiscover saw" "$(grep -c '^Switch' "$work/disc.out")" 34
rgf_expect_eq "CAs ibnetdiscover saw" "$(grep -c '^Ca' "$work/disc.out")" 256
rgf_expect_eq "links not at 4xHDR" "$(grep '^\[' "$work/disc.out" | grep -vc '4xHDR' || true)" 0
grep -q '"n017 mlx5_5"' "$work/disc.out" || rgf_fail "no HCA described 'n017 mlx5_5' (rdma-ndd form)"
grep -q '"MF0;su3-rail2:MQM8700/U1"' "$work/disc.out" || rgf_fail "no leaf described su3-rail2"
# opensm gave every port a LID: no "lid 0" anywhere.
if grep -q ' lid 0 ' "$work/disc.out"; then rgf_fail "a port without a LID: opensm did not configure it"; fi
rgf_ok "ibnetdiscover through ibsim: 34 switches, 256 HCAs, every link 4xHDR, in $ms ms"

"$RGF_RAILCTL" topology discover "$work/disc.out" --cluster raildev --node-type dgx-h100 \
  -o "$work/disc.yaml" 2>"$work/discover.err" || rgf_fail "discover: $(cat "$work/discover.err")"
diff <("$RGF_RAILCTL" topology show "$work/disc.yaml") <("$RGF_RAILCTL" topology show "$work/topo.yaml") ||
  rgf_fail "the topology discovered through ibsim differs from the YAML it was generated from"
rgf_ok "railctl topology discover of the ibsim fabric gives back the rail topology"

rg_fabric_stop
for pid in "$ibsim_pid" "$osm_pid"; do
  if kill -0 "$pid" 2>/dev/null; then rgf_fail "pid $pid still runs after rg_fabric_stop"; fi
done
[ ! -e "$dir" ] || rgf_fail "$dir left behind"
rgf_ok "rg_fabric_stop ended ibsim and opensm and removed $dir"
echo "PASS"
