#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Placement benchmark: the same time-compressed stream of real GPU jobs through two or more
# policies, side by side, each on its own live local Slurm cluster
# (tests/harness/cluster.sh: a real slurmctld and one slurmd per node, 8 fake GPUs each):
#   topology/tree     stock Slurm with railctl's topology.conf export; users submit without
#                     --switches, as stock users do
#   railguard         topology/rail + job_submit/rail (default placement config: strict) +
#                     the SPANK plugin; every node has the healthy feature
#   railguard-strict  the same with default_mode: strict written out (--policies ...,strict)
#   railguard-prefer  the same with default_mode: prefer (--policies ...,prefer)
# Jobs run `sleep` for their compressed duration (sbatch --gpus for one node, -N and
# --gpus-per-node for more, --time set). What happened is read from Slurm itself:
# jobcomp/filetxt records (submit, start, end, NodeList) of each run. Then the plugins' own
# cost: topology/rail's setup on a 4096-node layout and job_submit/rail's per-job decision,
# both in-process (bench_plugin_cost), and the sbatch round trip with and without
# JobSubmitPlugins=rail on the live cluster.
#
# usage: bench/placement.sh [--quick] [options]      (bench/placement.sh --help)
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${RAILGUARD_BINARY_DIR:-$src/build}
shared_data=${RAILGUARD_SHARED_DATA:-$src/../shared/data}

usage() {
  cat <<'EOF'
usage: bench/placement.sh [--quick] [options]

Runs one job stream through topology/tree and through railguard's plugins on live local
Slurm clusters and prints the side-by-side table, the verdict, and the plugins' cost.

  --quick             small fast run: etc/dev-4su.yaml (32 nodes), 40 jobs, ~2 minutes
  --trace FILE        trace (default: shared/data/traces/microsoft-itp/cluster04.csv)
  --format F          auto (default), csv or swf
  --skip K            leave out the first K jobs of the trace (sorted by submission)
  --jobs N            jobs in the stream
  --compress F        trace seconds per benchmark second (submission gaps and run times)
  --load L            L times the trace's arrival rate: submission gaps shrink by L more,
                      run times do not (1: the trace's own load)
  --max-duration S    cap each job's run time at S benchmark seconds
  --topo YAML         the layout (default etc/superpod-h100.yaml: 4 SUs, 127 nodes)
  --policies LIST     comma-separated, run in this order (default tree,rail):
                        tree    stock topology/tree, no --switches
                        rail    railguard's plugins, default placement config (strict)
                        strict  railguard's plugins with default_mode: strict written out
                        prefer  railguard's plugins with default_mode: prefer
                      The first is the baseline of the verdicts.
  --latency N         sbatch round trips per side for the job_submit latency (default 100
                      full, 40 quick; 0 skips it)
  --no-cost           skip the in-process plugin cost benchmark
  --out DIR           keep the stream, jobcomp files and results here (default: a new
                      /tmp/rg-placement.XXXXXX, printed at the end)
  --build DIR         build tree with railctl, bench_placement, bench_plugin_cost and
                      slurm-plugins/ (default $RAILGUARD_BINARY_DIR, else ./build)
Defaults of the full run: --skip 15000 --jobs 600 --compress 2000 --load 3 --max-duration 120.
Defaults of --quick:      --skip 20 --jobs 40 --compress 2000 --load 1 --max-duration 10.
EOF
}

die() {
  echo "placement.sh: error: $*" >&2
  exit 1
}
log() { echo "placement.sh: $*" >&2; }

quick=0 trace="" format=auto skip="" jobs="" compress="" load="" max_duration="" topo=""
policies=tree,rail latency="" cost=1 out=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --trace | --format | --skip | --jobs | --compress | --load | --max-duration | --topo | \
      --policies | --latency | --out | --build)
      [ $# -ge 2 ] || { echo "placement.sh: $1 needs a value" >&2; exit 2; }
      case $1 in
        --trace) trace=$2 ;;
        --format) format=$2 ;;
        --skip) skip=$2 ;;
        --jobs) jobs=$2 ;;
        --compress) compress=$2 ;;
        --load) load=$2 ;;
        --max-duration) max_duration=$2 ;;
        --topo) topo=$2 ;;
        --policies) policies=$2 ;;
        --latency) latency=$2 ;;
        --out) out=$2 ;;
        --build) bin=$2 ;;
      esac
      shift 2 ;;
    --no-cost) cost=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "placement.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

