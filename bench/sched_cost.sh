#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scheduling cost of topology/rail's node selection (Slurm 24.11+: topology_p_eval_nodes)
# against stock topology/tree and topology/block on the same backlog, side by side, on live
# local Slurm clusters (tests/harness/cluster.sh: a real slurmctld, one slurmd per node).
#
# The case that costs topology/rail most: many one-hop domains and a long queue of multi-node
# jobs that each fit one domain, on a full cluster. For such a job topology/rail tries the
# domains one at a time (best fit first), calling Slurm's tree evaluation once per domain
# that could hold it, and the backfill scheduler asks that of every queued job in every cycle.
# The layout: DOMAINS scalable units (one leaf per rail: one one-hop domain each) of SIZE
# nodes; first one job per domain fills the cluster for an hour, then QUEUE jobs of 2..SIZE
# nodes wait behind them. After `sdiag -r` the clusters schedule for WINDOW seconds; then
# sdiag's main-scheduler and backfill statistics are read (Slurm's own timers, in
# microseconds of slurmctld's time, under its locks).
#
# usage: bench/sched_cost.sh [options]        (bench/sched_cost.sh --help)
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${RAILGUARD_BINARY_DIR:-$src/build}

usage() {
  cat <<'EOF'
usage: bench/sched_cost.sh [options]

Backfill and main-scheduler cycle times (sdiag) of stock topology/tree, stock topology/block
and topology/rail on one backlog of jobs that each fit a one-hop domain, on a full cluster.

  --slurm-version V   Slurm release as scripts/build_slurm.sh installs it (default 24.11.5;
                      topology/rail selects nodes itself from 24.05 on)
  --domains K         one-hop domains (default 32)
  --size N            nodes per domain (default 4; K x N at most 128, the harness's limit)
  --queue Q           waiting jobs, 2..N nodes each (default 300)
  --window S          seconds of scheduling measured (default 60)
  --policies LIST     comma-separated, in this order (default tree,block,rail)
  --out DIR           keep the layout, sdiag outputs and the table in DIR (default: a
                      temporary folder, removed)
  -h, --help          this text
EOF
}

die() {
  echo "sched_cost.sh: error: $*" >&2
  exit 1
}
log() { echo "sched_cost.sh: $*" >&2; }

release=24.11.5 domains=32 size=4 queue=300 window=60 policies=tree,block,rail out=""
while [ $# -gt 0 ]; do
  case $1 in
    --slurm-version | --domains | --size | --queue | --window | --policies | --out)
      [ $# -ge 2 ] || die "$1 needs a value"
      case $1 in
        --slurm-version) release=$2 ;;
        --domains) domains=$2 ;;
        --size) size=$2 ;;
        --queue) queue=$2 ;;
        --window) window=$2 ;;
        --policies) policies=$2 ;;
        --out) out=$2 ;;
      esac
      shift 2
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
for v in domains size queue window; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v needs a positive whole number, got '${!v}'"
done
[ "$size" -ge 2 ] || die "--size must be at least 2 (the queue holds multi-node jobs)"
[ $((domains * size)) -le 128 ] || die "--domains x --size is $((domains * size)); at most 128"
IFS=, read -r -a policy_list <<<"$policies"
for p in "${policy_list[@]}"; do
  case $p in tree | block | rail) ;; *) die "--policies: unknown policy '$p'" ;; esac
done
prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$release
plugins=$bin/slurm-plugins-$release
[ -x "$prefix/sbin/slurmctld" ] ||
  die "no Slurm $release in $prefix (scripts/build_slurm.sh $release)"
[ -f "$plugins/topology_rail.so" ] || die "no $plugins/topology_rail.so (build first)"
[ -x "$bin/railctl" ] || die "no $bin/railctl (build first)"

keep=1
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/rg-sched-cost.XXXXXX")
  keep=0
fi
mkdir -p "$out"
# shellcheck source=../tests/harness/cluster.sh
source "$src/tests/harness/cluster.sh"
# shellcheck source=sched_lib.sh
source "$src/bench/sched_lib.sh"
cleanup() {
  rg_cluster_stop >/dev/null 2>&1 || true
  [ "$keep" = 1 ] || rm -rf -- "$out"
}
trap cleanup EXIT

# The layout: K SUs of N nodes, one leaf per rail each (so one one-hop domain each).
topo=$out/layout.yaml
sched_layout "$topo" "$domains" "$size" 3 schedcost
"$bin/railctl" topology validate "$topo" >/dev/null || die "the generated layout $topo is invalid"
echo "topology: $topo" >"$out/railguard.yaml"
echo "SchedulerParameters=bf_interval=2" >"$out/extra.conf"


