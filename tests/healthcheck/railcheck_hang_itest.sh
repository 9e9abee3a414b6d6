#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hung sysfs read cannot hang the Prolog, on the real cluster: port 1 rate of n004's rail 3
# NIC is a FIFO (reading it blocks, as a hung driver read would). The Prolog gives up on it at
# health.read_timeout_ms, drains n004 saying what timed out, and the job goes back to
# pending; no railcheck process is left behind.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"

rgh_fixtures
rgh_node_tree n004 --fault hang:3
rgh_configs
rgh_start

start=$SECONDS
job=$(rgp_submit -N1 -w n004 --wrap true)
rgh_wait "n004 drained by its Prolog" 20 rgh_drained n004
rgp_expect_eq "n004 reason" "$(rgh_reason n004)" "railcheck: rail3 mlx5_5 sysfs read timed out"
rgp_ok "n004 drained $((SECONDS - start)) s after submission: $(rgh_reason n004)"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
rgp_ok "job $job requeued (Restarts=$(rgp_job "$job" Restarts))"
scancel "$job"

# The same Prolog by hand, as slurmd runs it: bounded, and the report says what timed out.
t0=$(date +%s%N)
rc=0
env -i SLURMD_NODENAME=n004 SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
  timeout 10 "$rgp_bin/healthcheck/railcheck-prolog" >"$rgp_tmp/prolog.out" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
rgp_expect_eq "Prolog exit code" "$rc" "1"
[ "$ms" -lt 2000 ] || rgp_fail "the Prolog took $ms ms"
rate=$rgh_sys/n004/class/infiniband/mlx5_5/ports/1/rate
want="  drain    gather.timeout: rail3 mlx5_5: reading $rate did not finish within 300 ms"
grep -qxF "$want" "$rgp_tmp/prolog.out" || rgp_fail "Prolog output: $(cat "$rgp_tmp/prolog.out")"
rgp_ok "Prolog by hand: exit 1 after $ms ms; says: ${want#  drain    }"

none_left() { ! pgrep -f "^$rgp_bin/healthcheck/railcheck" >/dev/null; }
rgh_wait "no railcheck process left" 10 none_left
rgp_ok "no railcheck process left behind"
rgp_done
