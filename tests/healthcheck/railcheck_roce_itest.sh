#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane2 COST=130
# A flapping RoCE link on the real cluster: every node's rails are RoCE (ports/1/link_layer
# Ethernet, each with its netdev in class/net: operstate, carrier_changes and speed as
# net/core/net-sysfs.c prints them, named by ports/1/gid_attrs/ndevs/0 as
# drivers/infiniband/core/sysfs.c does), health.link_layer Ethernet. Rail 2's netdev of n007
# loses its carrier again and again for 30 s (carrier_changes rises by 2 a flap, operstate
# stays up between the samples, as after a quick bounce), with railcheck as
# HealthCheckProgram every 5 s. n007 is drained once by eth.flap, stays drained with one
# unchanged reason while the link flaps, and is resumed after 3 stable runs; the other nodes,
# RoCE too, stay healthy.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

# roce_tree DIR: turns the IB fixture tree DIR into a RoCE one: port 1 of every NIC is
# Ethernet, with the netdev enp<k>s0np0 up at 400000 Mb/s and 4 carrier changes since boot.
roce_tree() {
  local dir=$1 dev k=0
  for dev in "$dir"/class/infiniband/*; do
    local nd=enp${k}s0np0
    printf 'Ethernet\n' >"$dev/ports/1/link_layer"
    mkdir -p "$dev/ports/1/gid_attrs/ndevs" "$dir/class/net/$nd"
    printf '%s\n' "$nd" >"$dev/ports/1/gid_attrs/ndevs/0"
    printf 'up\n' >"$dir/class/net/$nd/operstate"
    printf '4\n' >"$dir/class/net/$nd/carrier_changes"
    printf '400000\n' >"$dir/class/net/$nd/speed"
    k=$((k + 1))
  done
}

rgh_fixtures
roce_tree "$rgh_sys/healthy"
rgh_node_tree n007
roce_tree "$rgh_sys/n007"
rgh_configs "link_layer: Ethernet"
rgh_health_check 5
rgh_start

# The netdev of n007's rail 2 (mlx5_4 in the node type's NIC list).
nic=mlx5_4
nd=$(cat "$rgh_sys/n007/class/infiniband/$nic/ports/1/gid_attrs/ndevs/0")
rgp_ok "flapping $nd, the netdev of n007's $nic"

# A healthy RoCE cluster first: no node drained by railcheck.
rgh_wait "n007's first railcheck runs" 30 rgh_state_at_least n007 runs 2
! rgh_drained n007 || rgp_fail "healthy RoCE node n007 drained: $(rgh_reason n007)"
! rgh_drained n001 || rgp_fail "healthy RoCE node n001 drained: $(rgh_reason n001)"
rgp_ok "RoCE nodes healthy before the flap"

flap() {
  local i
  for ((i = 1; i <= 20; i++)); do
    rgh_set n007 "class/net/$nd/carrier_changes" "$((4 + 2 * i))"
    sleep 1.5
  done
}
flap &
flapper=$!
trap 'kill "$flapper" 2>/dev/null || true; rgp_cleanup' EXIT

rgh_watch_flapping_drain "$flapper" n007 "RoCE link"
first=$rgh_first samples=$rgh_samples runs_at_drain=$rgh_runs_at_drain
case $first in
  *"railcheck: rail2 $nic $nd link flapping"*) ;;
  *) rgp_fail "n007's reason does not name the flapping netdev: '$first'" ;;
esac
runs=$(rgh_state n007 runs)
rgp_ok "drained as '$first'; unchanged over $samples samples and" \
  "$((runs - runs_at_drain)) more railcheck runs"
rgp_expect_eq "railcheck's drains of n007 while flapping" "$(rgh_state n007 drains)" "1"
rgp_ok "n007 drained exactly once"
! rgh_drained n001 || rgp_fail "n001 drained too: $(rgh_reason n001)"

# Stable again (carrier_changes no longer rising): 3 clean runs, then resumed.
resumed() { ! rgh_drained n007; }
rgh_wait "n007 resumed after the RoCE link settled" 60 resumed
rgh_wait "n007's state after its resume" 10 rgh_state_at_least n007 resumes 1
rgp_expect_eq "drains of n007" "$(rgh_state n007 drains)" "1"
rgp_expect_eq "resumes of n007" "$(rgh_state n007 resumes)" "1"
rgp_ok "n007 resumed once"
rgp_done
