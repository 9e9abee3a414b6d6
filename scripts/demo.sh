#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The railguard demo: what it does today, on the example layouts and on a live local Slurm
# cluster (a real slurmctld and one slurmd per node of etc/dev-4su.yaml).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=progress.sh
source "$here/scripts/progress.sh"
rg_say demo "first the tools: Debian packages, the Slurm releases and railguard's build" \
  "(on a fresh 2-core machine about 17 minutes, a line at least every 30 s; then about 2 minutes)"
bash "$here/scripts/setup.sh"
bash "$here/scripts/build.sh"
build=${RAILGUARD_BUILD_DIR:-$here/build}
railctl="$build/railctl"
tmp=$(mktemp -d /tmp/railguard-demo.XXXXXX)
cluster_up=0
cleanup() { [ "$cluster_up" = 1 ] && rg_cluster_stop >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_started JOBID: waits up to 30 s until the job runs or has completed.
wait_started() {
  for _ in $(seq 60); do
    scontrol show job "$1" | grep -q 'JobState=\(RUNNING\|COMPLETED\)' && return 0
    sleep 0.5
  done
}
step() { printf '\n\033[1m== %s\033[0m  [%s]\n' "$*" "$(rg_clock)"; }
run() { printf '$ %s\n' "$*"; "$@" || printf '(exit %d)\n' "$?"; }
# job_table [NODES]: the queue, one job a line, with the SUs of its nodes (NODES, default
# $tmp/nodes: "node SU" lines).
job_table() {
  local nodes=${1:-$tmp/nodes}
  printf '%-6s %-6s %-10s %-16s %s\n' JOBID NODES STATE NODELIST "SCALABLE UNITS"
  squeue -h -o '%i %D %T %N' | while read -r id n state list; do
    sus=$(scontrol show hostnames "$list" | awk 'NR==FNR {su[$1]=$2; next} {print su[$1]}' \
            "$nodes" - | sort -u | paste -sd, -)
    printf '%-6s %-6s %-10s %-16s %s\n' "$id" "$n" "$state" "$list" "$sus"
  done
}
# healthy_sus K: su1..suK of etc/dev-4su.yaml (8 nodes each) get their SU feature and
# rail_healthy, as railcheck publishes them.
healthy_sus() {
  local s
  for ((s = 1; s <= $1; s++)); do
    scontrol update NodeName="n[$(printf '%03d' $((s * 8 - 7)))-$(printf '%03d' $((s * 8)))]" \
      AvailableFeatures="su$s,rail_healthy" ActiveFeatures="su$s,rail_healthy"
  done
}
cd "$here"

step "1. The DGX H100 SuperPOD reference layout validates"
run "$railctl" topology validate etc/superpod-h100.yaml

step "2. A broken layout: every problem, each with file:line:column"
run "$railctl" topology validate tests/data/topo/broken.yaml

step "3. The development layout (4 SUs x 8 nodes), and where one node's rails go"
run "$railctl" topology show etc/dev-4su.yaml
run "$railctl" topology show etc/dev-4su.yaml --node n010

step "4. Export for stock Slurm: topology/tree and topology/block (Slurm >= 24.05)"
run "$railctl" topology export etc/dev-4su.yaml --format tree
run "$railctl" topology export etc/dev-4su.yaml --format block

step "5. Rail order from hwloc: each GPU's nearest NIC (DGX H100-shaped hwloc XML)"
run "$railctl" topology rails --xml tests/data/hwloc/dgx-h100.xml

step "6. Cabling audit: generated fabrics with injected faults and three tiers, then discovery"
run "$railctl" topology simulate etc/dev-4su.yaml -o "$tmp/fabric.topo" \
  --swap n003:3:4 --drop n010:5 --drop-leaf su3:6 --unnamed n020:1 --ufm ufm01 --sharp 1 \
  --drop-uplinks su4:2:1
run "$railctl" topology discover "$tmp/fabric.topo" --cluster raildev --node-type dgx-h100 \
  -o "$tmp/discovered.yaml"
echo
echo "Three tiers, a login group and a cable on the wrong port: 8 spines in rail planes under 2"
echo "core switches, hosts login01-03 (2 HCAs each) on leaves of their own, and n005's rail-2 cable"
echo "on port 40 of its leaf. The plan gives each leaf's first_port (node i on port i)."
sed -e 's/{rail: \([0-7]\), ports: 64}/{rail: \1, ports: 64, first_port: 1}/' -e '/^spines:/,$d' \
  etc/dev-4su.yaml >"$tmp/plan.yaml"
{ echo "spines:"; for i in 1 2 3 4 5 6 7 8; do echo "  - {name: spine$i, ports: 64}"; done; } \
  >>"$tmp/plan.yaml"
run "$railctl" topology simulate "$tmp/plan.yaml" --rail-planes --cores 2 --service login:3:2 \
  --move n005:2:40 -o "$tmp/3tier.topo"
run "$railctl" topology discover "$tmp/3tier.topo" --cluster raildev --node-type dgx-h100 \
  -o "$tmp/3tier.yaml"
grep -A2 '^cores:' "$tmp/3tier.yaml"
run "$railctl" topology audit "$tmp/plan.yaml" "$tmp/3tier.topo"

step "7. Discovery on a real ibnetdiscover dump (2020 QDR/DDR fat tree), hosts named by its map"
x5=../shared/data/ibnetdiscover/hpc-toolset-x5
if [ -f "$x5/X5.topofile" ]; then
  run "$railctl" topology discover "$x5/X5.topofile" \
    --node-map "$x5/X5.map" -o "$tmp/x5.yaml"
else
  echo "demo: step 7 left out: it needs ../shared/data (the X5 dump), which is absent"
fi

step "8. A live Slurm cluster on the development layout, topology/tree from railctl's export"
# shellcheck source=../tests/harness/cluster.sh
source "$here/tests/harness/cluster.sh"
cluster_up=1
rg_cluster_start --no-trap --topo etc/dev-4su.yaml --topology-plugin tree
run scontrol show topology
"$railctl" topology show etc/dev-4su.yaml --format nodes > "$tmp/nodes"
echo "Submitting 2-, 4-, 8- and 12-node jobs (8 GPUs per node) with --switches=1 ..."
for n in 2 4 8 12; do
  sbatch -N "$n" --gpus-per-node=8 --switches=1@60 -o /dev/null --wrap 'sleep 30' >/dev/null
done
sleep 3
job_table
echo "With the exported topology and --switches=1, jobs that fit one SU land in one SU. The"
echo "12-node job cannot fit one SU and idles until its 60 s switch wait runs out: stock Slurm"
echo "makes every user pick --switches by hand; job_submit/rail (next step) picks it per job."
scancel --user="$(id -un)"
rg_cluster_stop >/dev/null 2>&1; cluster_up=0

step "9. railguard's plugins: topology/rail + job_submit/rail + SPANK, jobs WITHOUT --switches"
plugins="$build/slurm-plugins"
echo "topology: $here/etc/dev-4su.yaml" >"$tmp/railguard.yaml"
echo "optional $plugins/spank_railguard.so config=$tmp/railguard.yaml" >"$tmp/plugstack.conf"
cat >"$tmp/extra.conf" <<CONF
JobSubmitPlugins=rail
SchedulerParameters=max_switch_wait=31536000
PlugStackConfig=$tmp/plugstack.conf
CONF
cluster_up=1
rg_cluster_start --no-trap --topo etc/dev-4su.yaml --topology-plugin rail --plugin-dir "$plugins" \
  --conf-extra "$tmp/extra.conf" --railguard-conf "$tmp/railguard.yaml"
run scontrol show topology
echo "Day one: railcheck has published no node healthy yet, so no node has rail_healthy, and"
echo "Slurm refuses a constraint on a feature no node has. job_submit/rail accepts the job"
echo "without it, holds it, and its keeper adds the feature when it releases the job:"
day_one=$(sbatch --parsable -N4 --exclusive -o /dev/null --wrap 'sleep 1' 2>"$tmp/day-one.err") ||
  { echo "  sbatch refused the day-one job: $(cat "$tmp/day-one.err")"; exit 1; }
echo "  \$ sbatch -N4 --exclusive ...  ->  job $day_one: $(sed -n 's/^sbatch: //p' "$tmp/day-one.err" | cut -c1-150)..."
echo "Publishing every node healthy the way railcheck does (its health in Extra, the feature"
echo "rail_healthy); step 10 runs railcheck itself. Multi-node jobs require rail_healthy."
extra_ok='{"railcheck":{"failed":[],"rails":["ok","ok","ok","ok","ok","ok","ok","ok"],"time":1,"verdict":"ok"}}'
extra_bad='{"railcheck":{"failed":["rail3:port.rate"],"rails":["ok","ok","ok","degraded","ok","ok","ok","ok"],"time":1,"verdict":"restrict"}}'
while read -r node su; do
  scontrol update NodeName="$node" Extra="$extra_ok" AvailableFeatures="$su,rail_healthy" \
    ActiveFeatures="$su,rail_healthy"
done <"$tmp/nodes"
wait_started "$day_one"
grep -F "JobId=$day_one: constraint set to" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | tail -n 1 |
  sed 's/^\[[^]]*\] /  slurmctld: /'
echo "  the day-one job $day_one: $(scontrol show job "$day_one" | grep -o 'JobState=[A-Z]*' | cut -d= -f2) on $(scontrol show job "$day_one" | grep -o ' NodeList=[^ ]*' | cut -d= -f2), Features=$(scontrol show job "$day_one" | grep -o 'Features=[^ ]*' | head -n1 | cut -d= -f2)"
echo "Submitting 2-, 4-, 8- and 12-node jobs, plain sbatch -N N --gpus-per-node=8:"
for n in 2 4 8 12; do
  printf '$ sbatch -N %s ...  ->  ' "$n"
  sbatch -N "$n" --gpus-per-node=8 -o /dev/null --wrap 'sleep 30' 2>&1 | grep -v '^Submitted' || true
done
sleep 4
printf '%-6s %-6s %-10s %-18s %-10s %s\n' JOBID NODES STATE NODELIST SWITCHES "SCALABLE UNITS"
squeue -h -o '%i %D %T %N' | while read -r id n state list; do
  sw=$(scontrol show job "$id" | grep -o 'Switches=[^ ]*' | cut -d= -f2)
  sus=$(scontrol show hostnames "$list" | awk 'NR==FNR {su[$1]=$2; next} {print su[$1]}' \
          "$tmp/nodes" - | sort -u | paste -sd, -)
  printf '%-6s %-6s %-10s %-18s %-10s %s\n' "$id" "$n" "$state" "$list" "$sw" "$sus"
done
scancel --user="$(id -un)"; sleep 1
echo "The SPANK plugin exports the node's rail NICs in rail order for NCCL:"
run srun -N1 -w n010 --gpus-per-node=8 printenv NCCL_IB_HCA
echo "Bad option values are refused at submission with what is allowed:"
run sbatch -N2 --rail-placement=fastest --wrap true
echo "n001 degraded (as railcheck publishes it), then slurmctld killed and started again:"
echo "Slurm drops run-time node features at a start; job_submit/rail's keeper gives"
echo "rail_healthy back from Extra before slurmctld serves requests, so n001 stays out."
scontrol update NodeName=n001 Extra="$extra_bad" AvailableFeatures=su1 ActiveFeatures=su1
touch "$tmp/degraded-at"
while ! [ "$RAILGUARD_CLUSTER_DIR/ctld/state/node_state" -nt "$tmp/degraded-at" ]; do sleep 0.2; done
rg_cluster_kill slurmctld && rg_cluster_respawn slurmctld
grep -F 'gave back (slurm.conf was read)' "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | tail -n 1 |
  sed 's/^\[[^]]*\] /  slurmctld: /'
id=$(sbatch --parsable -N2 -C su1 -o /dev/null --wrap 'sleep 1' 2>/dev/null)
wait_started "$id"
echo "  \$ sbatch -N2 -C su1 (right after the restart)  ->  job $id on $(scontrol show job "$id" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)"
echo "A 32-node job while n001 is degraded: 31 healthy nodes are too few. Slurm alone would"
echo "refuse it; job_submit/rail holds it, and its keeper releases it once n001 is healthy:"
id=$(sbatch --parsable -N32 --gpus-per-node=8 -o /dev/null --wrap 'sleep 1' 2>"$tmp/held.err")
echo "  \$ sbatch -N32 ...  ->  $(sed -n 's/^sbatch: //p' "$tmp/held.err")"
for _ in $(seq 20); do squeue -h -j "$id" -o %r | grep -q '^railguard:' && break; sleep 0.5; done
echo "  squeue: job $id $(squeue -h -j "$id" -o '%T, reason: %r')"
scontrol update NodeName=n001 Extra="$extra_ok" AvailableFeatures=su1,rail_healthy \
  ActiveFeatures=su1,rail_healthy
wait_started "$id"
grep -F "released JobId=$id" "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | tail -n 1 |
  sed 's/^\[[^]]*\] /  slurmctld: /'
echo "  n001 healthy again  ->  job $id $(scontrol show job "$id" | grep -o 'JobState=[A-Z]*' | cut -d= -f2) on $(scontrol show job "$id" | grep -o ' NodeList=[^ ]*' | cut -d= -f2)"
rg_cluster_stop >/dev/null 2>&1 || true
cluster_up=0

step "10. railcheck as Prolog and Epilog: rail 3 of n002 trained down to 200 Gb/s"
# Every node reads its own fake sysfs (a DGX H100-like tree from tests/data/sysfs/make_sysfs.py)
# through health.sysfs_root; n002's has rail 3 (mlx5_5) at 2X instead of 4X.
make_sysfs="python3 $here/tests/data/sysfs/make_sysfs.py"
export PATH="$build/healthcheck:$PATH"  # railcheck, as an admin has it in /usr/sbin
mkdir -p "$tmp/sys"
$make_sysfs "$tmp/sys/healthy"
for node in $(seq -f 'n%03g' 1 32); do ln -s healthy "$tmp/sys/$node"; done
# node_tree NODE [make_sysfs.py OPTIONS]: NODE gets a tree of its own (healthy without options).
node_tree() {
  local node=$1
  shift
  rm -rf "${tmp:?}/sys/$node.new"
  $make_sysfs "$tmp/sys/$node.new" --node "$node" "$@"
  rm -rf "${tmp:?}/sys/$node"
  mv "$tmp/sys/$node.new" "$tmp/sys/$node"
}
# The run directory is chosen now: slurm.conf's AuthInfo names the munge socket in it.
cdir=$(mktemp -d /tmp/rgdemo.XXXXXX)
rmdir "$cdir"
events=$tmp/state/events.log
cat >"$tmp/railguard.yaml" <<CONF
topology: $here/etc/dev-4su.yaml
health:
  sysfs_root: $tmp/sys/%n
  state_dir: $tmp/state/%n
  events_log: $events
  job_log: $tmp/state/jobs.log
  job_app_dir: $tmp/apps/%j
  resume_after_clean_runs: 3
  flap_window_seconds: 0
  # Step 12 takes 9 of the 32 nodes out at once (a leaf fault): above the default drain
  # budget here (5%, at least 4 nodes), which would keep 5 of them in service.
  drain_budget: 100%
CONF
# etc/slurm.conf.railcheck's lines, from the build tree; cred_expire=10 because Slurm keeps a
# requeued job pending for cred_expire + 1 s (default 121 s).
cat >"$tmp/extra.conf" <<CONF
JobSubmitPlugins=rail
PlugStackConfig=$tmp/plugstack.conf
SchedulerParameters=bf_interval=2,max_switch_wait=31536000,nohold_on_prolog_fail
AuthInfo=socket=$cdir/munge/munge.socket,cred_expire=10
Prolog=$build/healthcheck/railcheck-prolog
PrologFlags=Alloc
Epilog=$build/healthcheck/railcheck-epilog
CONF
grep -E '^(Prolog|PrologFlags|Epilog|SchedulerParameters)=' "$tmp/extra.conf"
cluster_up=1
rg_cluster_start --no-trap --dir "$cdir" --topo etc/dev-4su.yaml --topology-plugin rail \
  --plugin-dir "$plugins" --conf-extra "$tmp/extra.conf" --railguard-conf "$tmp/railguard.yaml"

# shell 'COMMAND LINE': prints it as typed, then runs it (quotes and pipes included).
shell() { printf '$ %s\n' "$1"; eval "$1" || printf '(exit %d)\n' "$?"; }
# wait_for WHAT SECONDS COMMAND...: polls until COMMAND succeeds, saying every 20 s what it
# waits for; the demo fails if it does not happen in time.
wait_for() {
  local what=$1 start=$SECONDS deadline=$((SECONDS + $2)) said=$SECONDS
  shift 2
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "demo: $what did not happen within the time allowed" >&2
      exit 1
    fi
    if [ $((SECONDS - said)) -ge 20 ]; then
      rg_say demo "waiting for $what ($((SECONDS - start)) s of at most $((deadline - start)) s)"
      said=$SECONDS
    fi
    sleep 0.5
  done
}
drained() {
  local n
  for n in $(scontrol show hostnames "$1"); do
    [[ $(scontrol show node -o "$n") == *" State="*DRAIN* ]] || return 1
  done
}
job_state_is() { [[ $(scontrol show job -o "$1") == *" JobState=$2 "* ]]; }

echo "First one railcheck HealthCheckProgram round: every node healthy gets rail_healthy and"
echo "its health in Extra (multi-node jobs get only nodes railcheck found healthy)."
for node in $(seq -f 'n%03g' 1 32); do
  SLURMD_NODENAME=$node railcheck-periodic >/dev/null 2>&1 ||
    { echo "demo: railcheck-periodic on $node failed" >&2; exit 1; }
done
echo "  $(scontrol show nodes -o | grep -c 'ActiveFeatures=[^ ]*rail_healthy') of 32 nodes have rail_healthy"
printf '$ make_sysfs.py n002 --fault rate-down:3\n'
node_tree n002 --fault rate-down:3
run cat "$tmp/sys/n002/class/infiniband/mlx5_5/ports/1/rate"
echo "A 2-node job; nothing is drained yet, so Slurm gives it n001 and n002:"
printf '$ sbatch -N2 --wrap %s\n' "'echo nodes=\$SLURM_JOB_NODELIST'"
# shellcheck disable=SC2016  # expanded by the job
job=$(sbatch --parsable -N2 -o "$tmp/job-%j.out" --wrap 'echo nodes=$SLURM_JOB_NODELIST')
job=${job%%;*}
wait_for "n002's drain by its Prolog" 60 drained n002
echo "n002's Prolog found rail 3 at half rate, drained n002 and failed: Slurm requeues the job."
shell "sinfo -R -o '%60E %19H %N'"
wait_for "job $job to complete" 120 job_state_is "$job" COMPLETED
echo "The job was requeued (Restarts=1) and completed on healthy nodes:"
shell "scontrol show job $job | grep -E 'JobState=|Restarts=|^ *NodeList='"
printf '$ cat job-%s.out\n' "$job"
cat "$tmp/job-$job.out"

step "11. Repaired: railcheck as HealthCheckProgram resumes n002 after 3 clean runs"
printf '$ make_sysfs.py n002        # the cable reseated: rail 3 back at 400 Gb/s\n'
node_tree n002
# slurmd runs a HealthCheckProgram without arguments and with only SLURMD_NODENAME: this
# cluster's slurm.conf is not in /etc/slurm, so a wrapper names it.
printf '#!/bin/sh\nSLURM_CONF=%s exec %s\n' "$SLURM_CONF" "$build/healthcheck/railcheck-periodic" \
  >"$tmp/healthcheck.sh"
chmod 755 "$tmp/healthcheck.sh"
printf 'HealthCheckProgram=%s\nHealthCheckInterval=5\n' "$tmp/healthcheck.sh" >>"$SLURM_CONF"
tail -n 2 "$SLURM_CONF"
run scontrol reconfigure
streak_seen=""
resumed() {
  local streak
  streak=$(python3 -c 'import json,sys
try: print(json.load(open(sys.argv[1]))["drain_free_streak"])
except Exception: print(0)' "$tmp/state/n002/state.json")
  if ! drained n002; then
    echo "n002 resumed after $streak clean runs"
    return 0
  fi
  if [ "$streak" != "$streak_seen" ]; then
    echo "n002 still drained: $streak of 3 clean runs"
    streak_seen=$streak
  fi
  return 1
}
wait_for "n002's resume" 90 resumed
# The reconfigure makes each slurmd register again: until it has, sinfo marks the node '*'.
for _ in $(seq 1 60); do
  [ "$(sinfo -h -N -n n002 -o %T)" = idle ] && break
  sleep 0.5
done
shell "sinfo -N -n n001,n002,n003 -o '%N %T %E'"
echo "After a repair the admin records a new baseline of the error counters, as at"
echo "commissioning; then railcheck by hand (--dry-run changes nothing) finds n002 clean:"
shell "railcheck baseline --node n002 >/dev/null"
shell "railcheck --dry-run --node n002"

step "12. What a job got from the fabric, rail by rail: one rail of one node slow and erring"
echo "railcheck's Prolog reads every rail's port counters into the node's job file, each"
echo "periodic run adds a reading, the Epilog appends the job's record to health.job_log."
echo "While a 2-node job runs on n003 and n004, the demo stands in for NCCL: 256 MiB each way"
echo "on every rail, but rail 3 of n004 carries a tenth of it, waits 100 times longer and errs."
node_tree n003
node_tree n004
# bump NODE RAIL COUNTER DELTA: adds DELTA to one port counter of NODE's tree (atomically).
bump() {
  local nics=(mlx5_0 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_9 mlx5_10 mlx5_11)
  local f=$tmp/sys/$1/class/infiniband/${nics[$2]}/ports/1/counters/$3
  printf '%s\n' "$(($(cat "$f") + $4))" >"$f.tmp" && mv "$f.tmp" "$f"
}
echo "Like a training script, the job writes its step times (\"STEP SECONDS\" per line) where"
echo "health.job_app_dir ($tmp/apps/%j) says; railctl job sets them beside the rails."
wrap="d=$tmp/apps/\$SLURM_JOB_ID; mkdir -p \$d; for i in \$(seq 1 40); do echo \"\$i 1.2\"; done >\$d/steps.txt; sleep 8"
printf '$ sbatch -N2 -w n003,n004 --wrap "%s"\n' "$wrap"
job=$(sbatch --parsable -N2 -w n003,n004 -o /dev/null --wrap "$wrap")
job=${job%%;*}
wait_for "job $job to start" 60 job_state_is "$job" RUNNING
for round in 1 2; do
  for node in n003 n004; do
    for k in 0 1 2 3 4 5 6 7; do
      words=$((1 << 26))
      wait=50000
      if [ "$node/$k" = n004/3 ]; then words=$((words / 10)); wait=5000000; fi
      bump "$node" "$k" port_xmit_data "$words"
      bump "$node" "$k" port_rcv_data "$words"
      bump "$node" "$k" port_xmit_wait "$wait"
    done
  done
  [ "$round" = 2 ] || sleep 3
done
bump n004 3 symbol_error 300
wait_for "job $job to complete" 60 job_state_is "$job" COMPLETED
wait_for "both nodes' Epilog records" 30 \
  bash -c "[ \"\$(grep -c '\"job\":$job,' '$tmp/state/jobs.log' 2>/dev/null)\" = 2 ]"
run "$railctl" job "$job" --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml"

step "13. railctl report: a leaf switch fault and a single bad cable"
echo "Leaf switch: rail 5 of every node of su3 (n017-n024) trains down to 200 Gb/s, i.e. the"
echo "rail-5 leaf of su3 (or its uplinks) is bad. One bad cable: n013's rail 6 port is down."
printf '$ make_sysfs.py n[017-024] --fault rate-down:5; make_sysfs.py n013 --fault port-down:6\n'
$make_sysfs "$tmp/sys/su3-rail5" --fault rate-down:5
for node in $(scontrol show hostnames 'n[017-024]'); do ln -sfn su3-rail5 "$tmp/sys/$node"; done
node_tree n013 --fault port-down:6
wait_for "the drain of n[017-024] and n013 by their health checks" 60 drained 'n[013,017-024]'
shell "sinfo -R -o '%60E %19H %N'"
echo "The report reads Slurm (states, reasons, railcheck's per-rail health in Extra) and"
echo "railcheck's event log (health.events_log of railguard.yaml):"
run "$railctl" report --config "$RAILGUARD_CLUSTER_DIR/railguard.yaml" \
  --save-snapshot "$tmp/snapshot.json"
echo "n002's drain and resume, as railcheck logged them (time UTC; $events):"
python3 - "$events" <<'PY'
import json, sys, time
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["node"] != "n002":
        continue
    rail = "rail%d" % e["rail"] if e["rail"] >= 0 else "node"
    line = "  %s  %s  %-5s %-9s %s" % (time.strftime("%H:%M:%S", time.gmtime(e["time"])),
                                       e["node"], rail, e["event"], e.get("detail", ""))
    print(line.rstrip())
PY
rg_cluster_stop >/dev/null 2>&1 || true
cluster_up=0

step "14. The fabric side: railctl fabric sweep on a simulated InfiniBand fabric (ibsim + opensm)"
echo "The dev layout's fabric (rails at HDR: Debian 12's ibsim models speeds up to HDR), generated"
echo "by railctl topology simulate, brought up by ibsim and opensm; railctl reads every port"
echo "through libibnetdisc and libibmad as it would on real switches. Injected through ibsim's"
echo "console: 42 symbol errors on port 5 of the su2 rail-3 leaf (the leaf side of n013's"
echo "cable); the su3 rail-6 leaf's port 2 trained to 1X (ibportstate, an SMP Set)."
source "$here/tests/harness/fabric.sh"
sed 's/rate_gbps: 400, width: 4X, speed: NDR/rate_gbps: 200, width: 4X, speed: HDR/' \
  etc/dev-4su.yaml >"$tmp/fabric.yaml"
"$railctl" topology simulate "$tmp/fabric.yaml" -o "$tmp/fabric.net"
fabric_up=0
if rg_fabric_start --no-trap "$tmp/fabric.net"; then
  fabric_up=1
  trap '[ "$fabric_up" = 1 ] && rg_fabric_stop; cleanup' EXIT
  rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=42'
  rg_fabric_run ibportstate -G 0xfc6a1c0300000306 2 width 1 >/dev/null 2>&1 || true
  mkdir -p "$tmp/fabric-state"
  printf '$ railctl fabric sweep rails.yaml --state-dir state\n'
  rg_fabric_run "$railctl" fabric sweep "$tmp/fabric.yaml" --state-dir "$tmp/fabric-state" || true
  echo "A sweep timer's next sweep keeps that discovery (most of a sweep's MADs): one NodeInfo"
  echo "per node checks its LID, then counters; it discovers again when a link went down or"
  echo "retrained, a node stops answering or answers as another, the SM's LID changes, or the"
  echo "discovery is --rediscover-after (900 s) old."
  printf '$ railctl fabric sweep rails.yaml --state-dir state | head -n 2\n'
  rg_fabric_run "$railctl" fabric sweep "$tmp/fabric.yaml" --state-dir "$tmp/fabric-state" \
    | head -n 2 || true
  rg_fabric_run "$railctl" fabric sweep "$tmp/fabric.yaml" --json -o "$tmp/sweep.json" || true
  echo "The report again, from step 12's Slurm snapshot and this sweep: each suspect names the"
  echo "end that errs and the leaf port the sweep found (n013's cable: the switch end)."
  printf '$ railctl report --snapshot snapshot.json --sweep sweep.json | sed -n "/^SUSPECTS/,/^$/p"\n'
  "$railctl" report --topology "$tmp/fabric.yaml" --snapshot "$tmp/snapshot.json" \
    --sweep "$tmp/sweep.json" 2>/dev/null | sed -n '/^SUSPECTS/,/^$/p' || true
  echo "What railcheck acts on from it (railguard.yaml health.fabric_evidence): switch-side"
  echo "problems per node and rail, leaves with many ports erring (they restrict their domain)."
  run "$railctl" fabric evidence "$tmp/fabric.yaml" "$tmp/sweep.json" -o "$tmp/evidence.json"
  python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))
