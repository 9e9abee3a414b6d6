# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/healthcheck/*_itest.sh (sourced, not run): the local Slurm cluster of
# tests/plugin/itest_lib.sh (railguard's plugins, etc/dev-4su.yaml) with railcheck as Prolog,
# Epilog and, when asked, HealthCheckProgram; every node reads its own sysfs fixture
# (health.sysfs_root: <tmp>/sys/%n), keeps its own state (health.state_dir) and appends to
# one shared event log (health.events_log).
#
# Env: as tests/plugin/itest_lib.sh (rg_release too); the build tree must hold railcheck and
# its railcheck-prolog/-epilog/-periodic links: healthcheck/, or slurm-tools-<release>/.
# shellcheck shell=bash

# shellcheck source=../plugin/itest_lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../plugin" && pwd)/itest_lib.sh"

# shellcheck disable=SC2034  # used by the tests that source this file
rgh_railcheck=$rgp_railcheck_dir/railcheck
for f in railcheck railcheck-prolog railcheck-epilog railcheck-periodic; do
  [ -x "$rgp_railcheck_dir/$f" ] || rgp_fail "$rgp_railcheck_dir/$f not built"
done
rgh_make_sysfs=$rgp_src/tests/data/sysfs/make_sysfs.py
rgh_sys=$rgp_tmp/sys
rgh_state=$rgp_tmp/state
# The health event log every node's railcheck appends to (health.events_log).
rgh_events=$rgp_tmp/state/events.log
# The job fabric log every node's Epilog appends to (health.job_log).
rgh_job_log=$rgp_tmp/state/jobs.log
# The run directory, chosen here because slurm.conf's AuthInfo names the munge socket in it.
rgh_dir=$(mktemp -d /tmp/rgh.XXXXXX)

# rgh_fixtures: one healthy DGX H100-like sysfs tree, and every node's root a link to it.
rgh_fixtures() {
  mkdir -p "$rgh_sys"
  python3 "$rgh_make_sysfs" "$rgh_sys/healthy" || rgp_fail "make_sysfs.py failed"
  local node
  for node in $(seq -f 'n%03g' 1 32); do ln -s healthy "$rgh_sys/$node"; done
}

# rgh_node_tree NODE [make_sysfs.py OPTIONS...]: gives NODE a tree of its own, healthy or
# with the faults given (--fault rate-down:3). NODE's root stays a link, renamed over in one
# step to a new tree: a HealthCheckProgram run in between sees the old tree or the new one.
# (Removing the old tree before moving the new one in left a moment with no tree; on CI's
# loaded machine a run fell into it and drained the node with "rail0 mlx5_0 missing (+8
# more)".) Old trees stay until the test's folder goes: a run may still be reading one.
rgh_node_tree() {
  local node=$1 tree
  shift
  tree=$node.tree$(date +%s%N)
  python3 "$rgh_make_sysfs" "$rgh_sys/$tree" --node "$node" "$@" ||
    rgp_fail "make_sysfs.py $* failed"
  ln -sfn "$tree" "$rgh_sys/$node.link" && mv -T "$rgh_sys/$node.link" "$rgh_sys/$node" ||
    rgp_fail "could not point $rgh_sys/$node at $tree"
}

# rgh_set NODE REL TEXT: replaces one file of NODE's own tree atomically (readers never see
# it half written).
rgh_set() {
  local f=$rgh_sys/$1/$2
  printf '%s\n' "$3" >"$f.tmp" && mv "$f.tmp" "$f"
}

