# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by tests/plugin/*_itest.sh (sourced, not run): starts the local Slurm cluster of
# tests/harness/cluster.sh on etc/dev-4su.yaml with railguard's plugins from the build tree
# (topology/rail, job_submit/rail, the SPANK plugin), and small helpers to check jobs.
#
# Env: RAILGUARD_SOURCE_DIR (default: this checkout), RAILGUARD_BINARY_DIR (the build tree:
# railctl and slurm-plugins/), RAILGUARD_KEEP_CLUSTER=1 keeps the run directory for its logs.
#
# The Slurm release under test: the system Slurm, or rg_release (set before sourcing, e.g.
# 24.11.5: scripts/build_slurm.sh's prefix) with the plugins of slurm-plugins-<release>/ and
# railctl and railcheck of slurm-tools-<release>/ (RAILGUARD_TOOLS_DIR: other ones); the test
# skips with one line when those are not built.
# shellcheck shell=bash

rgp_src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
rgp_bin=${RAILGUARD_BINARY_DIR:-$rgp_src/build}
rgp_name=$(basename "${0%.sh}")
rgp_checks=0
rgp_harness=$rgp_src/tests/harness/cluster.sh
# shellcheck source=../harness/cluster.sh
source "$rgp_harness"
rgp_release=${rg_release:-}
if [ -n "$rgp_release" ]; then
  rgp_plugins=$rgp_bin/slurm-plugins-$rgp_release
  rgp_railcheck_dir=$(rg_release_tools "$rgp_release")
  rgp_railctl=$rgp_railcheck_dir/railctl
  rg_skip_unbuilt "$rgp_name" "$rgp_release" "$rgp_plugins/topology_rail.so" "$rgp_railctl" \
    "$rgp_railcheck_dir/railcheck"
else
  rgp_plugins=$rgp_bin/slurm-plugins
  rgp_railcheck_dir=$rgp_bin/healthcheck
  rgp_railctl=$rgp_bin/railctl
fi
# rgp_places: 1 when topology/rail (rgp_start's topology plugin) places jobs by its own
# evaluation (Slurm 24.11 and later, built from source: rg_release set), so that
# job_submit/rail asks Slurm for neither the healthy feature nor a switch bound on a job that
# fits one SU (plugin/core/placement.h, JobFacts::topology_places); 0 on Debian's 22.05.
rgp_places=0
[ -z "$rgp_release" ] || rgp_places=1

# rgp_fail MESSAGE: reports a failed check with the end of slurmctld's log, and exits 1.
rgp_fail() {
  echo "$rgp_name: FAIL: $*" >&2
  local log=${RAILGUARD_CLUSTER_DIR:-}/ctld/slurmctld.log
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ] && [ -s "$log" ]; then
    echo "---- last 15 lines of $log" >&2
    grep -v 'pmix' "$log" | tail -n 15 >&2
  fi
  # What a daemon printed when it died (a sanitizer report, a fatal): its stderr.
  local out=${RAILGUARD_CLUSTER_DIR:-}/ctld/slurmctld.out
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ] && [ -s "$out" ] && ! _rg_alive "$(cat "$RAILGUARD_CLUSTER_DIR/pids/slurmctld" 2>/dev/null)" "$RAILGUARD_CLUSTER_DIR" 2>/dev/null; then
    echo "---- slurmctld is not running; last 40 lines of $out" >&2
    grep -v 'pmix' "$out" | tail -n 40 >&2
  fi
  local f
  for f in ${rgp_fail_reports:-}; do
    [ -f "$f" ] && rgp_show_report "$f"
  done
  exit 1
}

# rgp_build_asan_plugins: builds topology/rail, job_submit/rail and the SPANK plugin with
# AddressSanitizer and UBSan (RAILGUARD_SANITIZE=ON, Debug) in their own build tree,
# $RAILGUARD_ASAN_BUILD_DIR (default $rgp_bin/asan), incrementally, and checks that they link
# libasan; sets asan_build and rgp_plugins (rgp_write_configs and rgp_start use it).
rgp_build_asan_plugins() {
  asan_build=${RAILGUARD_ASAN_BUILD_DIR:-$rgp_bin/asan}
  echo "$rgp_name: building ASan plugins in $asan_build (plugin targets only, -j2)"
  # Debug (-O0 -g): with ASan and UBSan, -O2 compiles about 7 times slower, for no gain here.
  cmake -S "$rgp_src" -B "$asan_build" -DRAILGUARD_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug \
    >"$rgp_tmp/cmake.log" 2>&1 ||
    rgp_fail "cmake -DRAILGUARD_SANITIZE=ON failed: $(tail -n 20 "$rgp_tmp/cmake.log")"
  nice -n 10 cmake --build "$asan_build" -j2 --target topology_rail job_submit_rail spank_railguard \
    >"$rgp_tmp/build.log" 2>&1 ||
    rgp_fail "building the ASan plugins failed: $(grep -m 10 -E 'error|Error' "$rgp_tmp/build.log")"
  rgp_plugins=$asan_build/slurm-plugins
  local f
  for f in topology_rail.so job_submit_rail.so spank_railguard.so; do
    grep -q 'NEEDED.*libasan' < <(readelf -d "$rgp_plugins/$f") ||
      rgp_fail "$rgp_plugins/$f is not linked against libasan (was RAILGUARD_SANITIZE honoured?)"
  done
}

