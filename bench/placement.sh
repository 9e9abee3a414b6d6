#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Placement benchmark: the same time-compressed stream of real GPU jobs through two or more
# policies, side by side, each on its own live local Slurm cluster
# (tests/harness/cluster.sh: a real slurmctld and one slurmd per node, 8 fake GPUs each):
#   stock tree          stock Slurm with railctl's topology.conf export; users submit without
#                       --switches, as stock users do
#   tree + --switches   the same, every multi-node job submitted with
#                       --switches=ceil(nodes/SU size)@<wait> (what a short job_submit/lua
#                       does instead of railguard)
#   railguard (strict)  topology/rail + job_submit/rail (default placement config: strict) +
#                       the SPANK plugin
#   railguard (strict, written out) / railguard (prefer)   --policies ...,strict / ...,prefer
#   stock block         (--policies ...,block, Slurm >= 24.05 only: --slurm-version) stock
#                       topology/block with railctl's block export, no user flags
# Every node has the healthy feature; mid-replay a fault takes it from some nodes the way
# railcheck restricts a node (and sets their Extra), and the jobs started on them after it
# are counted.
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

Runs one job stream through stock topology/tree, topology/tree with --switches on every
multi-node job, and railguard's plugins, on live local Slurm clusters, with a fault (nodes
restricted as railcheck does) half way through, and prints the side-by-side table, the
verdicts, and the plugins' cost.

  --quick             small fast run: etc/dev-4su.yaml (32 nodes), 40 jobs, ~4 minutes
  --long-queue        a replay whose queue outlasts the switch waits: the same arrivals,
                      run times compressed less, so the offered load is higher (full: 4x
                      less, capped at 10 min; quick: 10x less, capped at 60 s, and
                      --switch-wait 60)
  --trace FILE        trace (default: shared/data/traces/microsoft-itp/cluster04.csv)
  --format F          auto (default), csv or swf
  --skip K            leave out the first K jobs of the trace (sorted by submission)
  --jobs N            jobs in the stream
  --compress F        trace seconds per benchmark second (submission gaps and run times)
  --load L            L times the trace's arrival rate: submission gaps shrink by L more,
                      run times do not (1: the trace's own load)
  --max-duration S    cap each job's run time at S benchmark seconds
  --topo YAML         the layout (default etc/superpod-h100.yaml: 4 SUs, 127 nodes)
  --slurm-version V   run every policy on clusters of Slurm V as scripts/build_slurm.sh
                      installs it (tests/harness/cluster.sh --slurm-version V), with the
                      railguard plugins of build/slurm-plugins-V (default: the system Slurm
                      and build/slurm-plugins)
  --policies LIST     comma-separated, run in this order (default tree,switches,rail):
                        tree      stock topology/tree, no --switches
                        switches  stock topology/tree, every multi-node job with
                                  --switches=ceil(nodes/SU size)@<--switch-wait>
                        rail      railguard's plugins, default placement config (strict)
                        strict    railguard's plugins with default_mode: strict written out
                        prefer    railguard's plugins with default_mode: prefer
                        block     stock topology/block, topology.conf from railctl's
                                  block export (one block per one-hop domain), no
                                  --switches or --segment (Slurm >= 24.05: --slurm-version)
                      The verdicts compare each railguard policy with switches when it runs,
                      else with block when it runs, else with the first policy.
  --switch-wait S     the switches policy's wait bound in seconds (default 300, quick
                      --long-queue 60); its slurm.conf gets max_switch_wait=max(S,300)
  --rail-max-switch-wait S
                      SchedulerParameters max_switch_wait of the railguard policies (default:
                      the value in etc/slurm.conf.railguard, else 31536000)
  --sched-params P    more SchedulerParameters for every policy, comma-separated, appended to
                      bf_interval=2,max_switch_wait=... (e.g. bf_topopt_enable on 26.05:
                      the backfill scheduler's topology-aware placement; checked: letters,
                      digits, _ = , only)
  --fault-at S        inject the fault S seconds into the stream (default: half way through
                      its submissions)
  --fault-nodes N     nodes the fault degrades: the first N of the first SU (default 2)
  --no-fault          no fault
  --closed-loop       submit every job at once, each with --begin at its stream second, and
                      count its wait from that second (not from SubmitTime): the replay no
                      longer depends on how fast this machine's sbatch keeps up with the
                      stream (open loop, the default, lagged 1-3 s behind it at 26.05)
  --latency N         sbatch round trips per side for the job_submit latency (default 100
                      full, 40 quick; 0 skips it)
  --no-cost           skip the in-process plugin cost benchmark
  --out DIR           keep the stream, jobcomp files and results here (default: a new
                      /tmp/rg-placement.XXXXXX, printed at the end)
  --build DIR         build tree with railctl, bench_placement, bench_plugin_cost and
                      slurm-plugins/ (default $RAILGUARD_BINARY_DIR, else ./build)
