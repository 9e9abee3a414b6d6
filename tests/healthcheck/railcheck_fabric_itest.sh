#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctest: RESOURCE_LOCK=railcheck_lane1,railcheck_lane2 COST=100
# Acting on fabric evidence, end to end: a simulated dev-4su fabric (ibsim + opensm) with a
# switch-side symbol-error burst on su2-rail3 port 5 (n013), su3-rail6 port 2 (n018) trained
# at 1X on the leaf end, and every host port of su4-rail1 erring; `railctl fabric sweep
# --json`, then `railctl report --sweep` names the suspects and ends, and `railctl fabric
# evidence` writes the file railcheck reads (health.fabric_evidence). On the local Slurm
# cluster railcheck then restricts n013 (fabric.switch_errors, as link.errors), drains n018
# (fabric.switch_rate, as port.rate) with a reason naming the leaf and port, restricts every
# node of su4 and drains none of them (fabric.leaf), and leaves the other nodes alone. Once
# the evidence is clean both come back by the clean-run streak; stale evidence changes nothing.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=railcheck_itest_lib.sh
source "$here/railcheck_itest_lib.sh"
rgh_read_timeout_ms=300  # this test times the read limit itself
# shellcheck source=../harness/fabric.sh
source "$rgp_src/tests/harness/fabric.sh"
trap 'rg_fabric_stop; rgp_cleanup' EXIT

# --- the fabric: faults, sweep, report, evidence ----------------------------------------------
fab=$rgp_tmp/fabric
mkdir -p "$fab"
sed 's/rate_gbps: 400, width: 4X, speed: NDR/rate_gbps: 200, width: 4X, speed: HDR/' \
  "$rgp_src/etc/dev-4su.yaml" >"$fab/topo.yaml"
"$rgp_bin/railctl" topology simulate "$fab/topo.yaml" -o "$fab/fabric.net"
rg_fabric_start --no-trap "$fab/fabric.net" || rgp_fail "the simulated fabric did not come up"
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=42'
for p in 1 2 3 4 5 6 7 8; do
  rg_fabric_console "PerformanceSet \"S-fc6a1c0300000401\"[$p] PortCounters.SymbolErrorCounter=2$p"
done
rg_fabric_run ibportstate -G 0xfc6a1c0300000306 2 width 1 >"$fab/ibportstate.out" 2>&1 ||
  rgp_fail "ibportstate width 1: $(cat "$fab/ibportstate.out")"
rg_fabric_run "$rgp_bin/railctl" fabric sweep "$fab/topo.yaml" --json >"$fab/sweep.json" \
  2>"$fab/sweep.err" || true
rg_fabric_stop
[ -s "$fab/sweep.json" ] || rgp_fail "no sweep JSON: $(cat "$fab/sweep.err")"
"$rgp_bin/railctl" fabric evidence "$fab/topo.yaml" "$fab/sweep.json" -o "$fab/evidence.new" ||
  rgp_fail "railctl fabric evidence failed"
python3 - "$fab/evidence.new" <<'PY' || rgp_fail "evidence: $(cat "$fab/evidence.new")"
import json, sys
e = json.load(open(sys.argv[1]))
links = {(l["node"], l["rail"], l["problem"], l["leaf"], l["port"]) for l in e["links"]}
assert ("n013", 3, "errors", "su2-rail3", 5) in links, links
assert ("n018", 6, "width", "su3-rail6", 2) in links, links
assert [(f["su"], f["rail"], f["leaf"]) for f in e["leaves"]] == [("su4", 1, "su4-rail1")], e["leaves"]
PY
rgp_ok "sweep -> evidence: n013 rail3 errors at su2-rail3 port 5, n018 rail6 1X at su3-rail6 port 2, leaf su4-rail1"

# --- railcheck on the local cluster reads the evidence ----------------------------------------
rgh_fixtures
# A leaf fault restricts all 8 nodes of su4 besides n013 and n018: more than the default drain
# budget of this 32-node cluster (4), which rollout_itest tests; here every finding acts.
rgh_configs "fabric_evidence: $fab/evidence.json" "drain_budget: 100%"
rgh_start
# A healthy round while the evidence file does not exist yet (missing evidence: nothing).
mapfile -t nodes < <(printf "%s\n" n001 n012 n013 n018 n020; seq -f "n%03g" 25 32)
rgh_checked_healthy "${nodes[@]}"
for n in "${nodes[@]}"; do
  [[ $(rgh_features "$n") == *rail_healthy* ]] || rgp_fail "$n not healthy first: $(rgh_features "$n")"
done
mv "$fab/evidence.new" "$fab/evidence.json"
for n in n001 n012 n013 n018 $(seq -f 'n%03g' 25 32); do rgh_periodic "$n" || true; done
rgh_wait "n018 drained" 30 rgh_drained n018
rgp_expect_eq "n018's reason" "$(rgh_reason n018)" \
  "railcheck: rail6 mlx5_10 switch side su3-rail6 port 2 width down (fabric sweep)"