for p in e.get("links", []): print("  %s rail%s: %s %s port %s: %s" % (p["node"], p["rail"], p["problem"], p["leaf"], p["port"], p.get("detail", "")[:70]))
for l in e.get("leaves", []): print("  leaf %s (%s, rail%s): %s of %s ports erring" % (l["leaf"], l["su"], l["rail"], l["bad_ports"], l["ports"]))' \
    "$tmp/evidence.json" || true
  rg_fabric_stop
  fabric_up=0
else
  echo "(the simulated fabric did not come up: ibsim-utils, libumad2sim0 and opensm come from scripts/setup.sh)"
fi

step "15. One-hop domains: the DGX B300 layout (64-node SUs, two leaves per rail), simulated and discovered back"
echo "Each B300 SU has 16 leaves, two per rail of 32 nodes each: nodes of one SU may meet only at"
echo "a spine, so placement keeps jobs inside a one-hop domain (nodes that share every rail leaf)."
"$railctl" topology show etc/superpod-b300.yaml | sed -n '/^SU /,$p'
run "$railctl" topology simulate etc/superpod-b300.yaml -o "$tmp/b300.topo"
run "$railctl" topology discover "$tmp/b300.topo" --cluster superpod-b300 --node-type dgx-b300 \
  -o "$tmp/b300.yaml"
