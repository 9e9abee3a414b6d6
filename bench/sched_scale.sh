#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# slurmctld's cost at site scale (thousands of nodes) with stock topology/tree, stock
# topology/block, topology/rail, and topology/rail with job_submit/rail, side by side in one
# run on one Slurm release: a real slurmctld with State=CLOUD nodes and no slurmd
# (tests/harness/cluster.sh --cloud: no-op ResumeProgram, ResumeTimeout of 18 h, so jobs
# given nodes keep them).
#
# Per policy, two clusters (see "Two clusters" below). In each, the railguard policies get
# every node published healthy as railcheck does (Extra, a different report per node as the
# real ones differ in their time stamps, and the rail_healthy feature); stock policies get
# nothing published. One job per one-hop domain fills the cluster; QUEUE jobs of 1..2xSIZE
# nodes are submitted one sbatch at a time and wait behind them. Measured:
#  - sbatch round trip (the client's wall time, p50 and p99) and slurmctld's own time per
#    submit RPC (sdiag: REQUEST_SUBMIT_BATCH_JOB ave_time), with backfill asleep;
#  - slurmctld's RSS after the submissions;
#  - in the second cluster, after `sdiag -r`, CYCLES backfill cycles over the whole queue:
#    backfill time per job tested (the cycles' time over the jobs they tried) and the main
#    scheduler's mean cycle;
#  - with job_submit/rail: its feature keeper's longest pass and lock hold (the keeper logs
#    them when RAILGUARD_KEEPER_STATS is set in slurmctld's environment);
#  - with --perf: railguard's plugins' share of slurmctld's CPU samples (self time).
#
# usage: bench/sched_scale.sh [options]        (bench/sched_scale.sh --help)
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${RAILGUARD_BINARY_DIR:-$src/build}

usage() {
  cat <<'EOF'
usage: bench/sched_scale.sh [options]

slurmctld's cost per sbatch, per backfill job tested and per main-scheduler cycle, and its
memory, with thousands of State=CLOUD nodes (no slurmd), for stock topology/tree, stock
topology/block, topology/rail and topology/rail + job_submit/rail, one after another.

  --slurm-version V   a release as scripts/build_slurm.sh installs it (default 25.11.7), or
                      debian: the system Slurm (22.05; topology/block does not exist there,
                      so its policies are tree, rail, rail+js and tree+js: stock tree with
                      job_submit/rail, the 22.05 path)
  --domains K         one-hop domains (default 128)
  --size N            nodes per domain (default 32)
  --queue Q           waiting jobs of 1..2N nodes (default 2000)
  --cycles C          backfill cycles measured (default 3)
  --policies LIST     comma-separated, in this order, of tree, block, rail, rail+js, tree+js,
                      tree+rc, block+rc (default tree,block,rail,rail+js; debian:
                      tree,rail,rail+js,tree+js). +rc: the stock plugin with every node's
                      health published as railcheck publishes it (Extra and the active
                      features, one update per node), no railguard plugin: what a site
                      running railcheck alone carries, to compare memory like for like;
                      +rcf: the same after rail_healthy was made available on each SU's
                      nodes at once (one update per SU, as listing it in slurm.conf's
                      Features= of the GPU nodes would), so that railcheck changes only the
                      active features; rail+jsf: rail+js on a slurm.conf that lists
                      rail_healthy in every node's Features= (the keeper's fixes then change
                      active lists only, the restore after a start included); rail+jsu,
                      rail+jsfu: those two with the keeper changing features through Slurm's
                      update_node() as before (RAILGUARD_KEEPER_VIA_UPDATE_NODE), not by group
  --perf              profile slurmctld with perf during the cycles (railguard's share)
  --ab R              with rail+js or tree+js: after the timed submissions, R rounds on the
                      same cluster of 60 sbatch with job_submit/rail and 60 without
                      (JobSubmitPlugins toggled in slurm.conf, scontrol reconfigure before
                      each arm, the first 10 of an arm not counted), the arms' order
                      alternating: the plugin's cost per sbatch without the drift between
                      two clusters
  --paired            with rail+js and rail (or tree+js and tree) among the policies: after
                      them, the submission clusters of the two run side by side and the
                      queue goes to both, one sbatch to each in turn (which one first
                      alternating): the plugin's cost per sbatch as the median of the pairs'
                      differences, two submissions taken within milliseconds of each other,
                      so that the machine's drift (a build beside, another test) falls on
                      both alike
  --paired-cycles     with exactly two policies A,B: in place of each one's two clusters, the
                      cycles clusters of both run side by side, the queue goes to both (one
                      sbatch to each in turn) and both run backfill at the same time; per
                      pair of cycles B's time per job tested against A's, and their median:
                      what B costs without the machine's drift between two runs (the
                      sbatch, memory and keeper rows are not measured then)
  --count-tries       with --paired-cycles: also count Slurm's tries per cycle (cons_tres's
                      select_p_job_test, called once per job and start time tested) in each
                      backfill thread, through a uprobe and perf stat (root, perf): every
                      cycle of a run alike and runs within 3% of each other, where the
                      times drift
  --sbatch-opts-b OPTS  with --paired-cycles: more sbatch options for B's queue jobs only
                      (after --sbatch-opts); B may then be A's policy, e.g. tree+rcf,tree+rcf
                      with "--constraint=rail_healthy": what one request costs backfill, side
                      by side
  --swap-cpus S       with --paired-cycles: pin A's slurmctld (all its threads) to the first
                      half of this machine's CPUs and B's to the second, and swap the two
                      every S seconds (default 0: neither pinned nor swapped), so that each
                      cluster's backfill spends as long on each CPU: this VM's virtual CPUs
                      differ in speed for minutes at a time (one ran a cache-bound loop 4.5x
                      slower than the other for over a minute, 8 Dec 2026). Two clusters of
                      one policy still differed by 10-15% with it (bench/README.md)
  --restart-cycles    with --paired-cycles: restart each cluster's slurmctld (SIGTERM, then
                      started again from its saved state) after each of its cycles, so that
                      every cycle counted is a new process's: two slurmctld processes of one
                      policy differ by 10-18% per job tested and mostly keep that from cycle
                      to cycle (bench/README.md, session 36). The clusters are then filled by
                      a reservation of every node (10 h, for another user) instead of fill
                      jobs, whose nodes Slurm 22.05 no longer counts after a restart (no slurmd
                      answers for them); backfill then tries fewer of the queue's jobs (1,834
                      of 5,000), so its figures do not compare with runs without it. Not with
                      --count-tries or --swap-cpus
  --sbatch-opts OPTS  more sbatch options for every queue job, e.g. what job_submit/rail
                      adds ("--constraint=rail_healthy --switches=1@365-0") given to a
                      policy without it, to tell its cost from Slurm's for those options
  --out DIR           keep layouts, sdiag outputs, logs, profiles and the table in DIR
                      (default: a temporary folder, removed)
  -h, --help          this text