# rgp_show_report FILE: prints FILE (a sanitizer report) on stderr, up to 150 lines, once it
# has stopped growing (the same size for 2 s, at most 30 s): a sanitizer writes its report
# while it symbolizes the stack, and read too early it is only its first lines (seen in CI:
# a heap-use-after-free in slurmctld, cut after 3 lines).
rgp_show_report() {
  local size=-1 waited=0
  while [ "$waited" -lt 30 ] && [ "$(stat -c %s "$1" 2>/dev/null)" != "$size" ]; do
    size=$(stat -c %s "$1" 2>/dev/null)
    sleep 2
    waited=$((waited + 2))
  done
  echo "---- $1" >&2
  head -n 150 "$1" | rgp_symbolize >&2
}

# rgp_symbolize: copies stdin to stdout, with each unsymbolized stack frame of a sanitizer
# report ("#3 0x7f.. (/path/lib.so+0x1a2b)", as symbolize=0 writes them) followed by its
# functions and source lines from addr2line (inlined ones too). The daemons report without
# symbolizing: symbolizing in a multithreaded daemon that is shutting down is slow, and a
# report cut short by the stop's SIGKILL kept only its first 3 lines (seen twice).
rgp_symbolize() {
  local line module offset
  while IFS= read -r line; do
    printf '%s\n' "$line"
    if [[ $line =~ \#[0-9]+\ 0x[0-9a-f]+\ +\(([^+\)]+)\+(0x[0-9a-f]+)\) ]]; then
      module=${BASH_REMATCH[1]} offset=${BASH_REMATCH[2]}
      [ -r "$module" ] || continue
      addr2line -f -C -i -e "$module" "$offset" 2>/dev/null | paste - - | sed 's/^/        /' || true
    fi
  done
}

# rgp_ok MESSAGE: records a passed check.
rgp_ok() {
  rgp_checks=$((rgp_checks + 1))
  echo "$rgp_name: ok: $*"
}

# rgp_done: the last line of a passing test.
rgp_done() {
  echo "$rgp_name: PASS ($rgp_checks checks, ${SECONDS} s)"
}

for f in topology_rail.so job_submit_rail.so spank_railguard.so; do
  [ -f "$rgp_plugins/$f" ] ||
    rgp_fail "$rgp_plugins/$f not built (cmake --build $rgp_bin; the plugins need scripts/setup.sh's Slurm source)"
done
[ -x "$rgp_railctl" ] || rgp_fail "$rgp_railctl not built"

# Scratch files of this test (configs, job output); removed at exit with the cluster.
rgp_tmp=$(mktemp -d "${TMPDIR:-/tmp}/rgp-${rgp_name}.XXXXXX")
rgp_cleanup() {
  rg_cluster_stop || true  # it returns the exit status it preserves
  rm -rf -- "$rgp_tmp"
}
trap rgp_cleanup EXIT

# rgp_write_configs [PLACEMENT-YAML-LINES...]: writes, under $rgp_tmp, railguard.yaml for the
# run directory (topology: topology.yaml, the harness's copy of the YAML, so a test can break
# it), the SPANK plugin's own config, plugstack.conf and the slurm.conf additions.
rgp_write_configs() {
  {
    echo "topology: topology.yaml"
    if [ $# -gt 0 ]; then
      echo "placement:"
      printf '  %s\n' "$@"
    fi
  } >"$rgp_tmp/railguard.yaml"
  echo "topology: $rgp_src/etc/dev-4su.yaml" >"$rgp_tmp/spank-railguard.yaml"
  # cache=: the test's own NCCL_IB_HCA cache folder (the default /run/railguard is shared by
  # every cluster on the host).
  echo "optional $rgp_plugins/spank_railguard.so config=$rgp_tmp/spank-railguard.yaml" \
    "cache=$rgp_tmp/nccl-cache" >"$rgp_tmp/plugstack.conf"
  cat >"$rgp_tmp/extra.conf" <<EOF
JobSubmitPlugins=rail
SchedulerParameters=bf_interval=2,max_switch_wait=31536000
PlugStackConfig=$rgp_tmp/plugstack.conf
EOF
}

# rgp_start [HARNESS-OPTIONS...]: starts the cluster with topology/rail and the files of
# rgp_write_configs; the EXIT trap stops it and removes $rgp_tmp; INT, TERM and HUP exit.
# Returns 1 if the start failed.
rgp_start() {
  local -a opts=(--topo "$rgp_src/etc/dev-4su.yaml" --topology-plugin rail
    --plugin-dir "$rgp_plugins" --conf-extra "$rgp_tmp/extra.conf" --railctl "$rgp_railctl"
    --railguard-conf "$rgp_tmp/railguard.yaml" ${rgp_release:+--slurm-version "$rgp_release"})
  trap 'exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP
  rg_cluster_start --no-trap "${opts[@]}" "$@"
}

# What etc/dev-4su.yaml says, written out here rather than read with the code under test.
declare -A rgp_su_nodes=([su1]="n[001-008]" [su2]="n[009-016]" [su3]="n[017-024]" [su4]="n[025-032]")

# rgp_su_of NODE: su1..su4 for n001..n032.
rgp_su_of() {
  local n=$((10#${1#n}))
  echo "su$(((n - 1) / 8 + 1))"
}

# The node health railcheck publishes in Extra (wire/extra_json.h), healthy and degraded:
# job_submit/rail's feature keeper takes rail_healthy from any node whose Extra is not healthy.
rgp_extra_ok='{"railcheck":{"failed":[],"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":1,"verdict":"ok"}}'
rgp_extra_degraded='{"railcheck":{"failed":["rail3:port.rate"],"rails":["ok","ok","ok","degraded","ok","ok","ok","ok"],"time":1,"verdict":"restrict"}}'

# rgp_set_healthy [UNHEALTHY-NODE...]: publishes every node as railcheck would: healthy Extra
# and the feature rail_healthy (next to its SU feature), except the ones named (degraded
# Extra, no rail_healthy). `scontrol reconfigure` drops the features; the keeper gives them
# back from Extra.
rgp_set_healthy() {
  local su node
  local -A sick=()
  for node in "$@"; do sick[$node]=1; done
  for node in $(scontrol show hostnames "n[001-032]"); do
    su=$(rgp_su_of "$node")
    if [ -n "${sick[$node]:-}" ]; then
      scontrol update NodeName="$node" Extra="$rgp_extra_degraded" AvailableFeatures="$su" \
        ActiveFeatures="$su"
    else
      scontrol update NodeName="$node" Extra="$rgp_extra_ok" \
        AvailableFeatures="$su,rail_healthy" ActiveFeatures="$su,rail_healthy"
    fi
  done || rgp_fail "scontrol update of node features failed"
}

# rgp_field RECORD KEY: the value of KEY=... in a one-line Slurm record, empty if absent.
rgp_field() {
  local tok
  local -a toks
  read -ra toks <<<"$1"
  for tok in "${toks[@]}"; do
    if [[ $tok == "$2="* ]]; then
      printf '%s\n' "${tok#*=}"
      return 0
    fi
  done
}

# rgp_job JOBID KEY: one field of `scontrol show job -o JOBID`.
rgp_job() {
  rgp_field "$(scontrol show job -o "$1")" "$2"
}

# rgp_submit ARGS...: sbatch --parsable ARGS; prints the job id, keeps sbatch's stderr (the
# railguard line) in $rgp_tmp/submit.err. Fails the test if sbatch refuses.
rgp_submit() {
  local out
  out=$(sbatch --parsable -o "$rgp_tmp/job-%j.out" "$@" 2>"$rgp_tmp/submit.err") ||
    rgp_fail "sbatch $* was refused: $(cat "$rgp_tmp/submit.err")"
  echo "${out%%;*}"
}

# rgp_wait_state JOBID STATE SECONDS: waits until the job is in STATE.
rgp_wait_state() {
  local job=$1 want=$2 limit=$3 state="" deadline=$((SECONDS + $3))
  while [ "$SECONDS" -le "$deadline" ]; do
    state=$(rgp_job "$job" JobState)
    [ "$state" = "$want" ] && return 0
    sleep 0.5
  done
  # What the scheduler saw, for a job that waits: the job, and every node's state, active
  # features and Extra (seen in asan_itest: a 32-node job released by the keeper waited 60 s
  # on "nodes DOWN, DRAINED or reserved" with nothing in slurmctld's log).
  {
    echo "---- scontrol show job $job"
    scontrol show job "$job" 2>&1 | head -n 40
    echo "---- nodes: name state active-features extra"
    sinfo -h -N -o '%N %T %b %E' 2>&1 | head -n 40
    scontrol show nodes 2>&1 | grep -E '^NodeName|Extra=' | paste - - | awk '{print $1, $NF}' |
      head -n 40
  } >&2
  rgp_fail "job $job is $state after $limit s, expected $want ($(rgp_job "$job" Reason))"
}

# rgp_sus_of_job JOBID: the SUs of the job's nodes, sorted and unique, on one line.
rgp_sus_of_job() {
  local node
  for node in $(scontrol show hostnames "$(rgp_job "$1" NodeList)"); do
    rgp_su_of "$node"
  done | sort -u | tr '\n' ' ' | sed 's/ $//'
}

# rgp_expect_eq WHAT GOT WANT
rgp_expect_eq() {
  [ "$2" = "$3" ] || rgp_fail "$1: got '$2', expected '$3'"
}

# rgp_log_has TEXT [SECONDS]: waits until slurmctld's log has a line containing TEXT.
rgp_log_has() {
  local deadline=$((SECONDS + ${2:-10}))
  while [ "$SECONDS" -le "$deadline" ]; do
    grep -qF -- "$1" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" && return 0
    sleep 0.5
  done
  rgp_fail "slurmctld.log has no line with: $1"
}