if [ "$quick" = 1 ]; then
  : "${topo:=$src/etc/dev-4su.yaml}" "${skip:=20}" "${jobs:=40}" "${compress:=2000}"
  : "${max_duration:=10}" "${latency:=40}" "${load:=1}"
else
  # The 600 jobs before the trace's busiest stretch of multi-node jobs, at 3x its arrival
  # rate: at the trace's own rate a fresh 127-node cluster stays under half full and both
  # policies place every job alike (bench/README.md).
  : "${topo:=$src/etc/superpod-h100.yaml}" "${skip:=15000}" "${jobs:=600}" "${compress:=2000}"
  : "${max_duration:=120}" "${latency:=100}" "${load:=3}"
fi
: "${trace:=$shared_data/traces/microsoft-itp/cluster04.csv}"
[[ $latency =~ ^[0-9]+$ ]] || die "--latency needs a whole number, got '$latency'"
IFS=, read -ra policy_list <<<"$policies"
declare -A seen_policy=()
for p in "${policy_list[@]}"; do
  case $p in
    tree | rail | strict | prefer) ;;
    *) die "--policies: unknown policy '$p'; expected tree, rail, strict or prefer" ;;
  esac
  [ -z "${seen_policy[$p]:-}" ] || die "--policies: $p given twice"
  seen_policy[$p]=1
done
[ "${#policy_list[@]}" -gt 0 ] || die "--policies: no policy"
[ -f "$trace" ] || die "trace $trace not found (--trace FILE)"
[ -f "$topo" ] || die "layout $topo not found (--topo YAML)"
topo=$(cd "$(dirname "$topo")" && pwd)/$(basename "$topo")
bin=$(cd "$bin" 2>/dev/null && pwd) || die "build tree $bin not found (--build DIR)"
for f in railctl bench_placement bench_plugin_cost; do
  [ -x "$bin/$f" ] || die "$bin/$f not built (cmake --build $bin)"
done
if [ -n "${seen_policy[rail]:-}${seen_policy[strict]:-}${seen_policy[prefer]:-}" ]; then
  for f in topology_rail.so job_submit_rail.so spank_railguard.so; do
    [ -f "$bin/slurm-plugins/$f" ] ||
      die "$bin/slurm-plugins/$f not built (the plugins need scripts/setup.sh's Slurm source)"
  done
fi

if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/rg-placement.XXXXXX)
else
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
fi
export RAILGUARD_BINARY_DIR=$bin
# shellcheck source=../tests/harness/cluster.sh
source "$src/tests/harness/cluster.sh"
trap 'rg_cluster_stop >/dev/null 2>&1 || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- the layout and the stream ----------------------------------------------------------------
"$bin/railctl" topology show "$topo" --format nodes >"$out/nodes.txt" ||
  die "railctl topology show $topo failed"
node_count=$(wc -l <"$out/nodes.txt")
su_count=$(awk '{ print $2 }' "$out/nodes.txt" | sort -u | wc -l)
"$bin/bench_placement" stream "$trace" --format "$format" --skip "$skip" --jobs "$jobs" \
  --compress "$compress" --load "$load" --max-duration "$max_duration" --max-nodes "$node_count" \
  -o "$out/stream.txt" 2>"$out/stream.summary" || { cat "$out/stream.summary" >&2; exit 1; }
log "$(cat "$out/stream.summary")"

# --- one policy's run ----------------------------------------------------------------------------

# set_healthy: every node gets the healthy feature next to its SU feature (one call per SU).
set_healthy() {
  local su nodes
  while read -r su nodes; do
    scontrol update NodeName="$nodes" AvailableFeatures="$su,rail_healthy" \
      ActiveFeatures="$su,rail_healthy" || die "scontrol update of $su's features failed"
  done < <(awk '{ n[$2] = n[$2] (n[$2] ? "," : "") $1 } END { for (s in n) print s, n[s] }' \
    "$out/nodes.txt")
}