EOF
}

die() {
  echo "sched_scale.sh: error: $*" >&2
  exit 1
}
log() { echo "sched_scale.sh: [$(date +%T)] $*" >&2; }

release=25.11.7 domains=128 size=32 queue=2000 cycles=3 policies="" out="" perf=0 sbatch_opts="" sbatch_opts_b=""
ab=0 ab_batch=60 ab_warm=10 paired=0 paired_cycles=0 count_tries=0 swap_cpus="" restart_cycles=0
while [ $# -gt 0 ]; do
  case $1 in
    --slurm-version | --domains | --size | --queue | --cycles | --policies | --out | --sbatch-opts | --sbatch-opts-b | --ab | --swap-cpus)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --slurm-version) release=$2 ;;
        --domains) domains=$2 ;;
        --size) size=$2 ;;
        --queue) queue=$2 ;;
        --cycles) cycles=$2 ;;
        --policies) policies=$2 ;;
        --out) out=$2 ;;
        --sbatch-opts) sbatch_opts=$2 ;;
        --sbatch-opts-b) sbatch_opts_b=$2 ;;
        --ab) ab=$2 ;;
        --swap-cpus) swap_cpus=$2 ;;
      esac
      shift 2
      ;;
    --perf)
      perf=1
      shift
      ;;
    --paired)
      paired=1
      shift
      ;;
    --paired-cycles)
      paired_cycles=1
      shift
      ;;
    --count-tries)
      count_tries=1
      shift
      ;;
    --restart-cycles)
      restart_cycles=1
      shift
      ;;
    -h | --help)
      usage
      exit 0
      ;;
    *)
      usage >&2
      exit 2
      ;;
  esac
done
for v in domains size queue cycles; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v needs a positive whole number, got '${!v}'"
done
[[ $ab =~ ^[0-9]+$ ]] && [ "$ab" -le 100 ] || die "--ab needs a whole number of rounds up to 100, got '$ab'"
[ $((domains * size)) -le 65536 ] || die "--domains x --size is $((domains * size)); at most 65536"
[ "$domains" -ge 2 ] || die "--domains must be at least 2 (the queue holds jobs of two domains)"
if [ "$release" = debian ]; then
  : "${policies:=tree,rail,rail+js,tree+js}"
  plugins=$bin/slurm-plugins
  start_release=()
  command -v slurmctld >/dev/null || die "no system slurmctld (apt-get install slurmctld)"
else
  [[ $release =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    die "--slurm-version needs a release like 25.11.7 or 'debian', got '$release'"
  : "${policies:=tree,block,rail,rail+js}"
  plugins=$bin/slurm-plugins-$release
  start_release=(--slurm-version "$release")
  prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$release
  [ -x "$prefix/sbin/slurmctld" ] ||
    die "no Slurm $release in $prefix (scripts/build_slurm.sh $release)"
fi
IFS=, read -r -a policy_list <<<"$policies"
for p in "${policy_list[@]}"; do
  case $p in
    tree | rail | rail+js | rail+jsf | rail+jsu | rail+jsfu | tree+js | tree+rc | tree+rcf) ;;
    block | block+rc | block+rcf) [ "$release" != debian ] || die "--policies: Slurm 22.05 has no topology/block" ;;
    *) die "--policies: unknown policy '$p' (tree, block, rail, rail+js, rail+jsf, rail+jsu, rail+jsfu, tree+js, tree+rc, block+rc, tree+rcf, block+rcf)" ;;
  esac
done
if [ "$paired_cycles" = 1 ]; then
  [ "${#policy_list[@]}" = 2 ] ||
    die "--paired-cycles needs exactly two policies, A,B (got '$policies')"
  [ "${policy_list[0]}" != "${policy_list[1]}" ] || [ -n "$sbatch_opts_b" ] ||
    die "--paired-cycles: A and B are both ${policy_list[0]} (and no --sbatch-opts-b tells them apart)"
  [ "$paired" = 0 ] && [ "$ab" = 0 ] && [ "$perf" = 0 ] ||
    die "--paired-cycles runs alone: not with --paired, --ab or --perf"
  : "${swap_cpus:=0}"
  [[ $swap_cpus =~ ^[0-9]+$ ]] && [ "$swap_cpus" -le 600 ] ||
    die "--swap-cpus needs whole seconds from 0 (off) to 600, got '$swap_cpus'"
  if [ "$restart_cycles" = 1 ]; then
    [ "$count_tries" = 0 ] && [ "$swap_cpus" = 0 ] ||
      die "--restart-cycles: not with --count-tries or --swap-cpus (both follow one slurmctld process)"
  fi
  if [ "$swap_cpus" != 0 ]; then
    command -v taskset >/dev/null || die "--swap-cpus needs taskset (util-linux); --swap-cpus 0 runs without"
    [ "$(nproc)" -ge 2 ] || die "--swap-cpus needs two CPUs or more, this machine gives $(nproc); --swap-cpus 0 runs without"
  fi
elif [ -n "$sbatch_opts_b" ]; then
  die "--sbatch-opts-b is for --paired-cycles's B"
elif [ "$count_tries" = 1 ]; then
  die "--count-tries is for --paired-cycles"