Defaults of the full run: --skip 15000 --jobs 600 --compress 2000 --load 3 --max-duration 120.
Defaults of --quick:      --skip 20 --jobs 40 --compress 2000 --load 1 --max-duration 10.
--long-queue changes them: full --compress 500 --load 12 --max-duration 600; quick --compress
200 --load 10 --max-duration 60 --switch-wait 60.
EOF
}

die() {
  echo "placement.sh: error: $*" >&2
  exit 1
}
log() { echo "placement.sh: $*" >&2; }

quick=0 trace="" format=auto skip="" jobs="" compress="" load="" max_duration="" topo=""
policies=tree,switches,rail latency="" cost=1 out="" long_queue=0 switch_wait=""
rail_max_switch_wait="" fault=1 fault_at="" fault_nodes=2 slurm_version="" jobcomp=filetxt
sched_params="" closed_loop=0
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --closed-loop) closed_loop=1; shift ;;
    --trace | --format | --skip | --jobs | --compress | --load | --max-duration | --topo | \
      --policies | --latency | --out | --build | --switch-wait | --rail-max-switch-wait | \
      --fault-at | --fault-nodes | --slurm-version | --sched-params)
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
        --switch-wait) switch_wait=$2 ;;
        --rail-max-switch-wait) rail_max_switch_wait=$2 ;;
        --fault-at) fault_at=$2 ;;
        --fault-nodes) fault_nodes=$2 ;;
        --slurm-version) slurm_version=$2 ;;
        --sched-params) sched_params=$2 ;;
      esac
      shift 2 ;;
    --no-cost) cost=0; shift ;;
    --long-queue) long_queue=1; shift ;;
    --no-fault) fault=0; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "placement.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

[[ $sched_params =~ ^[A-Za-z0-9_=,]*$ ]] ||
  die "--sched-params '$sched_params': expected SchedulerParameters such as bf_topopt_enable or a=1,b (letters, digits, _ = , only)"
if [ "$long_queue" = 1 ] && [ "$quick" = 1 ]; then
  # The quick stream's arrivals stay as they are (gaps / 2000); its run times are compressed
  # 10x less, so the 32 nodes stay full for minutes and 4-node jobs queue past a 60 s wait.
  : "${compress:=200}" "${load:=10}" "${max_duration:=60}" "${switch_wait:=60}"
elif [ "$long_queue" = 1 ]; then
  # The full run's arrivals (gaps / 6000) with run times compressed 4x less (capped at 10
  # min): about 530 s of work for the 127 nodes arrives within 93 s, so the queue holds
  # several minutes of work and waits pass the 300 s switch wait (estimated from the
  # stream, not measured).
  : "${compress:=500}" "${load:=12}" "${max_duration:=600}"
fi
: "${switch_wait:=300}"
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
[[ $switch_wait =~ ^[0-9]+$ ]] && [ "${#switch_wait}" -le 9 ] ||
  die "--switch-wait needs a whole number of seconds, got '$switch_wait'"
if [ -z "$rail_max_switch_wait" ]; then
  # What the shipped slurm.conf lines say (etc/slurm.conf.railguard), else a year.
  rail_max_switch_wait=$(sed -nE 's/^SchedulerParameters=.*max_switch_wait=([0-9]+).*/\1/p' \
    "$src/etc/slurm.conf.railguard" 2>/dev/null | tail -n 1)
  : "${rail_max_switch_wait:=31536000}"
fi
[[ $rail_max_switch_wait =~ ^[0-9]+$ ]] && [ "${#rail_max_switch_wait}" -le 9 ] ||
  die "--rail-max-switch-wait needs a whole number of seconds, got '$rail_max_switch_wait'"