# submit_stream POLICY: submits every job of the stream at its time; records job ids and the
# submission lag (how late sbatch returned, in ms) in $out/submit-POLICY.txt.
submit_stream() {
  local policy=$1 seq at dur nodes gpn gpus tmin _trace_id now_us due_us wait_us id_out lag_ms
  local t0_us=${EPOCHREALTIME/./} max_lag=0 n=0
  local -a shape
  : >"$out/submit-$policy.txt"
  while read -r seq at dur nodes gpn gpus tmin _trace_id; do
    [[ $seq == '#'* ]] && continue
    due_us=$((t0_us + 10#${at/./} * 1000))
    now_us=${EPOCHREALTIME/./}
    wait_us=$((due_us - now_us))
    if [ "$wait_us" -gt 0 ]; then
      sleep "$((wait_us / 1000000)).$(printf '%06d' $((wait_us % 1000000)))"
    fi
    if [ "$nodes" -eq 1 ]; then shape=(-N1 --gpus="$gpus"); else
      shape=(-N "$nodes" --gpus-per-node="$gpn")
    fi
    id_out=$(sbatch --parsable -J "rgb-$seq" -t "$tmin" -o /dev/null "${shape[@]}" \
      --wrap "sleep $dur" 2>"$out/sbatch.err") ||
      die "$policy: sbatch of stream job $seq (${shape[*]}) failed: $(cat "$out/sbatch.err")"
    now_us=${EPOCHREALTIME/./}
    lag_ms=$(((now_us - due_us) / 1000))
    [ "$lag_ms" -le "$max_lag" ] || max_lag=$lag_ms
    echo "$seq ${id_out%%;*} $lag_ms" >>"$out/submit-$policy.txt"
    n=$((n + 1))
  done <"$out/stream.txt"
  log "$policy: submitted $n jobs; sbatch returned at most $max_lag ms after a job's time"
}

# wait_done POLICY SUBMITTED: waits until no job is left and jobcomp has every record.
wait_done() {
  local policy=$1 want=$2 left records deadline=$((SECONDS + 1200))
  while :; do
    left=$(squeue -h -o %i | wc -l)
    records=$(grep -c 'Name=rgb-' "$out/jobcomp-$policy.txt" 2>/dev/null || true)
    [ "$left" -gt 0 ] || [ "${records:-0}" -lt "$want" ] || return 0
    [ "$SECONDS" -le "$deadline" ] ||
      die "$policy: after 20 minutes $left jobs are still queued, $records of $want recorded"
    sleep 1
  done
}

# measure_sbatch LABEL N: sbatch round trips of held 2-node jobs (the work job_submit/rail does for
# a multi-node job) into $out/latency-LABEL.txt, one line per submission in microseconds.
measure_sbatch() {
  local label=$1 n=$2 i t0 t1
  for ((i = 0; i < n; i++)); do
    t0=${EPOCHREALTIME/./}
    sbatch --parsable --hold -J "rgl-$i" -N2 --gpus-per-node=8 -t 5 -o /dev/null \
      --wrap true >/dev/null 2>"$out/sbatch.err" ||
      die "latency: sbatch failed: $(cat "$out/sbatch.err")"
    t1=${EPOCHREALTIME/./}
    echo $((t1 - t0)) >>"$out/latency-$label.txt"
  done
  scancel --user="$(id -un)" --state=PENDING || die "latency: scancel failed"
}

# set_job_submit on|off: JobSubmitPlugins=rail in force or commented out, then scontrol
# reconfigure (Slurm 22.05 reloads the job_submit plugins there).
set_job_submit() {
  local conf=$RAILGUARD_CLUSTER_DIR/slurm.conf
  if [ "$1" = on ]; then
    sed -i 's/^#JobSubmitPlugins=rail$/JobSubmitPlugins=rail/' "$conf"
  else
    sed -i 's/^JobSubmitPlugins=rail$/#JobSubmitPlugins=rail/' "$conf"
  fi
  scontrol reconfigure || die "scontrol reconfigure failed"
  set_healthy  # reconfigure resets node features
}

# run_policy tree|rail|strict|prefer
run_policy() {
  local policy=$1 rounds=5 r per
  local -a opts=(--topo "$topo" --railctl "$bin/railctl" --timeout 180)
  rm -f "$out/jobcomp-$policy.txt"
  {
    echo "JobCompType=jobcomp/filetxt"
    echo "JobCompLoc=$out/jobcomp-$policy.txt"
    echo "SchedulerParameters=bf_interval=2,max_switch_wait=300"
  } >"$out/extra-$policy.conf"
  if [ "$policy" != tree ]; then
    echo "topology: topology.yaml" >"$out/railguard.yaml"  # default placement config
    [ "$policy" = rail ] ||
      printf 'placement:\n  default_mode: %s\n' "$policy" >>"$out/railguard.yaml"
    echo "topology: $topo" >"$out/spank-railguard.yaml"
    echo "optional $bin/slurm-plugins/spank_railguard.so config=$out/spank-railguard.yaml" \
      >"$out/plugstack.conf"
    {
      echo "JobSubmitPlugins=rail"
      echo "PlugStackConfig=$out/plugstack.conf"
    } >>"$out/extra-$policy.conf"
    opts+=(--topology-plugin rail --plugin-dir "$bin/slurm-plugins"
      --railguard-conf "$out/railguard.yaml")
  else
    opts+=(--topology-plugin tree)
  fi
  opts+=(--conf-extra "$out/extra-$policy.conf")
  log "$policy: starting $node_count nodes"
  rg_cluster_start --no-trap "${opts[@]}" || die "$policy: the cluster did not start"
  [ "$policy" = tree ] || set_healthy
  local t0=$SECONDS load0 load1
  read -r load0 _ </proc/loadavg
  submit_stream "$policy"
  wait_done "$policy" "$(wc -l <"$out/submit-$policy.txt")"
  read -r load1 _ </proc/loadavg
  log "$policy: stream done after $((SECONDS - t0)) s"
  echo "$policy: host load average $load0 at the start, $load1 at the end;" \
    "sbatch returned at most $(sort -k3 -n "$out/submit-$policy.txt" | tail -n 1 |
      awk '{ print $3 }') ms after a job's time" >"$out/host-$policy.txt"
  # The sbatch latency: on the first railguard cluster.
  if [ "$policy" != tree ] && [ "$latency" -gt 0 ] && [ ! -s "$out/latency-rail.txt" ]; then
    # Alternate with and without job_submit/rail, a few rounds, to spread drift evenly.
    per=$(((latency + rounds - 1) / rounds))
    for ((r = 0; r < rounds; r++)); do
      set_job_submit off
      measure_sbatch none "$per"
      set_job_submit on
      measure_sbatch rail "$per"
    done
    log "$policy: sbatch round trips measured ($((per * rounds)) per side)"
  fi
  rg_cluster_stop
}

rm -f "$out"/latency-*.txt "$out"/host-*.txt
for p in "${policy_list[@]}"; do run_policy "$p"; done

# --- results -----------------------------------------------------------------------------------
percentiles() {  # FILE: "p50 p99 mean" in ms of microsecond samples
  sort -n "$1" | awk '{ v[NR] = $1; s += $1 } END {
    i50 = int(NR * 0.50 + 0.999999); i99 = int(NR * 0.99 + 0.999999)
    printf "%.1f %.1f %.1f\n", v[i50] / 1000, v[i99] / 1000, s / NR / 1000 }'
}