elif [ -n "$swap_cpus" ]; then
  die "--swap-cpus is for --paired-cycles"
elif [ "$restart_cycles" = 1 ]; then
  die "--restart-cycles is for --paired-cycles"
fi
# The pair --paired compares: the first policy with job_submit/rail whose plain policy runs too.
pair_js="" pair_plain=""
if [ "$paired" = 1 ]; then
  for p in "${policy_list[@]}"; do
    [[ $p == *+js ]] && [[ ,$policies, == *,${p%+js},* ]] || continue
    pair_js=$p pair_plain=${p%+js}
    break
  done
  [ -n "$pair_js" ] || die "--paired needs rail+js and rail, or tree+js and tree, in --policies (got '$policies')"
fi
[ -f "$plugins/topology_rail.so" ] && [ -f "$plugins/job_submit_rail.so" ] ||
  die "no railguard plugins in $plugins (build first)"
[ -x "$bin/railctl" ] || die "no $bin/railctl (build first)"
[ "$perf" = 0 ] || command -v perf >/dev/null || die "--perf: no perf (apt-get install linux-perf)"

keep=1
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/rg-sched-scale.XXXXXX")
  keep=0
fi
mkdir -p "$out"
# shellcheck source=../tests/harness/cluster.sh
source "$src/tests/harness/cluster.sh"
# cons_tres, whose select_p_job_test --count-tries counts: in the PluginDir the harness gives
# that release's slurmctld.
if [ "$release" = debian ]; then
  cons_tres_so=$_RG_DEBIAN_PLUGIN_DIR/select_cons_tres.so
else
  cons_tres_so=$prefix/lib/slurm/select_cons_tres.so