[[ $fault_nodes =~ ^[0-9]+$ ]] && [ "$fault_nodes" -ge 1 ] ||
  die "--fault-nodes needs a whole number, 1 or more, got '$fault_nodes'"
[ -z "$fault_at" ] || [[ $fault_at =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
  die "--fault-at needs seconds (e.g. 30 or 12.5), got '$fault_at'"
IFS=, read -ra policy_list <<<"$policies"
declare -A seen_policy=()
for p in "${policy_list[@]}"; do
  case $p in
    tree | switches | rail | strict | prefer | block) ;;
    *) die "--policies: unknown policy '$p'; expected tree, switches, rail, strict, prefer or block" ;;
  esac
  [ -z "${seen_policy[$p]:-}" ] || die "--policies: $p given twice"
  seen_policy[$p]=1
done
[ "${#policy_list[@]}" -gt 0 ] || die "--policies: no policy"
# The Slurm every cluster runs: --slurm-version's prefix, else the system Slurm.
harness_slurm=() plugin_dir_name=slurm-plugins
if [ -n "$slurm_version" ]; then
  [[ $slurm_version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
    die "--slurm-version needs a release like 24.11.5, got '$slurm_version'"
  slurm_prefix=${RAILGUARD_SLURM_ROOT:-/opt/railguard}/slurm-$slurm_version
  [ -x "$slurm_prefix/sbin/slurmctld" ] ||
    die "--slurm-version $slurm_version: no $slurm_prefix/sbin/slurmctld (scripts/build_slurm.sh $slurm_version installs it)"
  harness_slurm=(--slurm-version "$slurm_version") plugin_dir_name=slurm-plugins-$slurm_version
  # scripts/build_slurm.sh installs no jobcomp plugins: then the records come from slurmctld
  # (finished jobs kept a day, dumped with scontrol in jobcomp/filetxt's form, see dump_jobs).
  [ -f "$slurm_prefix/lib/slurm/jobcomp_filetxt.so" ] || jobcomp=scontrol
  slurm_release=$slurm_version
else
  # What the harness starts by default (it reads the release the same way).
  slurm_release=$(slurmctld -V 2>/dev/null | awk '{ print $2 }' || true)
fi
if [ -n "${seen_policy[block]:-}" ]; then
  IFS=. read -r rel_major rel_minor _ <<<"$slurm_release"
  [ "$((10#${rel_major:-0} * 100 + 10#${rel_minor:-0}))" -ge 2405 ] ||
    die "--policies block: stock topology/block with BlockSizes (railctl's block export) needs" \
      "Slurm >= 24.05 (topology/block came in 23.11), these clusters run Slurm" \
      "${slurm_release:-of unknown release}; give --slurm-version 24.11.5 (scripts/build_slurm.sh)"
fi
[ -f "$trace" ] || die "trace $trace not found (--trace FILE)"
[ -f "$topo" ] || die "layout $topo not found (--topo YAML)"
topo=$(cd "$(dirname "$topo")" && pwd)/$(basename "$topo")
bin=$(cd "$bin" 2>/dev/null && pwd) || die "build tree $bin not found (--build DIR)"
for f in railctl bench_placement bench_plugin_cost; do
  [ -x "$bin/$f" ] || die "$bin/$f not built (cmake --build $bin)"
done
if [ -n "${seen_policy[rail]:-}${seen_policy[strict]:-}${seen_policy[prefer]:-}" ]; then
  for f in topology_rail.so job_submit_rail.so spank_railguard.so; do
    [ -f "$bin/$plugin_dir_name/$f" ] ||
      die "$bin/$plugin_dir_name/$f not built (the plugins need scripts/setup.sh's Slurm source)"
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
# The largest SU (what a job_submit/lua would hard-code).
su_nodes=$(awk '{ n[$2]++ } END { m = 0; for (s in n) if (n[s] > m) m = n[s]; print m }' \
  "$out/nodes.txt")
"$bin/bench_placement" switches --stream "$out/stream.txt" --su-nodes "$su_nodes" \
  --wait "$switch_wait" >"$out/switches.txt" || die "bench_placement switches failed"
declare -A switches_of=()
while read -r n opt; do switches_of[$n]=$opt; done <"$out/switches.txt"
# The fault: the first --fault-nodes nodes of the first SU, half way through the submissions.
fault_list=()
if [ "$fault" = 1 ]; then
  first_su=$(awk 'NR == 1 { print $2 }' "$out/nodes.txt")
  mapfile -t fault_list < <(awk -v su="$first_su" '$2 == su { print $1 }' "$out/nodes.txt" |
    head -n "$fault_nodes")
  [ "${#fault_list[@]}" -eq "$fault_nodes" ] ||
    die "--fault-nodes $fault_nodes: SU $first_su has only ${#fault_list[@]} nodes"
  if [ -z "$fault_at" ]; then
    fault_at=$(awk '!/^#/ { t = $2 } END { printf "%.3f", t / 2 }' "$out/stream.txt")
  fi
  fault_hosts=$(IFS=,; echo "${fault_list[*]}")
  log "fault: ${fault_hosts} lose rail_healthy at stream second $fault_at"
fi

# --- one policy's run ----------------------------------------------------------------------------

# inject_fault POLICY: railcheck's restrict verdict on every node of the fault: the healthy
# feature taken from the available and active lists (the other features kept), Extra set
# to railcheck's report of a
# degraded rail 0 (bench_placement degraded-extra: wire/extra_json's writer). Writes
# $out/fault-POLICY.txt: the first whole second after the last update returned, and the nodes.
inject_fault() {
  local policy=$1 extra
  extra=$("$bin/bench_placement" degraded-extra --topo "$topo" --rail 0) ||
    die "bench_placement degraded-extra failed"
  with_healthy remove "$fault_hosts"
  scontrol update NodeName="$fault_hosts" Extra="$extra" ||
    die "$policy: the fault's scontrol update of the Extra of $fault_hosts failed"
  echo "$(date -d "@$((EPOCHSECONDS + 1))" +%Y-%m-%dT%H:%M:%S) $fault_hosts" \
    >"$out/fault-$policy.txt"
  log "$policy: fault injected: $fault_hosts restricted ($(cat "$out/fault-$policy.txt"))"
}

# sleep_until DUE_US: sleeps until the EPOCHREALTIME (in microseconds) DUE_US.
sleep_until() {
  local wait_us=$(($1 - ${EPOCHREALTIME/./}))
  [ "$wait_us" -le 0 ] || sleep "$((wait_us / 1000000)).$(printf '%06d' $((wait_us % 1000000)))"
}

# with_healthy add|remove [NODES]: the healthy feature added to (taken from) the available
# and active feature lists of NODES (a hostlist; default every node), every other feature
# kept, as railcheck does; one scontrol update per group of nodes with the same lists.
with_healthy() {
  local how=$1 avail act group
  local -a which=()
  [ -z "${2:-}" ] || which=("$2")
  while read -r avail act group; do
    [ "$avail" != - ] || avail=""
    [ "$act" != - ] || act=""
    scontrol update NodeName="$group" AvailableFeatures="$avail" ActiveFeatures="$act" ||
      die "scontrol update of the features of $group failed"
  done < <(scontrol show node -o "${which[@]}" | awk -v how="$how" '
    function fix(list,   n, a, i, r) {
      if (list == "(null)") list = ""
      n = split(list, a, ","); r = ""
      for (i = 1; i <= n; i++) if (a[i] != "" && a[i] != "rail_healthy") r = r (r ? "," : "") a[i]
      if (how == "add") r = r (r ? "," : "") "rail_healthy"
      return r == "" ? "-" : r
    }
    {
      name = av = ac = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^NodeName=/) name = substr($i, 10)
        else if ($i ~ /^AvailableFeatures=/) av = substr($i, 19)
        else if ($i ~ /^ActiveFeatures=/) ac = substr($i, 16)
      }
      if (name == "") next
      k = fix(av) " " fix(ac); g[k] = g[k] (g[k] ? "," : "") name
    }
    END { for (k in g) print k, g[k] }')
}

# set_healthy: every node gets the healthy feature.
# set_healthy: every node healthy as railcheck publishes it: the feature, and its health in
# Extra (job_submit/rail's feature keeper takes rail_healthy from a node whose Extra is not
# healthy, and gives it back from Extra after slurmctld rereads slurm.conf).
set_healthy() {
  local extra='{"railcheck":{"failed":[],"healthy":true,"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":1,"verdict":"ok"}}'
  scontrol update NodeName="$(sinfo -h -N -o %N | sort -u | paste -sd,)" Extra="$extra" ||
    die "scontrol update of the nodes' Extra failed"
  with_healthy add
}

# submit_stream POLICY: submits every job of the stream at its time; records job ids and the
# submission lag (how late sbatch returned, in ms) in $out/submit-POLICY.txt.
submit_stream() {
  local policy=$1 seq at dur nodes gpn gpus tmin _trace_id now_us due_us id_out lag_ms
  local t0_us=${EPOCHREALTIME/./} max_lag=0 n=0 fault_us=-1 origin=0 begin
  local -a shape
  if [ "$closed_loop" = 1 ]; then
    # The stream's second 0: far enough ahead for every sbatch (about 30 ms each here) to be
    # in before the first job is due.
    origin=$(((t0_us / 1000000) + 20 + $(wc -l <"$out/stream.txt") / 15))
    t0_us=$((origin * 1000000))
    printf '%(%Y-%m-%dT%H:%M:%S)T\n' "$origin" >"$out/origin-$policy.txt"
  fi
  if [ "${#fault_list[@]}" -gt 0 ]; then
    fault_us=$(awk -v t="$fault_at" 'BEGIN { printf "%d", t * 1000000 }')
    fault_us=$((t0_us + fault_us))
  fi
  : >"$out/submit-$policy.txt"
  while read -r seq at dur nodes gpn gpus tmin _trace_id; do
    [[ $seq == '#'* ]] && continue
    due_us=$((t0_us + 10#${at/./} * 1000))
    if [ "$closed_loop" = 0 ] && [ "$fault_us" -ge 0 ] && [ "$due_us" -ge "$fault_us" ]; then
      sleep_until "$fault_us"
      inject_fault "$policy"
      fault_us=-1
    fi
    if [ "$closed_loop" = 1 ]; then
      # --begin takes whole seconds: the job's stream second, rounded up.
      printf -v begin '%(%Y-%m-%dT%H:%M:%S)T' $((origin + (10#${at/./} + 999) / 1000))
      shape=(--begin="$begin")
    else
      sleep_until "$due_us"
      shape=()
    fi
    if [ "$nodes" -eq 1 ]; then shape+=(-N1 --gpus="$gpus"); else
      shape+=(-N "$nodes" --gpus-per-node="$gpn")
      [ "$policy" != switches ] || shape+=("${switches_of[$seq]}")
    fi
    id_out=$(sbatch --parsable -J "rgb-$seq" -t "$tmin" -o /dev/null "${shape[@]}" \
      --wrap "sleep $dur" 2>"$out/sbatch.err") ||
      die "$policy: sbatch of stream job $seq (${shape[*]}) failed: $(cat "$out/sbatch.err")"
    now_us=${EPOCHREALTIME/./}
    lag_ms=$(((now_us - due_us) / 1000))
    [ "$lag_ms" -ge 0 ] || lag_ms=0 # closed loop: submitted ahead of its time
    [ "$lag_ms" -le "$max_lag" ] || max_lag=$lag_ms
    echo "$seq ${id_out%%;*} $lag_ms" >>"$out/submit-$policy.txt"
    n=$((n + 1))
  done <"$out/stream.txt"
  if [ "$fault_us" -ge 0 ]; then
    sleep_until "$fault_us"
    inject_fault "$policy"
  fi
  log "$policy: submitted $n jobs; sbatch returned at most $max_lag ms after a job's time"
}

# dump_jobs POLICY: without jobcomp/filetxt, the finished jobs slurmctld still holds
# (MinJobAge) written to $out/jobcomp-POLICY.txt as jobcomp/filetxt records.
dump_jobs() {
  scontrol show job -o | awk '
    function field(k,   i) {
      for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2)
      return ""
    }
    field("JobName") ~ /^rgb-/ && field("JobState") !~ /^(PENDING|RUNNING|COMPLETING|CONFIGURING)$/ {
      printf "JobId=%s Name=%s JobState=%s SubmitTime=%s StartTime=%s EndTime=%s NodeList=%s\n",
        field("JobId"), field("JobName"), field("JobState"), field("SubmitTime"),
        field("StartTime"), field("EndTime"), field("NodeList")
    }' >"$out/jobcomp-$1.txt" || die "$1: scontrol show job failed"
}

# wait_done POLICY SUBMITTED: waits until no job is left and jobcomp has every record.
wait_done() {
  local policy=$1 want=$2 left records deadline=$((SECONDS + 1200))
  while :; do
    left=$(squeue -h -o %i | wc -l)
    [ "$jobcomp" = filetxt ] || [ "$left" -gt 0 ] || dump_jobs "$policy"
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

# run_policy tree|switches|block|rail|strict|prefer
run_policy() {
  local policy=$1 rounds=5 r per max_wait=300
  local -a opts=(--topo "$topo" --railctl "$bin/railctl" --timeout 180)
  rm -f "$out/jobcomp-$policy.txt" "$out/fault-$policy.txt"
  case $policy in
    switches) [ "$switch_wait" -le 300 ] || max_wait=$switch_wait ;;
    rail | strict | prefer) max_wait=$rail_max_switch_wait ;;
  esac
  {
    if [ "$jobcomp" = filetxt ]; then
      echo "JobCompType=jobcomp/filetxt"
      echo "JobCompLoc=$out/jobcomp-$policy.txt"
    else
      echo "MinJobAge=86400"
    fi
    echo "SchedulerParameters=bf_interval=2,max_switch_wait=$max_wait${sched_params:+,$sched_params}"
  } >"$out/extra-$policy.conf"
  if [ "$policy" = block ]; then
    opts+=(--topology-plugin block)  # the harness writes railctl's block export
  elif [ "$policy" != tree ] && [ "$policy" != switches ]; then
    echo "topology: topology.yaml" >"$out/railguard.yaml"  # default placement config
    [ "$policy" = rail ] ||
      printf 'placement:\n  default_mode: %s\n' "$policy" >>"$out/railguard.yaml"
    echo "topology: $topo" >"$out/spank-railguard.yaml"
    echo "optional $bin/$plugin_dir_name/spank_railguard.so config=$out/spank-railguard.yaml" \
      >"$out/plugstack.conf"
    {
      echo "JobSubmitPlugins=rail"
      echo "PlugStackConfig=$out/plugstack.conf"
    } >>"$out/extra-$policy.conf"
    opts+=(--topology-plugin rail --plugin-dir "$bin/$plugin_dir_name"
      --railguard-conf "$out/railguard.yaml")
  else
    opts+=(--topology-plugin tree)
  fi
  opts+=(--conf-extra "$out/extra-$policy.conf" "${harness_slurm[@]}")
  log "$policy: starting $node_count nodes (Slurm $slurm_release)"
  rg_cluster_start --no-trap "${opts[@]}" || die "$policy: the cluster did not start"
  if [ "$policy" = block ]; then
    grep -q '^TopologyPlugin *= *topology/block' < <(scontrol show config) ||
      die "block: slurmctld does not run topology/block"
    cp "$RAILGUARD_CLUSTER_DIR/topology.conf" "$out/topology-block.conf"  # what Slurm read
    log "block: topology/block with $(grep -c '^BlockName=' "$out/topology-block.conf")" \
      "blocks, $(sed -n 's/^BlockSizes=//p' "$out/topology-block.conf")"
  fi
  set_healthy  # on every policy: the same feature lists, and the fault takes it the same way
  local t0=$SECONDS load0 load1
  read -r load0 _ </proc/loadavg
  submit_stream "$policy"
  wait_done "$policy" "$(wc -l <"$out/submit-$policy.txt")"
  read -r load1 _ </proc/loadavg
  log "$policy: stream done after $((SECONDS - t0)) s"
  # Which of Slurm's schedulers started the jobs, and how long their cycles took: a start that
  # waits for the next backfill cycle (bf_interval) rather than the main scheduler's event-
  # driven run adds seconds to every wait of a full cluster.
  sdiag >"$out/sdiag-$policy.txt" 2>&1 || echo "sdiag failed" >>"$out/sdiag-$policy.txt"
  echo "$policy: host load average $load0 at the start, $load1 at the end;" \
    "sbatch returned at most $(sort -k3 -n "$out/submit-$policy.txt" | tail -n 1 |
      awk '{ print $3 }') ms after a job's time" >"$out/host-$policy.txt"
  # The sbatch latency: on the first railguard cluster.
  if [ "$policy" != tree ] && [ "$policy" != switches ] && [ "$policy" != block ] &&
    [ "$latency" -gt 0 ] &&
    [ ! -s "$out/latency-rail.txt" ]; then
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

# sdiag_line POLICY: the jobs each of Slurm's schedulers started in POLICY's run and their mean
# cycles, from its saved sdiag (Slurm 22.05-26.05 print these labels).
sdiag_line() {
  [ -s "$out/sdiag-$1.txt" ] || return 0
  awk -v p="$1" '
    /^Main schedule statistics/ { sec = "main" }
    /^Backfilling stats/ { sec = "bf" }
    /^[[:space:]]*Jobs started:/ && !started { started = $NF }
    /Total backfilled jobs \(since last slurm start\)/ { bf = $NF }
    sec == "main" && /^[[:space:]]*Mean cycle:/ { main_mean = $NF }
    sec == "main" && /^[[:space:]]*Total cycles:/ { main_n = $NF }
    sec == "bf" && /^[[:space:]]*Mean cycle:/ { bf_mean = $NF }
    sec == "bf" && /^[[:space:]]*Total cycles:/ { bf_n = $NF }
    END {
      if (started == "" || bf == "") { print p ": sdiag: no scheduler counts"; exit }
      printf "%s: sdiag: %d jobs started, %d by the main scheduler and %d by backfill;", p,
        started, started - bf, bf
      printf " mean cycle main %s us (%s cycles), backfill %s us (%s cycles)\n", main_mean,
        main_n, bf_mean, bf_n
    }' "$out/sdiag-$1.txt"
}

{
  echo "== placement benchmark"
  echo "slurm:   $slurm_release${slurm_version:+ ($slurm_prefix)}"
  echo "layout:  $topo ($su_count SUs, $node_count nodes, 8 GPUs each)"
  [ "$jobcomp" = filetxt ] ||
    echo "records: scontrol show job (this Slurm has no jobcomp/filetxt; MinJobAge=86400)"
  echo "stream:  $(sed -n '1s/^# //p' "$out/stream.txt")"
  echo "         $(cat "$out/stream.summary")"
  echo "runs:    one live cluster per policy; times are benchmark seconds" \
    "(x$compress for trace time)"
  echo "waits:   tree + --switches: --switches=ceil(nodes/$su_nodes)@${switch_wait}s" \
    "(max_switch_wait=$([ "$switch_wait" -le 300 ] && echo 300 || echo "$switch_wait"));" \
    "railguard: max_switch_wait=$rail_max_switch_wait"
  [ -z "$sched_params" ] || echo "sched:   every policy's SchedulerParameters also: $sched_params"
  if [ "${#fault_list[@]}" -gt 0 ]; then
    echo "fault:   at stream second $fault_at, $fault_hosts lose rail_healthy and get" \
      "railcheck's restrict Extra; starts from the next whole second on are counted"
  fi
  echo
  report=(--topo "$topo" --stream "$out/stream.txt" --details)
  declare -A title=([tree]="stock tree" [switches]="tree + --switches"
    [rail]="railguard (strict)" [strict]="railguard (strict, written out)"
    [prefer]="railguard (prefer)" [block]="stock block")
  for p in "${policy_list[@]}"; do
    report+=(--run "${title[$p]}=$out/jobcomp-$p.txt")
    [ ! -s "$out/fault-$p.txt" ] || report+=(--fault "${title[$p]}=$out/fault-$p.txt")
    [ ! -s "$out/origin-$p.txt" ] || report+=(--due-origin "${title[$p]}=$(cat "$out/origin-$p.txt")")
    case $p in rail | strict | prefer) report+=(--verdict "${title[$p]}") ;; esac
  done
  if [ -n "${seen_policy[switches]:-}" ]; then
    report+=(--baseline "${title[switches]}")
  elif [ -n "${seen_policy[block]:-}" ]; then
    report+=(--baseline "${title[block]}")
  fi
  "$bin/bench_placement" report "${report[@]}"
  for p in "${policy_list[@]}"; do cat "$out/host-$p.txt"; done
  for p in "${policy_list[@]}"; do sdiag_line "$p"; done
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