{
  echo "== placement benchmark"
  echo "layout:  $topo ($su_count SUs, $node_count nodes, 8 GPUs each)"
  echo "stream:  $(sed -n '1s/^# //p' "$out/stream.txt")"
  echo "         $(cat "$out/stream.summary")"
  echo "runs:    one live cluster per policy; times are benchmark seconds" \
    "(x$compress for trace time)"
  echo
  report=(--topo "$topo" --stream "$out/stream.txt" --details)
  declare -A title=([tree]=topology/tree [rail]=railguard [strict]=railguard-strict
    [prefer]=railguard-prefer)
  for p in "${policy_list[@]}"; do report+=(--run "${title[$p]}=$out/jobcomp-$p.txt"); done
  "$bin/bench_placement" report "${report[@]}"
  for p in "${policy_list[@]}"; do cat "$out/host-$p.txt"; done
  if [ -s "$out/latency-rail.txt" ]; then
    echo
    echo "== sbatch round trip on the live cluster (held 2-node jobs)," \
      "with and without job_submit/rail"
    printf '%-28s %8s %8s %8s %8s\n' "JobSubmitPlugins" samples "p50 ms" "p99 ms" "mean ms"
    read -r a b c < <(percentiles "$out/latency-none.txt")
    printf '%-28s %8d %8s %8s %8s\n' "(none)" "$(wc -l <"$out/latency-none.txt")" "$a" "$b" "$c"
    read -r a b c < <(percentiles "$out/latency-rail.txt")
    printf '%-28s %8d %8s %8s %8s\n' "rail" "$(wc -l <"$out/latency-rail.txt")" "$a" "$b" "$c"
  fi
  if [ "$cost" = 1 ]; then
    echo
    echo "== plugin cost"
    cost_opts=(--topo "$topo")
    [ "$quick" = 0 ] || cost_opts+=(--runs 5 --rounds 200)
    "$bin/bench_plugin_cost" "${cost_opts[@]}"
  fi
} | tee "$out/results.txt"
log "results, stream and jobcomp files are in $out"