fi
if [ "$count_tries" = 1 ]; then
  command -v perf >/dev/null || die "--count-tries needs perf (apt-get install linux-perf)"
  [ "$(id -u)" = 0 ] || die "--count-tries needs root (perf probe adds a uprobe)"
  [ -f "$cons_tres_so" ] || die "--count-tries: no $cons_tres_so"
  [ -e /sys/kernel/tracing/uprobe_events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
    die "--count-tries: no /sys/kernel/tracing (tracefs) for uprobes"
fi
# shellcheck source=sched_lib.sh
source "$src/bench/sched_lib.sh"
# shellcheck source=sched_pairs.sh
source "$src/bench/sched_pairs.sh"
probe_pid=""
pair_dirs=()
cleanup() {
  probe_stop
  rg_cluster_stop >/dev/null 2>&1 || true
  swap_stop
  tries_stop
  pair_stop
  [ "$keep" = 1 ] || rm -rf -- "$out"
}
trap cleanup EXIT

nodes=$((domains * size))
width=${#nodes}
[ "$width" -ge 3 ] || width=3
node_name() { printf "n%0${width}d" "$1"; }

# The layout: K SUs of N nodes, one leaf per rail each (one one-hop domain each).
topo=$out/layout.yaml
sched_layout "$topo" "$domains" "$size" "$width" schedscale
"$bin/railctl" topology validate "$topo" >/dev/null || die "the generated layout $topo is invalid"
echo "topology: topology.yaml" >"$out/railguard.yaml"
# Two clusters per policy. The first times the submissions with backfill asleep (its longest
# interval, 3 h): a backfill cycle over a growing queue holds slurmctld's locks for seconds,
# and the sbatch times would measure that rather than the submission. The second runs
# backfill every 5 s over the whole queue (bf_continue, no job or time limit per cycle) and
# measures its cycles. (A reconfigure cannot wake backfill in between: after one, Slurm 22.05
# counts the powering-up cloud nodes of the fill jobs as unavailable and tries no job.)
# max_switch_wait as strict placement needs it (job_submit/rail says so otherwise).
for phase in submit cycles; do
  if [ "$phase" = submit ]; then
    params="bf_interval=10800,max_switch_wait=31536000"
  else
    params="bf_interval=5,bf_continue,bf_max_job_test=$((queue + domains + 100)),bf_max_time=3600,bf_resolution=600,max_switch_wait=31536000"
  fi
  printf 'SchedulerParameters=%s\nMaxJobCount=%d\n' "$params" $((queue + domains + 1000 + 2 * ab * ab_batch)) \
    >"$out/extra-$phase.conf"
  cp "$out/extra-$phase.conf" "$out/extra-$phase-js.conf"
  echo "JobSubmitPlugins=rail" >>"$out/extra-$phase-js.conf"
done

# The queue's node counts: 1..2*size, spread by a fixed sequence (the same in every run).
sizes=()
x=12345
for ((i = 0; i < queue; i++)); do
  x=$(((x * 1103515245 + 12345) % 2147483648))
  sizes+=($((1 + (x >> 8) % (2 * size))))
done

# rpc_ave FILE RPC: sdiag's ave_time (microseconds) of one RPC type; empty when absent.
rpc_ave() {
  awk -v rpc="$2" '$1 == rpc { for (i = 2; i <= NF; i++) if ($i ~ /^ave_time:/) { sub(/ave_time:/, "", $i); print $i; exit } }' "$1"
}

# publish_health: every node healthy as railcheck publishes it, one update per node (each
# report differs in its time stamp, as on a real cluster) through one scontrol: Extra and the
# active list, and the available list too where rail_healthy is not on it yet (railcheck
# healthcheck/act.cc; job_submit/rail's keeper puts it there on every rail node at a start).
# declare_healthy [active]: rail_healthy made available on every node, one update per domain
# (as listing it in slurm.conf's Features= would); with `active`, active too.
declare_healthy() {
  local i
  for ((i = 0; i < domains; i++)); do
    printf 'update NodeName=%s[%s-%s] AvailableFeatures=su%d,rail_healthy' "${node_prefix:-n}" \
      "$(node_name $((i * size + 1)) | tr -dc 0-9)" "$(node_name $(((i + 1) * size)) | tr -dc 0-9)" $((i + 1))
    [ "${1:-}" != active ] || printf ' ActiveFeatures=su%d,rail_healthy' $((i + 1))
    echo
  done | scontrol >"$out/declare.out" 2>&1 || die "declaring rail_healthy failed ($out/declare.out)"
  ! grep -qi error "$out/declare.out" || die "declaring rail_healthy: $(head -n 3 "$out/declare.out")"
}

publish_health() {
  local i name t=1796400000 su
  local -A offered=()
  [[ $1 != *+rcf ]] || declare_healthy
  while read -r name su; do
    [[ ,$su, != *,rail_healthy,* ]] || offered[$name]=1
  done < <(sinfo -h -N -o '%N %f')
  for ((i = 1; i <= nodes; i++)); do
    name=$(node_name "$i")
    su=su$(((i - 1) / size + 1))
    printf 'update NodeName=%s ' "$name"
    [ -n "${offered[$name]:-}" ] || printf 'AvailableFeatures=%s,rail_healthy ' "$su"
    printf 'ActiveFeatures=%s,rail_healthy Extra={"railcheck":{"failed":[],"fw":["28.39.1002","28.39.1002","28.39.1002","28.39.1002","28.39.1002","28.39.1002","28.39.1002","28.39.1002"],"healthy":true,"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":%d,"verdict":"ok"}}\n' \
      "$su" $((t + i))
  done | scontrol >"$out/publish.out" 2>&1 || die "publishing node health failed ($out/publish.out)"
  ! grep -qi error "$out/publish.out" || die "publishing node health: $(head -n 3 "$out/publish.out")"
  echo "${#offered[@]}" >"$out/offered.count"
}

# percentile P FILE: the P-th percentile of FILE's numbers (nearest rank).
percentile() {
  sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { if (NR == 0) exit; r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r] }'
}

# start_cluster POLICY PHASE: a cluster for one phase of one policy; sets pid. The railguard
# policies and tree+rc, block+rc get every node published healthy as railcheck publishes it;
# plain tree and block none.
start_cluster() {
  local policy=$1 phase=$2 s t0 via=
  local -a opts=(--cloud --topo "$topo" --railctl "$bin/railctl" --timeout 300 "${start_release[@]}")
  case $policy in
    rail+jsu | rail+jsfu) via=1 ;;
  esac
  case ${policy%u} in
    tree | block) opts+=(--topology-plugin "$policy" --conf-extra "$out/extra-$phase.conf") ;;
    tree+rc | block+rc | tree+rcf | block+rcf)
      opts+=(--topology-plugin "${policy%+rc*}" --conf-extra "$out/extra-$phase.conf") ;;
    rail) opts+=(--topology-plugin rail --plugin-dir "$plugins" --railguard-conf "$out/railguard.yaml"
      --conf-extra "$out/extra-$phase.conf") ;;
    rail+js) opts+=(--topology-plugin rail --plugin-dir "$plugins" --railguard-conf "$out/railguard.yaml"
      --conf-extra "$out/extra-$phase-js.conf") ;;
    rail+jsf) opts+=(--topology-plugin rail --plugin-dir "$plugins" --railguard-conf "$out/railguard.yaml"
      --conf-extra "$out/extra-$phase-js.conf" --node-features rail_healthy) ;;
    tree+js) opts+=(--topology-plugin tree --plugin-dir "$plugins" --railguard-conf "$out/railguard.yaml"
      --conf-extra "$out/extra-$phase-js.conf") ;;
  esac
  log "$policy, $phase: starting slurmctld with $nodes cloud nodes ($domains domains of $size)"
  RAILGUARD_KEEPER_STATS=1 RAILGUARD_KEEPER_VIA_UPDATE_NODE=$via rg_cluster_start --no-trap "${opts[@]}" >/dev/null ||
    die "$policy: the cluster did not start"
  pid=$(cat "$RAILGUARD_CLUSTER_DIR/pids/slurmctld")
  case $policy in
    tree | block) ;;
    *)
      log "$policy, $phase: publishing every node healthy as railcheck does ($nodes updates)"
      publish_health "$policy"
      ;;
  esac
  if [ "$restart_cycles" = 1 ]; then
    # --restart-cycles: every node reserved for 10 h (the fill jobs' time limit) to a user
    # who submits nothing, which survives a restart. Not the fill jobs' workload: at 5,000
    # jobs backfill tried 1,834 of them per cycle behind it (bench/README.md, session 36).
    log "$policy, $phase: filling the cluster: a reservation of all $nodes nodes for 10 h"
    scontrol create reservation reservationname=rg_fill starttime=now duration=600 nodes=ALL \
      users=daemon flags=ignore_jobs >/dev/null || die "$policy: the fill reservation was refused"
    return 0
  fi
  log "$policy, $phase: filling the cluster: $domains jobs of $size nodes"
  for ((s = 0; s < domains; s++)); do
    sbatch -N "$size" --exclusive -o /dev/null -t 600 --wrap true >/dev/null ||
      die "$policy: a fill job was refused"
  done
  t0=$SECONDS
  until [ "$(squeue -h -t CF,R | wc -l)" = "$domains" ]; do
    [ $((SECONDS - t0)) -lt 300 ] || die "$policy: the $domains fill jobs did not all get nodes in 300 s"
    sleep 1
  done
}

# submit_queue POLICY TAG TIMED: the queue, one sbatch each; with TIMED=1 each round trip is
# appended to sbatch-TAG.ms.
submit_queue() {
  local policy=$1 tag=$2 timed=$3 i
  : >"$out/sbatch-$tag.err"
  [ "$timed" = 0 ] || : >"$out/sbatch-$tag.ms"
  for ((i = 0; i < queue; i++)); do
    queue_sbatch "$i" "$out/sbatch-$tag.err" || die "$policy: $refused"
    [ "$timed" = 0 ] || echo "$sbatch_ms" >>"$out/sbatch-$tag.ms"
  done
}

