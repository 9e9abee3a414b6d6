# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/hardening/*_itest.sh (sourced, not run): the railcheck cluster of
# tests/healthcheck/railcheck_itest_lib.sh (topology/rail, job_submit/rail, the SPANK plugin,
# railcheck as Prolog and Epilog, a sysfs fixture per node) and what the fault-injection
# tests do to it besides: run railcheck the way slurmd does, check job placement in bulk.
#
# Env: as tests/healthcheck/railcheck_itest_lib.sh.
# shellcheck shell=bash

# shellcheck source=../healthcheck/railcheck_itest_lib.sh
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/../healthcheck" && pwd)/railcheck_itest_lib.sh"

# rgf_strict: sets strict placement in the railguard.yaml of rgh_configs, whatever the default
# (call it after rgh_configs, before rgh_start): a multi-node job then waits for one SU
# instead of spreading, so "one SU" can be checked for every job whatever the load.
rgf_strict() {
  printf 'placement:\n  default_mode: strict\n' >>"$rgp_tmp/railguard.yaml"
}

# rgf_periodic NODE: runs railcheck-periodic for NODE as slurmd runs a HealthCheckProgram
# (no arguments; SLURMD_NODENAME, plus SLURM_CONF because this cluster's slurm.conf is not in
# /etc/slurm). Output in $rgp_tmp/periodic-NODE.out; returns railcheck's exit code.
rgf_periodic() { rgh_periodic "$@"; }

# rgf_periodic_all SICK-NODE...: one periodic run on every node; fails the test unless the
# nodes named exit 1 (drain) and every other node exits 0.
rgf_periodic_all() {
  local node rc want
  local -A sick=()
  for node in "$@"; do sick[$node]=1; done
  for node in $(seq -f 'n%03g' 1 32); do
    rc=0
    rgf_periodic "$node" || rc=$?
    want=0
    [ -z "${sick[$node]:-}" ] || want=1
    [ "$rc" = "$want" ] ||
      rgp_fail "railcheck-periodic on $node: exit $rc, expected $want: $(cat "$rgp_tmp/periodic-$node.out")"
  done
}

# rgf_healthy_everywhere_but SICK-NODE...: true when every node but the ones named has the
# rail_healthy feature and none of those has it.
rgf_healthy_everywhere_but() {
  local node features
  local -A sick=()
  for node in "$@"; do sick[$node]=1; done
  while read -r node features; do
    if [ -n "${sick[$node]:-}" ]; then
      [[ ,$features, != *,rail_healthy,* ]] || return 1
    else
      [[ ,$features, == *,rail_healthy,* ]] || return 1
    fi
  done < <(sinfo -h -N -o '%N %b')
}

# rgf_healthy_differences SICK-NODE...: for each node where rgf_healthy_everywhere_but does
# not hold, a line with its name, state, reason and features, then the last lines of its
# periodic railcheck output; for a failure message.
rgf_healthy_differences() {
  local node features
  local -A sick=()
  for node in "$@"; do sick[$node]=1; done
  while read -r node features; do
    if [ -n "${sick[$node]:-}" ] && [[ ,$features, != *,rail_healthy,* ]]; then continue; fi
    if [ -z "${sick[$node]:-}" ] && [[ ,$features, == *,rail_healthy,* ]]; then continue; fi
    echo "$node: State=$(rgh_node_field "$node" State) Reason='$(rgh_reason "$node")' features=$features"
    [ ! -f "$rgp_tmp/periodic-$node.out" ] || sed 's/^/    /' "$rgp_tmp/periodic-$node.out" | tail -n 12
  done < <(sinfo -h -N -o '%N %b')
}

# rgf_job_states JOBID...: "STATE COUNT" lines over the jobs given, sorted.
rgf_job_states() {
  local job
  for job in "$@"; do rgp_job "$job" JobState; done | sort | uniq -c | awk '{ print $2, $1 }'
}

# rgf_wait_completed SECONDS JOBID...: waits until every job given is COMPLETED; fails the
# test naming the first one that is not (a job in a final state other than COMPLETED fails at
# once).
rgf_wait_completed() {
  local limit=$1 deadline=$(($1 + SECONDS)) job state left
  shift
  while :; do
    left=""
    for job in "$@"; do
      state=$(rgp_job "$job" JobState)
      case $state in
        COMPLETED) ;;
        FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE)
          rgp_fail "job $job ended $state ($(scontrol show job -o "$job" 2>&1 | head -c 600))" ;;
        *) left=${left:-"job $job is ${state:-unknown to slurmctld}"} ;;
      esac
    done
    [ -n "$left" ] || return 0
    [ "$SECONDS" -lt "$deadline" ] ||
      rgp_fail "not every job completed within $limit s: $left; states: $(rgf_job_states "$@" | tr '\n' ' ')"
    sleep 1
  done
}

# rgf_check_one_su JOBID...: fails the test unless every multi-node job given ran inside one
# scalable unit; prints how many multi-node jobs there were.
rgf_check_one_su() {
  local job nodes sus multi=0
  for job in "$@"; do
    nodes=$(rgp_job "$job" NumNodes)
    [ "${nodes:-1}" -gt 1 ] || continue
    multi=$((multi + 1))
    sus=$(rgp_sus_of_job "$job")
    [ "$(wc -w <<<"$sus")" -eq 1 ] ||
      rgp_fail "job $job ($nodes nodes) ran on $(rgp_job "$job" NodeList): SUs $sus"
  done
  echo "$multi"
}