# rgh_configs [HEALTH-YAML-LINES...]: railguard.yaml (placement defaults, the health section
# for the fixtures plus the lines given) and the slurm.conf additions: railcheck as Prolog
# (PrologFlags=Alloc: on every node at allocation) and Epilog; nohold_on_prolog_fail so that
# a job whose Prolog failed goes back to pending instead of held; cred_expire=10 because
# Slurm holds a requeued job for cred_expire + 1 s (default 121 s). read_timeout_ms is
# rgh_read_timeout_ms (default 5000; the tests of the timeout itself set 300). On a fresh
# 2-core CI machine, beside three other clusters and the hardening build, one read of a
# healthy fixture took over 300 ms, and later over 2000 ms (32 nodes, HealthCheckInterval=5),
# and railcheck drained the node with "GPU scan timed out". The fixtures are files on that
# machine's disk, which a busy compiler makes a read wait for; a node's sysfs is in memory.
rgh_configs() {
  rgp_write_configs
  {
    echo "health:"
    echo "  sysfs_root: $rgh_sys/%n"
    echo "  state_dir: $rgh_state/%n"
    echo "  events_log: $rgh_events"
    echo "  job_log: $rgh_job_log"
    echo "  resume_after_clean_runs: 3"
    echo "  flap_window_seconds: 0"
    echo "  read_timeout_ms: ${rgh_read_timeout_ms:-5000}"
    [ $# -eq 0 ] || printf '  %s\n' "$@"
  } >>"$rgp_tmp/railguard.yaml"
  # slurmd runs a HealthCheckProgram with no arguments and only SLURMD_NODENAME in its
  # environment: a real site's railcheck finds /etc/slurm/slurm.conf by itself; this cluster's
  # slurm.conf lives in the run directory.
  cat >"$rgp_tmp/healthcheck.sh" <<EOS
#!/bin/sh
SLURM_CONF=$rgh_dir/slurm.conf exec $rgp_railcheck_dir/railcheck-periodic
EOS
  chmod 755 "$rgp_tmp/healthcheck.sh"
  sed -i '/^SchedulerParameters=/d' "$rgp_tmp/extra.conf"
  cat >>"$rgp_tmp/extra.conf" <<EOS
SchedulerParameters=bf_interval=2,max_switch_wait=31536000,nohold_on_prolog_fail
AuthInfo=socket=$rgh_dir/munge/munge.socket,cred_expire=10
Prolog=$rgp_railcheck_dir/railcheck-prolog
Epilog=$rgp_railcheck_dir/railcheck-epilog
PrologFlags=Alloc
EOS
}

# rgh_health_check SECONDS: adds railcheck as HealthCheckProgram every SECONDS to the
# slurm.conf additions (before rgh_start), or to the running cluster's slurm.conf with
# `scontrol reconfigure` (after).
rgh_health_check() {
  local lines="HealthCheckProgram=$rgp_tmp/healthcheck.sh
HealthCheckInterval=$1"
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ]; then
    echo "$lines" >>"$RAILGUARD_CLUSTER_DIR/slurm.conf"
    scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
  else
    echo "$lines" >>"$rgp_tmp/extra.conf"
  fi
}

# rgh_start [HARNESS-OPTIONS...]: starts the cluster in $rgh_dir (e.g. --configless).
rgh_start() {
  rmdir "$rgh_dir"  # the harness wants it absent or empty; it creates it again
  rgp_start --dir "$rgh_dir" "$@" || rgp_fail "cluster start failed"
}

# rgh_periodic NODE: runs railcheck-periodic for NODE as slurmd runs a HealthCheckProgram
# (no arguments; SLURMD_NODENAME, plus SLURM_CONF because this cluster's slurm.conf is not in
# /etc/slurm). Output in $rgp_tmp/periodic-NODE.out; returns railcheck's exit code.
rgh_periodic() {
  env -i PATH=/usr/bin:/bin SLURMD_NODENAME="$1" SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" \
    "$rgp_railcheck_dir/railcheck-periodic" >"$rgp_tmp/periodic-$1.out" 2>&1
}