# queue_sbatch I ERR: submits queue job I to the cluster of $SLURM_CONF, its stderr appended
# to ERR; sets sbatch_ms to the round trip (ms, one decimal). On a refusal returns 1 with
# `refused` saying which job and why.
queue_sbatch() {
  local n=${sizes[$1]} t0 t1
  t0=${EPOCHREALTIME/./}
  # shellcheck disable=SC2086 # --sbatch-opts is split into options on purpose
  if ! sbatch -N "$n" --exclusive -o /dev/null -t 60 $sbatch_opts --wrap true >/dev/null 2>>"$2"; then
    refused="queue job $1 ($n nodes) was refused: $(tail -n 2 "$2")"
    return 1
  fi
  t1=${EPOCHREALTIME/./}
  sbatch_ms="$(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))"
}

# perf_start FILE / perf_stop: a profile of slurmctld (with --perf).
perf_start() {
  [ "$perf" = 1 ] || return 0
  perf record -q -F 499 -g -p "$pid" -o "$1" >/dev/null 2>&1 &
  perf_pid=$!
}
perf_stop() {
  [ "$perf" = 1 ] || return 0
  kill -INT "$perf_pid" 2>/dev/null || true
  wait "$perf_pid" 2>/dev/null || true
}

# probe_start FILE / probe_stop: the machine's CPU stalls during a phase (bench/cpu_stall.c:
# 0.1 ms units of arithmetic about once a millisecond, timed on the probe's own CPU clock), so
# that a lock hold's "CPU time" can be set against what any thread saw in the same run.
probe_start() {
  [ -x "$bin/cpu_stall" ] || return 0
  "$bin/cpu_stall" --out "$1" &
  probe_pid=$!
}
probe_stop() { bg_stop probe_pid; }

# bg_stop NAME: stops the background job whose pid the variable NAME holds (nothing when it is
# empty), waits for it and empties NAME.
bg_stop() {
  local p=${!1}
  [ -n "$p" ] || return 0
  kill -TERM "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  printf -v "$1" '%s' ""
}

# ab_rounds TAG: --ab's rounds on the running cluster (its slurm.conf has JobSubmitPlugins=rail):
# per arm, "ROUND ARM MS" lines in ab-TAG.txt (ARM: on or off). Each arm follows a reconfigure
# that set JobSubmitPlugins (slurmctld reads slurm.conf again; 23.11 and later restart it) and
# submits the same job sizes as the other arm of its round.
ab_rounds() {
  local tag=$1 r arm i n t0 t1 conf=$RAILGUARD_CLUSTER_DIR/slurm.conf
  grep -q '^JobSubmitPlugins=rail$' "$conf" || die "--ab: $conf has no JobSubmitPlugins=rail line"
  : >"$out/ab-$tag.txt"
  for ((r = 1; r <= ab; r++)); do
    for arm in $( ((r % 2)) && echo off on || echo on off); do
      if [ "$arm" = off ]; then
        sed -i 's/^JobSubmitPlugins=rail$/#JobSubmitPlugins=rail/' "$conf"
      else
        sed -i 's/^#JobSubmitPlugins=rail$/JobSubmitPlugins=rail/' "$conf"
      fi
      timeout 120 scontrol reconfigure >"$out/ab-reconf.err" 2>&1 ||
        die "--ab round $r: scontrol reconfigure ($arm) failed: $(cat "$out/ab-reconf.err")"
      t0=$SECONDS
      until timeout 10 scontrol ping 2>/dev/null | grep -q 'is UP'; do
        [ $((SECONDS - t0)) -lt 120 ] || die "--ab round $r: slurmctld does not answer after the reconfigure"
        sleep 1
      done
      sleep 2
      # Without job_submit/rail nothing gives rail_healthy back after the reconfigure (its
      # keeper does), and topology/rail refuses multi-node jobs on a cluster with no healthy
      # node: the off arm's nodes get it as a site without job_submit/rail would list it in
      # slurm.conf's Features=, one update per domain.
      [ "$arm" = on ] || declare_healthy active
      for ((i = 0; i < ab_batch; i++)); do
        n=${sizes[$(((r * ab_batch + i) % queue))]}
        t0=${EPOCHREALTIME/./}
        sbatch -N "$n" --exclusive -o /dev/null -t 60 --wrap true >/dev/null 2>>"$out/ab-$tag.err" ||
          die "--ab round $r ($arm): sbatch of $n nodes was refused: $(tail -n 2 "$out/ab-$tag.err")"
        t1=${EPOCHREALTIME/./}
        [ "$i" -lt "$ab_warm" ] ||
          echo "$r $arm $(((t1 - t0) / 1000)).$(((t1 - t0) % 1000 / 100))" >>"$out/ab-$tag.txt"
      done
    done
    log "--ab round $r of $ab done"
  done
}

