#!/usr/bin/env bash
# The railguard demo: what it does today, on the example layouts and on a live local Slurm
# cluster (a real slurmctld and one slurmd per node of etc/dev-4su.yaml).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bash "$here/scripts/setup.sh" >/dev/null
bash "$here/scripts/build.sh" >/dev/null
build=${RAILGUARD_BUILD_DIR:-$here/build}
railctl="$build/railctl"
tmp=$(mktemp -d /tmp/railguard-demo.XXXXXX)
cluster_up=0
cleanup() { [ "$cluster_up" = 1 ] && rg_cluster_stop >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@" || printf '(exit %d)\n' "$?"; }
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

step "6. Cabling audit: a generated fabric with injected faults, then discovery"
run "$railctl" topology simulate etc/dev-4su.yaml -o "$tmp/fabric.topo" \
  --swap n003:3:4 --drop n010:5 --drop-leaf su3:6 --unnamed n020:1 --ufm ufm01 --sharp 1 \
  --drop-uplinks su4:2:1
run "$railctl" topology discover "$tmp/fabric.topo" --cluster raildev --node-type dgx-h100 \
  -o "$tmp/discovered.yaml"

step "7. Discovery on a real ibnetdiscover dump (2020 QDR/DDR fat tree), hosts named by its map"
run "$railctl" topology discover ../shared/data/ibnetdiscover/hpc-toolset-x5/X5.topofile \
  --node-map ../shared/data/ibnetdiscover/hpc-toolset-x5/X5.map -o "$tmp/x5.yaml"

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
printf '%-6s %-6s %-10s %-16s %s\n' JOBID NODES STATE NODELIST "SCALABLE UNITS"
squeue -h -o '%i %D %T %N' | while read -r id n state list; do
  sus=$(scontrol show hostnames "$list" | awk 'NR==FNR {su[$1]=$2; next} {print su[$1]}' \
          "$tmp/nodes" - | sort -u | paste -sd, -)
  printf '%-6s %-6s %-10s %-16s %s\n' "$id" "$n" "$state" "$list" "$sus"
done
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
SchedulerParameters=max_switch_wait=300
PlugStackConfig=$tmp/plugstack.conf
CONF
cluster_up=1
rg_cluster_start --no-trap --topo etc/dev-4su.yaml --topology-plugin rail --plugin-dir "$plugins" \
  --conf-extra "$tmp/extra.conf" --railguard-conf "$tmp/railguard.yaml"
run scontrol show topology
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
