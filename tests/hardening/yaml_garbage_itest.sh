#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The rail YAML, then railguard.yaml, replaced by garbage while slurmctld runs, then
# `scontrol reconfigure`, on the real cluster with topology/rail and job_submit/rail:
#  - binary bytes, a YAML syntax error and a railguard.yaml that is not a mapping: each time
#    slurmctld stays up (same pid), logs the problem as file:line:column and that the last good
#    topology and placement setup stay in force; `scontrol show topology` is unchanged and a
#    4-node job still gets one SU;
#  - the good files back: the next reconfigure loads them.
# tests/plugin/topology_rail_itest.sh covers a YAML that parses but is wrong (an unknown key,
# a broken hostlist) the same way, and tests/plugin/topology_rail_startup_itest.sh a broken
# YAML at slurmctld's start (it refuses to start).
# About 15 s.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
src=${RAILGUARD_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
# shellcheck source=../plugin/itest_lib.sh
source "$src/tests/plugin/itest_lib.sh"

rgp_write_configs "default_mode: strict"
rgp_start || rgp_fail "the cluster did not start (see the messages above)"
rgp_set_healthy
dir=$RAILGUARD_CLUSTER_DIR
log=$dir/ctld/slurmctld.log
yaml=$dir/topology.yaml
conf=$dir/railguard.yaml
cp "$yaml" "$rgp_tmp/topology.good"
cp "$conf" "$rgp_tmp/railguard.good"
topology=$(scontrol show topology)
pid=$(cat "$dir/pids/slurmctld")

# reconfigure: `scontrol reconfigure`, then waits until slurmctld's log has the line of
# topology/rail's reload (either outcome); the log lines since are in $rgp_tmp/since.
reconfigure() {
  local lines deadline
  lines=$(wc -l <"$log")
  scontrol reconfigure || rgp_fail "scontrol reconfigure failed"
  deadline=$((SECONDS + 15))
  while :; do
    tail -n +"$((lines + 1))" "$log" >"$rgp_tmp/since"
    grep -Eq "railguard: topology/rail: (loaded|.*stays in force)" "$rgp_tmp/since" && break
    [ "$SECONDS" -lt "$deadline" ] || rgp_fail "no topology/rail reload in the log after reconfigure"
    sleep 0.5
  done
  sleep 1  # job_submit/rail's keeper reloads and gives rail_healthy back within a second
}

# logged_at FILE: fails unless the log since the reconfigure names FILE:LINE:COLUMN in an
# error of topology/rail and says the last good topology stays; prints that error.
logged_at() {
  local line
  line=$(grep -F "error: railguard: topology/rail: $1:" "$rgp_tmp/since" | head -n1)
  [[ $line =~ topology/rail:\ .*:[0-9]+:[0-9]+:\  ]] ||
    rgp_fail "no file:line:column error for $1 in the log; since the reconfigure: $(grep railguard "$rgp_tmp/since")"
  grep -qF "error: railguard: topology/rail: $conf or the topology it names has problems (above); the rail topology loaded before stays in force" \
    "$rgp_tmp/since" || rgp_fail "the log does not say the last good topology stays in force"
  echo "${line#*error: railguard: topology/rail: }"
}

# still_good WHAT: slurmctld is the same process, serves the same topology, and places a
# 4-node job in one SU.
still_good() {
  local job
  if [ "$(cat "$dir/pids/slurmctld")" != "$pid" ] || ! kill -0 "$pid"; then
    rgp_fail "$1: slurmctld is not the process it was"
  fi
  grep -q 'is UP' < <(scontrol ping) || rgp_fail "$1: slurmctld does not answer"
  rgp_expect_eq "$1: scontrol show topology" "$(scontrol show topology)" "$topology"
  job=$(rgp_submit -N4 --exclusive --wrap true)
  [[ $(rgp_job "$job" Switches) == 1@* ]] ||
    rgp_fail "$1: job $job not placed by job_submit/rail (Switches=$(rgp_job "$job" Switches))"
  rgp_wait_state "$job" COMPLETED 60
  rgp_expect_eq "$1: SUs of job $job" "$(rgp_sus_of_job "$job" | wc -w)" 1
}

# --- the rail topology as garbage ---------------------------------------------------------------
printf '\211PNG\r\n\032\n\000\000\000\rIHDR garbage \377\376\n' >"$yaml"
reconfigure
at=$(logged_at "$yaml")
still_good "binary rail YAML"
rgp_ok "binary rail YAML: slurmctld up, logged '$(cat -v <<<"$at" | cut -c1-110)', topology and placement kept"

printf 'cluster: raildev\nrails: [ {index: 0, link: {rate_gbps: 400}\nnode_types:\n' >"$yaml"
reconfigure
at=$(logged_at "$yaml")
[[ $at == "$yaml:3:1: "* ]] || rgp_fail "the syntax error is not at line 3, column 1: $at"
still_good "rail YAML with a syntax error"
rgp_ok "rail YAML with a syntax error: logged '$at'; topology and placement kept"

# --- railguard.yaml as garbage ------------------------------------------------------------------
cp "$rgp_tmp/topology.good" "$yaml"
printf -- '- topology\n- [unclosed\n' >"$conf"
reconfigure
at=$(logged_at "$conf")
still_good "railguard.yaml that is not a mapping"
rgp_ok "railguard.yaml as garbage: logged '$at'; topology and placement kept"

# --- the good files back ------------------------------------------------------------------------
cp "$rgp_tmp/railguard.good" "$conf"
reconfigure
grep -qF "railguard: topology/rail: loaded $conf and $yaml" "$rgp_tmp/since" ||
  rgp_fail "the good files were not loaded: $(grep railguard "$rgp_tmp/since")"
still_good "good files back"
rgp_ok "the good files load at the next reconfigure"
rgp_done