if diff <("$railctl" topology show etc/superpod-b300.yaml) <("$railctl" topology show "$tmp/b300.yaml") \
  >/dev/null; then
  echo "Discovery grouped the 4 one-hop domains back into 2 SUs by their leaf names (su1-r0-a,"
  echo "su1-r0-b, ...): the discovered layout is the source layout, domain for domain."
else
  echo "(the discovered layout differs from etc/superpod-b300.yaml)"
fi

step "16. Slurm 26.05.3: topology/rail chooses the nodes itself, and a waiting job says why"
prefix=/opt/railguard/slurm-26.05.3
plugins_2605="$build/slurm-plugins-26.05.3"
if [ -x "$prefix/sbin/slurmctld" ] && [ -f "$plugins_2605/topology_rail.so" ]; then
  echo "Starting a Slurm 26.05.3 cluster (built by scripts/build_slurm.sh from ../shared/slurm)"
  echo "with topology/rail only: no job_submit plugin, no --switches. n003 is degraded."
  echo "topology: topology.yaml" >"$tmp/railguard-2605.yaml"
  cluster_up=1
  rg_cluster_start --no-trap --topo etc/dev-4su.yaml --slurm-version 26.05.3 \
    --topology-plugin rail --plugin-dir "$plugins_2605" --railctl "$railctl" \
    --railguard-conf "$tmp/railguard-2605.yaml"
  healthy_sus 4
  scontrol update NodeName=n003 AvailableFeatures=su1 ActiveFeatures=su1
  run scontrol show topology
  echo "Submitting 5-, 8-, 8- and 3-node exclusive jobs and one single-node job on n003 ..."
  for n in 5 8 8 3; do sbatch -N "$n" --exclusive -o /dev/null --wrap 'sleep 30' >/dev/null; done
  sbatch -N1 -w n003 -o /dev/null --wrap 'sleep 30' >/dev/null
  sleep 4
  job_table
  echo "Best fit: the 5-node job takes su1 (7 healthy nodes: n003 is left out), the 8-node jobs take"
  echo "whole SUs, the 3-node job the SU still free; n003 still runs the single-node job."
  echo "Now a 6-node job: 7 healthy nodes are free, but no SU has 6 of them. It waits for one SU,"
  echo "and Slurm 26.05 shows topology/rail's reason instead of plain 'Resources':"
  sbatch -N6 --exclusive -o /dev/null --wrap 'sleep 30' >/dev/null
  sleep 5
  run squeue -t PENDING -o '%.6i %.3D %.9T %r'
  echo "Slurm's own evaluation code, built into the plugin, still counts cores, memory and GPUs"
  echo "(tests/plugin/topology_rail_2605_itest.sh; slurm_2605_features_itest.sh: Exclusive=TOPO,"
  echo "task ranks in domain order)."
  scancel --user="$(id -un)"
  rg_cluster_stop >/dev/null 2>&1; cluster_up=0
