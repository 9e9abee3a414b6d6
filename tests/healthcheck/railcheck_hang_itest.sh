#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1,railcheck_lane2 COST=100
# A read stuck in the kernel cannot hold the Prolog, on the real cluster. The read of port 1
# rate of n004's rail 3 NIC is stuck the way a hung driver or firmware command leaves it (D
# state): the process that opens the file stops inside open() and never runs again
# (tests/healthcheck/stop_preload.c, preloaded by n004's Prolog wrapper). A FIFO would not
# model it: the exit of its reader ends a blocking open. railcheck gathers in a child
# process; the Prolog answers slurmd itself within prolog_time_limit_seconds, drains n004
# naming what timed out, the job goes back to pending, and no railcheck process is left.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"
rgh_read_timeout_ms=300  # this test times the read limit itself

preload=$rgp_bin/healthcheck/librailcheck_stop_preload.so
[ -f "$preload" ] || rgp_fail "$preload not built"
rgh_fixtures
rgh_node_tree n004
rate=$rgh_sys/n004/class/infiniband/mlx5_5/ports/1/rate
rgh_configs "prolog_time_limit_seconds: 5"
# n004's Prolog runs with its rate read stuck; every other node's as usual.
cat >"$rgp_tmp/prolog.sh" <<EOS
#!/bin/sh
if [ "\$SLURMD_NODENAME" = n004 ]; then
  export LD_PRELOAD=$preload RAILGUARD_TEST_STOP_AT=$rate RAILGUARD_TEST_STOP_DELAY_MS=100
  export RAILGUARD_TEST_STOP_PIDFILE=$rgp_tmp/stopped.pid
fi
exec $rgp_bin/healthcheck/railcheck-prolog
EOS
chmod 755 "$rgp_tmp/prolog.sh"
sed -i "s|^Prolog=.*|Prolog=$rgp_tmp/prolog.sh|" "$rgp_tmp/extra.conf"
rgh_start

start=$SECONDS
job=$(rgp_submit -N1 -w n004 --wrap true)
rgh_wait "n004 drained by its Prolog" 20 rgh_drained n004
rgp_expect_eq "n004 reason" "$(rgh_reason n004)" "railcheck: rail3 mlx5_5 sysfs read timed out"
rgp_ok "n004 drained $((SECONDS - start)) s after submission: $(rgh_reason n004)"
[ -s "$rgp_tmp/stopped.pid" ] || rgp_fail "no reader was stopped in the read of $rate"
rgh_wait "job $job back to pending" 20 bash -c "scontrol show job $job | grep -q JobState=PENDING"
rgp_ok "job $job requeued (Restarts=$(rgp_job "$job" Restarts))"
scancel "$job"

# The same Prolog by hand, as slurmd runs it (output through a pipe, read to EOF): within
# prolog_time_limit_seconds, and the report names the stuck file.
rm -f "$rgp_tmp/stopped.pid"
t0=$(date +%s%N)
set +e
env -i SLURMD_NODENAME=n004 SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
  "$rgp_tmp/prolog.sh" 2>&1 | cat >"$rgp_tmp/prolog.out"
rc=${PIPESTATUS[0]}
set -e
ms=$((($(date +%s%N) - t0) / 1000000))
rgp_expect_eq "Prolog exit code" "$rc" "1"
[ "$ms" -lt 5000 ] || rgp_fail "the Prolog took $ms ms, over prolog_time_limit_seconds (5 s)"
[ -s "$rgp_tmp/stopped.pid" ] || rgp_fail "no reader was stopped in the read of $rate"
want="  drain    gather.timeout: rail3 mlx5_5: reading $rate did not finish within 300 ms"
grep -qxF "$want" "$rgp_tmp/prolog.out" || rgp_fail "Prolog output: $(cat "$rgp_tmp/prolog.out")"
rgp_ok "Prolog by hand: exit 1 and EOF after $ms ms (limit 5 s); says: ${want#  drain    }"
grep -q "^warning: the gather (process [0-9]*) did not finish reading sysfs within 800 ms" \
  "$rgp_tmp/prolog.out" || rgp_fail "Prolog output: $(cat "$rgp_tmp/prolog.out")"

none_left() { ! pgrep -f "^$rgp_bin/healthcheck/railcheck" >/dev/null; }
rgh_wait "no railcheck process left" 10 none_left
rgp_ok "no railcheck process left behind"
rgp_done