# run_policy tree|block|rail: one cluster, the fill, the queue, the window, sdiag.
run_policy() {
  local policy=$1 s n i t0 pending
  local -a opts=(--topo "$topo" --slurm-version "$release" --railctl "$bin/railctl"
    --conf-extra "$out/extra.conf" --timeout 240)
  case $policy in
    tree | block) opts+=(--topology-plugin "$policy") ;;
    rail) opts+=(--topology-plugin rail --plugin-dir "$plugins" --railguard-conf "$out/railguard.yaml") ;;
  esac
  log "$policy: starting $((domains * size)) nodes (Slurm $release)"
  rg_cluster_start --no-trap "${opts[@]}" >/dev/null || die "$policy: the cluster did not start"
  # Every node healthy, as railcheck publishes it (topology/rail asks multi-node jobs for it).
  scontrol update NodeName="n[001-$(printf %03d $((domains * size)))]" \
    AvailableFeatures=rail_healthy ActiveFeatures=rail_healthy || die "$policy: scontrol update failed"
  for ((s = 0; s < domains; s++)); do
    sbatch -N "$size" --exclusive -o /dev/null -t 120 --wrap 'sleep 3600' >/dev/null ||
      die "$policy: a fill job was refused"
  done
  t0=$SECONDS
  until [ "$(squeue -h -t R | wc -l)" = "$domains" ]; do
    [ $((SECONDS - t0)) -lt 120 ] || die "$policy: the $domains fill jobs did not all start in 120 s"
    sleep 1
  done
  for ((i = 0; i < queue; i++)); do
    n=$((2 + i % (size - 1)))
    sbatch -N "$n" --exclusive -o /dev/null -t 10 --wrap 'sleep 60' >/dev/null ||
      die "$policy: queue job $i ($n nodes) was refused"
  done
  pending=$(squeue -h -t PD | wc -l)
  [ "$pending" = "$queue" ] || die "$policy: $pending of $queue queue jobs pending"
  sdiag -r >/dev/null || die "$policy: sdiag -r failed"
  log "$policy: $domains fill jobs run, $queue jobs wait; measuring ${window} s"
  sleep "$window"
  sdiag >"$out/sdiag-$policy.txt" || die "$policy: sdiag failed"
  [ "$(squeue -h -t R | wc -l)" = "$domains" ] || die "$policy: a queue job started (the cluster should be full)"
  scancel --user="$(id -un)"
  rg_cluster_stop >/dev/null 2>&1 || true
}

for p in "${policy_list[@]}"; do run_policy "$p"; done

declare -A label=([tree]="stock tree" [block]="stock block" [rail]="topology/rail")
# row TITLE SECTION KEY [DIVISOR]: one table row, the sdiag value per policy (divided).
row() {
  local p v
  printf '%-44s' "$1"
  for p in "${policy_list[@]}"; do
    v=$(sdiag_field "$out/sdiag-$p.txt" "$2" "$3")
    if [ -z "$v" ]; then
      v=-
    elif [ -n "${4:-}" ]; then
      v=$(awk -v a="$v" -v b="$4" 'BEGIN { printf "%.1f", a / b }')
    fi
    printf ' %14s' "$v"
  done
  echo
}
{
  echo "Slurm $release, $domains one-hop domains of $size nodes ($((domains * size)) nodes)," \
    "full; $queue waiting jobs of 2-$size nodes; ${window} s measured (sdiag)"
  printf '%-44s' metric
  for p in "${policy_list[@]}"; do printf ' %14s' "${label[$p]}"; done
  echo
  row "backfill cycles" Backfilling "Total cycles"
  row "backfill mean cycle (ms)" Backfilling "Mean cycle" 1000
  row "backfill max cycle (ms)" Backfilling "Max cycle" 1000
  row "backfill: jobs tested in the last cycle" Backfilling "Last depth cycle (try sched)"
  row "main scheduler cycles" "Main schedule" "Total cycles"
  row "main scheduler mean cycle (ms)" "Main schedule" "Mean cycle" 1000
  row "main scheduler max cycle (ms)" "Main schedule" "Max cycle" 1000
} | tee "$out/table.txt"
[ "$keep" = 0 ] || log "kept $out (layout, sdiag per policy, table.txt)"