else
  echo "demo: step 15 left out: Slurm 26.05.3 is not built ($prefix; scripts/build_slurm.sh 26.05.3 needs ../shared/slurm)"
fi

step "17. Slurm 25.11.7: a GPU partition with rail placement, a CPU partition with Slurm's own"
prefix=/opt/railguard/slurm-25.11.7
plugins_2511="$build/slurm-plugins-25.11.7"
if [ -x "$prefix/sbin/slurmctld" ] && [ -f "$plugins_2511/topology_rail.so" ]; then
  echo "Slurm 25.11's topology.yaml gives each partition a topology (Topology=), but it names only"
  echo "Slurm's own block, flat and tree plugins: an entry for topology/rail stops slurmctld. So"
  echo "topology/rail scopes itself: a partition without rail nodes is left to Slurm (flat)."
  echo "Here the rail topology lists su1-su3 (n001-n024); n025-n032 stand for CPU nodes."
  sed '/- name: su4/,/leaves: \*leaves8/d' etc/dev-4su.yaml >"$tmp/gpu-3su.yaml"
  echo "topology: $tmp/gpu-3su.yaml" >"$tmp/railguard-2511.yaml"
  printf '%s\n' "PartitionName=gpu Nodes=n[001-024] State=UP" \
    "PartitionName=cpu Nodes=n[025-032] State=UP" >"$tmp/partitions-2511.conf"
  echo "Starting a Slurm 25.11.7 cluster with topology/rail, partitions gpu and cpu ..."
  cluster_up=1
  rg_cluster_start --no-trap --topo etc/dev-4su.yaml --slurm-version 25.11.7 \
    --topology-plugin rail --plugin-dir "$plugins_2511" --railctl "$railctl" \
    --railguard-conf "$tmp/railguard-2511.yaml" --conf-extra "$tmp/partitions-2511.conf"
  healthy_sus 3
  run scontrol show topology
  echo "Submitting an 8-node job to cpu (no rail_healthy there), 8- and 5-node jobs to gpu ..."
  for job in "cpu 8" "gpu 8" "gpu 5"; do
    sbatch -p "${job% *}" -N "${job#* }" --exclusive -o /dev/null --wrap 'sleep 30' >/dev/null
  done
  sleep 4
  sed 's/ su4 / cpu /' "$tmp/nodes" >"$tmp/nodes-2511"
  job_table "$tmp/nodes-2511"
  echo "The CPU job runs on n[025-032] although no CPU node has rail_healthy; the GPU jobs each"
  echo "get one SU (tests/plugin/topology_rail_partitions_2411_itest.sh, _2511_itest.sh)."
  scancel --user="$(id -un)"
  rg_cluster_stop >/dev/null 2>&1; cluster_up=0
  echo
  echo "For stock Slurm 25.05+, railctl writes topology.yaml: flat as the cluster default, and"
  echo "the one-hop domains as a tree and a block topology for GPU partitions to pick:"
  "$railctl" topology export "$tmp/gpu-3su.yaml" --format slurm-yaml | sed -n '1,16p'
  echo "  ... (PartitionName=gpu ... Topology=raildev-block; tests/plugin/slurm_topology_yaml_2511_itest.sh)"
else
  echo "demo: step 16 left out: Slurm 25.11.7 is not built ($prefix; scripts/build_slurm.sh 25.11.7 needs ../shared/slurm)"
fi