! rgh_drained n013 || rgp_fail "n013 drained: $(rgh_reason n013)"
[[ $(rgh_features n013) != *rail_healthy* ]] || rgp_fail "n013 kept rail_healthy"
[[ $(rgh_node_field n013 Extra) == *'rail3:fabric.switch_errors'* ]] ||
  rgp_fail "n013 Extra: $(rgh_node_field n013 Extra)"
rgp_ok "n013 restricted (fabric.switch_errors), n018 drained: $(rgh_reason n018)"
for n in $(seq -f 'n%03g' 25 32); do
  ! rgh_drained "$n" || rgp_fail "$n drained by a leaf fault: $(rgh_reason "$n")"
  [[ $(rgh_features "$n") != *rail_healthy* ]] || rgp_fail "$n kept rail_healthy"
done
for n in n001 n012; do
  [[ $(rgh_features "$n") == *rail_healthy* ]] || rgp_fail "$n lost rail_healthy: $(rgh_features "$n")"
done
rgp_ok "su4 restricted from multi-node jobs and not drained; n001, n012 untouched"

# --- clean evidence: n013 and n018 come back by the clean-run streak (3 runs), not before ------
python3 - "$fab/evidence.json" <<'PY'
import json, sys, time
e = json.load(open(sys.argv[1]))
e.update(time=time.time(), links=[], leaves=[])
json.dump(e, open(sys.argv[1], "w"))
PY
for _ in 1 2; do rgh_periodic n013 || true; rgh_periodic n018 || true; done
rgh_drained n018 || rgp_fail "n018 resumed after 2 clean runs"
[[ $(rgh_features n013) != *rail_healthy* ]] || rgp_fail "n013 got rail_healthy after 2 clean runs"
rgh_periodic n013 || true
rgh_periodic n018 || true
rgh_wait "n018 resumed" 30 bash -c "! scontrol show node -o n018 | grep -q DRAIN"
[[ $(rgh_features n013) == *rail_healthy* ]] || rgp_fail "n013 lacks rail_healthy after 3 clean runs"
rgp_ok "clean evidence: n018 resumed and n013 given rail_healthy after 3 clean runs"

# --- stale evidence: ignored, a warning, nothing drained --------------------------------------
# The sweep's own time (summary.time) says when it was taken: move it 3 hours back.
python3 -c 'import json, sys
j = json.load(open(sys.argv[1])); j["summary"]["time"] -= 3 * 3600
json.dump(j, open(sys.argv[1], "w"))' "$fab/sweep.json"
"$rgp_bin/railctl" fabric evidence "$fab/topo.yaml" "$fab/sweep.json" -o "$fab/evidence.json"
rgh_periodic n020 || true
grep -q 'is stale: sweep .* ago.*ignored, drains nothing' "$rgp_tmp/periodic-n020.out" ||
  rgp_fail "no stale warning: $(cat "$rgp_tmp/periodic-n020.out")"
[[ $(rgh_features n020) == *rail_healthy* ]] || rgp_fail "n020 lost rail_healthy on stale evidence"
rgp_ok "stale evidence: a warning, n020 keeps rail_healthy"

# --- evidence on a file system that hangs: a FIFO with no writer blocks open() as a hung NFS
# read blocks read(); railcheck judges without it within its limit (4 x read_timeout_ms 300,
# at least 1 s) and drains nothing.
rm -f "$fab/evidence.json"
mkfifo "$fab/evidence.json"
t0=$SECONDS
rc=0
timeout 20 env -i PATH=/usr/bin:/bin SLURMD_NODENAME=n020 \
  SLURM_CONF="$RAILGUARD_CLUSTER_DIR/slurm.conf" "$rgp_bin/healthcheck/railcheck-periodic" \
  >"$rgp_tmp/periodic-n020.out" 2>&1 || rc=$?
[ "$rc" -ne 124 ] || rgp_fail "railcheck hung on a FIFO as fabric evidence (killed after 20 s)"
[ $((SECONDS - t0)) -le 6 ] || rgp_fail "railcheck took $((SECONDS - t0)) s on a hung evidence file"
grep -q "fabric evidence ignored: $fab/evidence.json: not read within 1200 ms (a hung file system?)" \
  "$rgp_tmp/periodic-n020.out" || rgp_fail "no hung-evidence warning: $(cat "$rgp_tmp/periodic-n020.out")"
[[ $(rgh_features n020) == *rail_healthy* ]] || rgp_fail "n020 lost rail_healthy on hung evidence"
rm -f "$fab/evidence.json"
rgp_ok "evidence that cannot be read (a FIFO, as a hung file system): judged without it in $((SECONDS - t0)) s, n020 keeps rail_healthy"