# run_policy POLICY: the submission phase, then the cycles phase.
run_policy() {
  local policy=$1 t0 pending done_cycles tag=${1//+/_}
  probe_start "$out/stall-$tag.txt"
  start_cluster "$policy" submit
  sdiag -r >/dev/null || die "$policy: sdiag -r failed"
  log "$policy, submit: $queue jobs of 1-$((2 * size)) nodes, one sbatch each, timed"
  perf_start "$out/perf-submit-$tag.data"
  submit_queue "$policy" "$tag" 1
  perf_stop
  sdiag >"$out/sdiag-submit-$tag.txt" || die "$policy: sdiag failed"
  awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status" >"$out/rss-$tag.kb"
  # Where the memory is, mapping by mapping (heap, thread arenas, plugins), for --out.
  cp "/proc/$pid/smaps" "$out/smaps-$tag.txt" 2>/dev/null || true
  pending=$(squeue -h -t PD | wc -l)
  [ "$pending" = "$queue" ] || die "$policy: $pending of $queue queue jobs pending"
  grep 'railguard: job_submit/rail: keeper pass' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" \
    >"$out/keeper-$tag.log" || true
  # job_submit/rail's own time per submission (plugin/job_submit_rail/js_stats.h): sdiag's
  # submit RPC time starts after the job_submit plugins ran, so it does not show it.
  grep 'railguard: job_submit/rail: submit stats' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" \
    >"$out/submit-stats-$tag.log" || true
  cp "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" "$out/slurmctld-submit-$tag.log"
  if [ "$ab" -gt 0 ] && [[ $policy == *+js ]]; then
    log "$policy, submit: --ab: $ab rounds of $ab_batch sbatch with and without job_submit/rail"
    ab_rounds "$tag"
  fi
  rg_cluster_stop >/dev/null 2>&1 || true

  probe_stop
  probe_start "$out/stall-$tag-cycles.txt"
  start_cluster "$policy" cycles
  log "$policy, cycles: $queue jobs of 1-$((2 * size)) nodes, one sbatch each"
  submit_queue "$policy" "$tag-cycles" 0
  sdiag -r >/dev/null || die "$policy: sdiag -r failed"
  log "$policy, cycles: $domains fill jobs hold every node, $queue jobs wait; waiting for $cycles backfill cycles"
  perf_start "$out/perf-bf-$tag.data"
  t0=$SECONDS
  # A cycle that began before `sdiag -r` (backfill runs during the submissions) ends after it
  # with sdiag's queue length 0 (the reset zeroes it; a cycle sets it when it starts) and
  # its time whole but its depth counted from the reset only: its "per job tested" is wrong.
  # Such cycles are measured again: `sdiag -r` just after one ends, within the bf_interval
  # (5 s) backfill sleeps before the next, which then starts after the reset.
  local tries=0 qlen first_ok=0
  while :; do
    sdiag >"$out/sdiag-bf-$tag.txt" || die "$policy: sdiag failed"
    done_cycles=$(sdiag_field "$out/sdiag-bf-$tag.txt" Backfilling "Total cycles")
    [ $((SECONDS - t0)) -lt $(((cycles + 2) * 600)) ] ||
      die "$policy: $done_cycles of $cycles backfill cycles in $(((cycles + 2) * 600)) s"
    if [ "$first_ok" = 0 ] && [ "${done_cycles:-0}" -ge 1 ]; then
      qlen=$(sdiag_field "$out/sdiag-bf-$tag.txt" Backfilling "Last queue length")
      if [ "${qlen:-0}" = 0 ] && [ "$tries" -lt 2 ]; then
        tries=$((tries + 1))
        sdiag -r >/dev/null || die "$policy: sdiag -r failed"
        log "$policy, cycles: the first cycle began before sdiag -r (queue length 0); measuring again"
        continue
      fi
      first_ok=1
    fi
    [ "${done_cycles:-0}" -lt "$cycles" ] || break
    sleep 1
  done
  qlen=$(sdiag_field "$out/sdiag-bf-$tag.txt" Backfilling "Last queue length")
  perf_stop
  log "$policy, cycles: $done_cycles cycles in $((SECONDS - t0)) s (queue length at the last cycle's start: ${qlen:-?})"
  [ "$(squeue -h -t PD | wc -l)" = "$queue" ] || die "$policy: a queue job started (the cluster should be full)"
  grep 'railguard: job_submit/rail: keeper pass' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" \
    >>"$out/keeper-$tag.log" || true
  cp "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" "$out/slurmctld-cycles-$tag.log"
  rg_cluster_stop >/dev/null 2>&1 || true
  probe_stop
}

if [ "$paired_cycles" = 1 ]; then
  paired_cycles
else
  for p in "${policy_list[@]}"; do run_policy "$p"; done
  [ "$paired" = 0 ] || paired_submit
fi

# perf_self FILE: railguard's share of slurmctld's samples in a profile: self time in its
# plugins (what their code costs, less the Slurm functions it calls).
perf_self() {
  perf report -i "$1" --no-children --sort dso --stdio 2>/dev/null |
    awk '/topology_rail\.so|job_submit_rail\.so/ { gsub(/%/, "", $1); s += $1 } END { printf "%.1f%%", s }'
}

declare -A label=([tree]="stock tree" [block]="stock block" [rail]="topology/rail"
  [rail+js]="rail + js/rail" [rail+jsf]="rail + js, F" [rail+jsu]="rail + js, U" [rail+jsfu]="rail + js, F, U" [tree+js]="tree + js/rail" [tree+rc]="tree + health"
  [block+rc]="block + health" [tree+rcf]="tree + health, F" [block+rcf]="block + health, F")
cell() { printf ' %15s' "$1"; }
if [ "$paired_cycles" = 1 ]; then
  paired_cycles_table | tee "$out/table.txt"
  [ "$keep" = 0 ] || log "kept $out (layout, sdiag, per-cycle figures, logs, table.txt)"
  exit 0
fi
{
  echo "Slurm $release, $nodes CLOUD nodes in $domains one-hop domains of $size, full;" \
    "$queue waiting jobs of 1-$((2 * size)) nodes; $cycles backfill cycles (sdiag)"
  printf '%-40s' metric
  for p in "${policy_list[@]}"; do cell "${label[$p]}"; done
  echo
  printf '%-40s' "backfill per job tested (ms)"
  for p in "${policy_list[@]}"; do
    f=$out/sdiag-bf-${p//+/_}.txt
    cell "$(awk -v c="$(sdiag_field "$f" Backfilling "Mean cycle")" \
      -v d="$(sdiag_field "$f" Backfilling "Depth Mean (try depth)")" \
      'BEGIN { if (d > 0) printf "%.2f", c / d / 1000; else print "-" }')"
  done
  echo
  printf '%-40s' "backfill mean cycle (ms)"
  for p in "${policy_list[@]}"; do
    cell "$(awk -v c="$(sdiag_field "$out/sdiag-bf-${p//+/_}.txt" Backfilling "Mean cycle")" 'BEGIN { printf "%.0f", c / 1e3 }')"
  done
  echo
  # Per job tested compares two policies only when both tried the same part of the queue.
  printf '%-40s' "backfill jobs tried / queue length"
  for p in "${policy_list[@]}"; do
    f=$out/sdiag-bf-${p//+/_}.txt
    cell "$(sdiag_field "$f" Backfilling "Depth Mean (try depth)") / $(sdiag_field "$f" Backfilling "Last queue length")"
  done
  echo
  printf '%-40s' "main scheduler mean cycle (ms)"
  for p in "${policy_list[@]}"; do
    cell "$(awk -v c="$(sdiag_field "$out/sdiag-bf-${p//+/_}.txt" "Main schedule" "Mean cycle")" 'BEGIN { if (c == "") print "-"; else printf "%.1f", c / 1000 }')"
  done
  echo
  printf '%-40s' "sbatch round trip p50 / p99 (ms)"
  for p in "${policy_list[@]}"; do
    cell "$(percentile 50 "$out/sbatch-${p//+/_}.ms") / $(percentile 99 "$out/sbatch-${p//+/_}.ms")"
  done
  echo
  printf '%-40s' "submit RPC in slurmctld, mean (ms)"
  for p in "${policy_list[@]}"; do
    cell "$(awk -v a="$(rpc_ave "$out/sdiag-submit-${p//+/_}.txt" REQUEST_SUBMIT_BATCH_JOB)" 'BEGIN { if (a == "") print "-"; else printf "%.2f", a / 1000 }')"
  done
  echo
  # Per window of 256 submissions the plugin logs its p50 and p99: the median of the windows'
  # p50s and the largest p99.
  printf '%-40s' "job_submit/rail's own p50 / p99 (ms)"
  for p in "${policy_list[@]}"; do
    f=$out/submit-stats-${p//+/_}.log
    if [ -s "$f" ]; then
      cell "$(awk '{ for (i = 1; i < NF; i++) {
          if ($i == "wall" && $(i + 1) == "p50") { n++; m[n] = $(i + 2) + 0 }
          if ($i == "p99" && $(i - 3) == "p50" && $(i - 4) == "wall") if ($(i + 1) + 0 > hi) hi = $(i + 1) + 0 } }
        END { if (n == 0) { print "-"; exit }
              for (i = 2; i <= n; i++) { v = m[i]; for (j = i - 1; j >= 1 && m[j] > v; j--) m[j + 1] = m[j]; m[j + 1] = v }
              printf "%.3f / %.3f", m[int((n + 1) / 2)], hi }' "$f")"
    else
      cell "-"
    fi
  done
  echo
  if [ "$ab" -gt 0 ]; then
    # Per round, the arm with job_submit/rail's p50 less the one without; the median of
    # those differences and their range, then each arm's p50 / p99 over all rounds.
    printf '%-40s' "A/B sbatch: js on - off, p50 (ms)"
    for p in "${policy_list[@]}"; do
      f=$out/ab-${p//+/_}.txt
      if [ -s "$f" ]; then
        cell "$(awk '{ v[$1 " " $2, ++n[$1 " " $2]] = $3; r[$1] = 1 }
          function med(k,   m, i, j, t, a) { m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
            for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            return a[int((m + 1) / 2)] }
          END { for (k in r) d[++nd] = med(k " on") - med(k " off")
            for (i = 2; i <= nd; i++) { t = d[i]; for (j = i - 1; j >= 1 && d[j] > t; j--) d[j + 1] = d[j]; d[j + 1] = t }
            printf "%+.1f [%+.1f..%+.1f]", d[int((nd + 1) / 2)], d[1], d[nd] }' "$f")"
      else
        cell "-"
      fi
    done
    echo
    for arm in off on; do
      printf '%-40s' "A/B sbatch js $arm: p50 / p99 (ms)"
      for p in "${policy_list[@]}"; do
        f=$out/ab-${p//+/_}.txt
        if [ -s "$f" ]; then
          awk -v a="$arm" '$2 == a { print $3 }' "$f" >"$out/ab-arm.ms"
          cell "$(percentile 50 "$out/ab-arm.ms") / $(percentile 99 "$out/ab-arm.ms")"
        else
          cell "-"
        fi
      done
      echo
    done
  fi
  if [ "$paired" = 1 ]; then
    # Each policy's p50 / p99 of its side of the pairs; in the column of the one with
    # job_submit/rail, the median of the pairs' differences (it less the plain one) and the
    # mean of the middle half of them.
    printf '%-40s' "paired sbatch p50 / p99 (ms)"
    for p in "${policy_list[@]}"; do
      if [ "$p" = "$pair_plain" ] || [ "$p" = "$pair_js" ]; then
        column=1
        [ "$p" != "$pair_js" ] || column=2
        awk -v c="$column" '{ print $c }' "$out/paired.ms" >"$out/paired-arm.ms"
        cell "$(percentile 50 "$out/paired-arm.ms") / $(percentile 99 "$out/paired-arm.ms")"
      else
        cell "-"
      fi
    done
    echo
    printf '%-40s' "paired sbatch js - plain: median, mid mean"
    for p in "${policy_list[@]}"; do
      if [ "$p" = "$pair_js" ]; then
        cell "$(awk '{ print $2 - $1 }' "$out/paired.ms" | sort -g | awk '{ d[NR] = $1 }
          END { lo = int(NR / 4) + 1; hi = NR - int(NR / 4); for (i = lo; i <= hi; i++) s += d[i]
                printf "%+.2f, %+.2f", d[int((NR + 1) / 2)], s / (hi - lo + 1) }')"
      else
        cell "-"
      fi
    done
    echo
  fi
  printf '%-40s' "slurmctld RSS after the queue (MB)"
  for p in "${policy_list[@]}"; do
    cell "$(awk '{ printf "%.0f", $1 / 1024 }' "$out/rss-${p//+/_}.kb")"
  done
  echo
  # The keeper's passes: those that changed features (the first after a start: the restore)
  # apart from the steady ones.
  # keeper_row TITLE FILTER WHAT: over the passes FILTER picks (steady, restore), WHAT:
  # pass (p50 / max), passcpu (the pass's CPU time: p50 / max), queuedcpu (the CPU time of
  # its waits in the locks' queues, which passcpu leaves out: p50 / max), applycpu (of it, the holds
  # that changed features: p50 / max), lock (each pass's longest
  # hold: p50 / p99 / max), cpu (the CPU time of the longest hold of all; the rest of it the
  # thread waited for a CPU), which (which hold that was), switches (that hold's involuntary /
  # voluntary context switches: preempted / blocked), cpumax (the most CPU time of any one
  # hold; the holds over 1 ms of CPU / all holds of those passes), restore, holds (the most
  # write-lock holds that changed features in one pass / the most nodes one of them changed).
  # The stats lines are read by bench/keeper_stats.awk.
  keeper_row() {
    local title=$1 filter=$2 what=$3 p f
    printf '%-40s' "$title"
    for p in "${policy_list[@]}"; do
      f=$out/keeper-${p//+/_}.log
      if [ -s "$f" ]; then
        cell "$(awk -f "$src/bench/keeper_stats.awk" "$f" | awk -v filter="$filter" -v what="$what" '
          function sort(a, n,   i, j, v) {
            for (i = 2; i <= n; i++) { v = a[i]; for (j = i - 1; j >= 1 && a[j] > v; j--) a[j + 1] = a[j]; a[j + 1] = v }
          }
          # pass lock cpu changed holds most which slow slow_node invol vol cpu_max all_holds
          # holds_over pass_cpu apply_cpu queued_cpu (bench/keeper_stats.awk)
          { if ((filter == "restore") != ($4 > 0)) next
            n++; p[n] = $1; l[n] = $2
            if ($15 != "-" && $15 != "") { nc++; pc[nc] = $15 }
            if ($16 != "-" && $16 != "") { na++; ac[na] = $16 }
            if ($17 != "-" && $17 != "") { nq++; qc[nq] = $17 }
            if ($5 != "-" && $5 > mh) mh = $5
            if ($6 != "-" && $6 > mm) mm = $6
            if ($8 != "-" && $8 != "" && $8 > ms) { ms = $8; mn = $9 }
            if ($8 != "-" && $8 != "" && $8 > 1) ns++
            if ($12 != "-" && $12 != "" && $12 > cx) cx = $12
            if ($13 != "-" && $13 != "") { ha += $13; ho += $14 }
            if ($2 > ml || n == 1) { ml = $2; mc = $3; mw = $7; mi = $10; mv = $11 } }
          END { if (n == 0) { print "-"; exit }
                sort(p, n); sort(l, n); sort(pc, nc); sort(ac, na); sort(qc, nq)
                if (what == "restore") printf "%.1f / %.1f", p[n], ml
                else if (what == "holds") printf "%d / %d", mh, mm
                else if (what == "pass") printf "%.2f / %.2f", p[int((n + 1) / 2)], p[n]
                else if (what == "passcpu") { if (nc == 0) print "-"; else printf "%.2f / %.2f", pc[int((nc + 1) / 2)], pc[nc] }
                else if (what == "queuedcpu") { if (nq == 0) print "-"; else printf "%.2f / %.2f", qc[int((nq + 1) / 2)], qc[nq] }
                else if (what == "applycpu") { if (na == 0) print "-"; else printf "%.2f / %.2f", ac[int((na + 1) / 2)], ac[na] }
                else if (what == "lock") printf "%.2f / %.2f / %.2f", l[int((n + 1) / 2)], l[int(0.99 * n + 0.99)], l[n]
                else if (what == "which") printf "%s", mw
                else if (what == "switches") printf "%s / %s", mi, mv
                else if (what == "cpumax") { if (cx == "") print "-"; else printf "%.2f; %d/%d", cx, ho, ha }
                else if (what == "slow") { if (mn == "") print "-"; else printf "%.2f %s, %d >1", ms, mn, ns }
                else printf "%s", mc }')"
      else
        cell "-"
      fi
    done
    echo
  }
  keeper_row "keeper steady pass p50 / max (ms)" steady pass
  keeper_row "  on the keeper's CPU p50 / max (ms)" steady passcpu
  keeper_row "  queued for locks, on CPU p50 / max (ms)" steady queuedcpu
  keeper_row "keeper steady lock p50 / p99 / max (ms)" steady lock
  keeper_row "  the longest of them on CPU (ms)" steady cpu
  keeper_row "  the longest of them: which hold" steady which
  keeper_row "  its context switches: invol. / vol." steady switches
  keeper_row "  most CPU of a hold (ms); holds >1 / all" steady cpumax
  keeper_row "  slowest 8 nodes of a look (ms), >1 ms" steady slow
  keeper_row "keeper restore pass / lock (ms)" restore restore
  keeper_row "  its holds / most nodes in one" restore holds
  keeper_row "  on the keeper's CPU p50 / max (ms)" restore passcpu
  keeper_row "  of it changing features p50 / max (ms)" restore applycpu
  keeper_row "  the longest hold on CPU (ms)" restore cpu
  keeper_row "  the longest hold: which" restore which
  keeper_row "  most CPU of a hold (ms); holds >1 / all" restore cpumax
  # The probe's stalls over both phases of a policy: the longest, and how many units of
  # 0.1 ms took over 1 ms on the probe's CPU clock (bench/cpu_stall.c).
  printf '%-40s' "machine: CPU stalls >1 ms / longest (ms)"
  for p in "${policy_list[@]}"; do
    cell "$(cat "$out/stall-${p//+/_}.txt" "$out/stall-${p//+/_}-cycles.txt" 2>/dev/null |
      awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
             n++; s += v["stalls"]; if (v["longest_ms"] > m) m = v["longest_ms"] }
           END { if (n == 0) print "-"; else printf "%d / %.1f", s, m }')"
  done
  echo
  if [ "$perf" = 1 ]; then
    printf '%-40s' "railguard's CPU share: submissions"
    for p in "${policy_list[@]}"; do cell "$(perf_self "$out/perf-submit-${p//+/_}.data")"; done
    echo
    printf '%-40s' "railguard's CPU share: backfill"
    for p in "${policy_list[@]}"; do cell "$(perf_self "$out/perf-bf-${p//+/_}.data")"; done
    echo
  fi
} | tee "$out/table.txt"
[ "$keep" = 0 ] || log "kept $out (layout, sdiag, sbatch times, logs, table.txt)"