# rgh_checked_healthy [NODE...]: one periodic railcheck run on each node (default all 32),
# each of which must find it healthy: railcheck then gives it rail_healthy and publishes its
# health in Extra. job_submit/rail gives multi-node jobs only nodes railcheck found healthy,
# so a test whose multi-node jobs start before any HealthCheckProgram round runs this first.
rgh_checked_healthy() {
  local node rc
  local -a nodes=("$@")
  [ "${#nodes[@]}" -gt 0 ] || mapfile -t nodes < <(seq -f 'n%03g' 1 32)
  for node in "${nodes[@]}"; do
    rc=0
    rgh_periodic "$node" || rc=$?
    [ "$rc" = 0 ] || rgp_fail "railcheck-periodic on $node: exit $rc: $(cat "$rgp_tmp/periodic-$node.out")"
  done
}

# rgh_reason NODE: the node's reason as `sinfo -R` has it (whole, without the user/time).
rgh_reason() {
  sinfo -h -R -n "$1" -o '%E' 2>/dev/null | head -n1
}

# rgh_node_field NODE KEY: one field of `scontrol show node -o NODE` (values without spaces).
rgh_node_field() {
  rgp_field "$(scontrol show node -o "$1")" "$2"
}

# rgh_drained NODE: true while NODE has the DRAIN flag.
rgh_drained() {
  [[ $(rgh_node_field "$1" State) == *DRAIN* ]]
}

# rgh_features NODE: the node's active features.
rgh_features() {
  rgh_node_field "$1" ActiveFeatures
}

# rgh_state NODE KEY: a value from NODE's railcheck state.json (empty when none yet).
rgh_state() {
  python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))[sys.argv[2]])
except Exception: pass' "$rgh_state/$1/state.json" "$2"
}

# rgh_wait WHAT SECONDS COMMAND...: waits until COMMAND succeeds; fails the test naming WHAT.
rgh_wait() {
  local what=$1 limit=$2 deadline=$((SECONDS + $2))
  shift 2
  while ! "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || rgp_fail "$what: not within $limit s"
    sleep 0.5
  done
}

# rgh_state_at_least NODE KEY N: true once NODE's state.json has KEY >= N (railcheck writes it
# right after its Slurm update).
rgh_state_at_least() {
  local v
  v=$(rgh_state "$1" "$2")
  [ -n "$v" ] && [ "$v" -ge "$3" ]
}

# rgh_events NODE: NODE's events in the shared event log (health.events_log), in the order
# they were written, one "EVENT RAIL" a line (rail -1: the node); nothing while there is no log.
rgh_events() {
  python3 -c 'import json,sys
try: lines=open(sys.argv[1]).read().splitlines()
except FileNotFoundError: lines=[]
for l in lines:
  e=json.loads(l)
  if e["node"]==sys.argv[2]: print(e["event"], e["rail"])' "$rgh_events" "$1"
}

# rgh_watch_flapping_drain PID NODE WHAT: while process PID (a loop that makes NODE's link
# flap) runs, NODE must stay drained with one unchanged reason from the first time it is seen
# drained. Sets rgh_first (that reason), rgh_samples (how often it was seen unchanged) and
# rgh_runs_at_drain (NODE's railcheck runs then); fails the test when NODE is resumed, when
# the reason changes, or when NODE was never drained. WHAT names the link in messages.
rgh_watch_flapping_drain() {
  local pid=$1 node=$2 what=$3 now
  rgh_first="" rgh_samples=0 rgh_runs_at_drain=""
  while kill -0 "$pid" 2>/dev/null; do
    if rgh_drained "$node"; then
      now=$(sinfo -h -R -n "$node" -o '%E|%H')
      if [ -z "$rgh_first" ]; then
        rgh_first=$now
        rgh_runs_at_drain=$(rgh_state "$node" runs)
      fi
      [ "$now" = "$rgh_first" ] ||
        rgp_fail "$node's drain changed while flapping: '$rgh_first' -> '$now'"
      rgh_samples=$((rgh_samples + 1))
    elif [ -n "$rgh_first" ]; then
      rgp_fail "$node was resumed while its $what was still flapping (drained as '$rgh_first')"
    fi
    sleep 0.5
  done
  wait "$pid" || true
  [ -n "$rgh_first" ] || rgp_fail "$node was never drained while its $what flapped"
}
