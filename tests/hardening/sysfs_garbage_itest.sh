#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1,railcheck_lane2 COST=100
# Garbage in sysfs, on the real cluster: rail 2 of n005 reads escape sequences, a bell, binary
# bytes, a counter past 64 bits and a PCIe width without its number; n006 has the same plus a
# FIFO as rail 3's rate (a read that blocks, as a hung driver read would).
#  - n005's Prolog (by Slurm, for a job sent there) drains it with a reason that says the port
#    state is unreadable, printable and short; Extra is valid JSON with rail 2 down; the job is
#    requeued;
#  - railcheck-prolog by hand on n006 ends with exit 1 once the hung read and its two re-reads
#    have each hit the 300 ms read limit (timed against a healthy node's Prolog run just
#    before, so that a loaded machine does not fail the test), with a report that
#    names both the unreadable files (what they held, made printable, and the form expected)
#    and the read that timed out; every line of it printable.
# tests/healthcheck/railcheck_hang_itest.sh covers the FIFO alone through Slurm.
# About 10 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fault_lib.sh
source "$here/fault_lib.sh"
rgh_read_timeout_ms=300  # this test times the read limit itself

# garbage NODE NIC: writes garbage into NIC's port files and its PCI function's files.
garbage() {
  local port=$rgh_sys/$1/class/infiniband/$2/ports/1 pci
  pci=$(readlink -f "$rgh_sys/$1/class/infiniband/$2/device")
  printf '4: ACT\aIVE\033[2J\n' >"$port/state"
  printf '\033]0;owned\007InfiniBand\n' >"$port/link_layer"
  printf '18446744073709551616\n' >"$port/counters/link_downed"
  printf 'lots\n\033[2J' >"$port/counters/symbol_error"
  head -c 512 /dev/urandom >"$pci/aer_dev_fatal"
  printf 'x16\n' >"$pci/current_link_width"
}

# printable FILE: fails the test unless every line of FILE is printable ASCII.
printable() {
  if LC_ALL=C grep -n '[^ -~]' "$1" >"$rgp_tmp/unprintable"; then
    rgp_fail "$1 has unprintable text: $(cat -v "$rgp_tmp/unprintable")"
  fi
}

rgh_fixtures
rgh_node_tree n005
garbage n005 mlx5_4
rgh_node_tree n006 --fault hang:3
garbage n006 mlx5_4
rgh_configs
rgh_start

# --- n005 through Slurm -----------------------------------------------------------------------
job=$(rgp_submit -N1 -w n005 --wrap true)
rgh_wait "n005 drained by its Prolog" 30 rgh_drained n005
reason=$(rgh_reason n005)
rgp_expect_eq "n005's reason" "$reason" "railcheck: rail2 mlx5_4 port state unreadable (+3 more)"
extra=$(rgh_node_field n005 Extra)
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["railcheck"]; assert r["rails"][2]=="down", r; assert r["verdict"]=="drain", r' \
  "$extra" || rgp_fail "n005 Extra: $extra"
[[ $extra =~ ^[\ -~]+$ ]] || rgp_fail "n005 Extra has unprintable text: $(cat -v <<<"$extra")"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
scancel "$job"
rgp_ok "n005 drained: $reason; Extra: $extra"

# --- n006 by hand, as slurmd runs the Prolog --------------------------------------------------
# prolog_by_hand NODE OUT: runs railcheck-prolog as slurmd would for NODE; sets rc and ms.
prolog_by_hand() {
  local t0
  t0=$(date +%s%N)
  rc=0
  env -i SLURMD_NODENAME="$1" SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
    timeout 10 "$rgp_bin/healthcheck/railcheck-prolog" >"$2" 2>&1 || rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
}
# What the machine takes for a Prolog with nothing hung (n007, healthy), measured now: on a
# loaded CI machine that alone is a second or more.
prolog_by_hand n007 "$rgp_tmp/prolog-n007.out"
rgp_expect_eq "n007 (healthy) Prolog exit code" "$rc" 0
healthy_ms=$ms
prolog_by_hand n006 "$rgp_tmp/prolog.out"
rgp_expect_eq "n006 Prolog exit code" "$rc" 1
# The hung read costs its first read and health.confirm_reads (2) re-reads, 300 ms each and
# 250 ms apart (health.confirm_delay_ms); the drain adds one RPC. Without the read limit the
# gather would run to half the run's time limit.
limit=$((healthy_ms + 3 * 300 + 2 * 250 + 1000))
[ "$ms" -lt "$limit" ] ||
  rgp_fail "n006's Prolog took $ms ms, more than $limit ms (a healthy node's $healthy_ms ms + 3 reads of 300 ms, 250 ms apart, + 1000 ms)"
grep -q "^warning: confirmed on 3 reads 250 ms apart: gather.timeout: rail3 mlx5_5: " "$rgp_tmp/prolog.out" ||
  rgp_fail "n006's Prolog does not say it re-read rail 3's hung read: $(cat "$rgp_tmp/prolog.out")"
printable "$rgp_tmp/prolog.out"
port=$rgh_sys/n006/class/infiniband/mlx5_4/ports/1
for want in \
  "  drain    gather.timeout: rail3 mlx5_5: reading $rgh_sys/n006/class/infiniband/mlx5_5/ports/1/rate did not finish within 300 ms" \
  "  drain    port.state: rail2 mlx5_4 $port/state: got '4: ACT?IVE?[2J'; expected \"N: NAME\" such as \"4: ACTIVE\" or \"5: LinkUp\"" \
  "  drain    port.link_layer: rail2 mlx5_4 $port/link_layer: got '?]0;owned?InfiniBand'; expected InfiniBand or Ethernet"; do
  grep -qxF -- "$want" "$rgp_tmp/prolog.out" ||
    rgp_fail "n006's Prolog does not say: $want"$'\n'"it said: $(cat "$rgp_tmp/prolog.out")"
done
grep -q "pcie.width: rail2 mlx5_4 .*current_link_width: got 'x16'; expected a lane count" \
  "$rgp_tmp/prolog.out" || rgp_fail "n006's Prolog does not name the PCIe width: $(cat "$rgp_tmp/prolog.out")"
grep -q "pcie.aer: rail2 mlx5_4 .*aer_dev_fatal: got '" "$rgp_tmp/prolog.out" ||
  rgp_fail "n006's Prolog does not name the AER file: $(cat "$rgp_tmp/prolog.out")"
rgh_drained n006 || rgp_fail "n006 not drained by its Prolog run by hand"
rgp_ok "n006 Prolog: exit 1 after $ms ms (a healthy node: $healthy_ms ms); names the FIFO that timed out and each garbage file; $(rgh_reason n006)"
rgp_done
