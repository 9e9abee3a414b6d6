#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railctl fabric sweep against a simulated dev-4su fabric (ibsim + opensm, rails at HDR):
# faults injected while the fabric runs come out on the right link with the right end named.
#   - ibsim console PerformanceSet: SymbolErrorCounter on a leaf port (leaf side), and
#     LinkDownedCounter on an HCA port (host side);
#   - a port trained at 1X on the switch side: ibportstate sets the leaf port's LinkWidthEnabled
#     to 1X (an SMP Set; ibsim 0.10's console has no width command) and ibsim retrains the
#     link to 1X on both ends;
#   - with --baseline (the JSON of the sweep above), only what grew since counts;
#   - a downed host cable (console Unlink): the HCA is missing, its SU x rail cell marked;
#   - a leaf that stops answering mid-sweep: ibsim console Error drops every
#     PortCountersExtended MAD to it, so its ClassPortInfo and first PortCounters answer and
#     the rest does not. The sweep ends within its limits, says PARTIAL and names the leaf.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

rgf_start_dev4su

sweep() { rg_fabric_run "$RGF_RAILCTL" fabric sweep "$work/topo.yaml" "$@" 2>>"$work/sweep.err"; }

# --- a healthy fabric: complete, no findings, exit 0 ----------------------------------------
sweep >"$work/clean.txt" || rgf_fail "sweep of the healthy fabric: exit $? $(cat "$work/clean.txt")"
head -n1 "$work/clean.txt" | grep -q '34 switches, 256 HCAs, 320 links, 0 findings;.*complete$' ||
  rgf_fail "healthy sweep summary: $(head -n1 "$work/clean.txt")"
rgf_ok "healthy: $(head -n1 "$work/clean.txt")"

# Leaf GUIDs follow topo/fabric_sim.h: 0xfc6a1c0300000000 | SU << 8 | rail; HCAs
# 0x0c42a10300000000 | node << 8 | rail.
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=42'
rg_fabric_console 'PerformanceSet "H-0c42a10300000100"[1] PortCounters.LinkDownedCounter=2'
rg_fabric_run ibportstate -G 0xfc6a1c0300000306 2 width 1 >"$work/ibportstate.out" 2>&1 ||
  rgf_fail "ibportstate width 1: $(cat "$work/ibportstate.out")"
rgf_ok "injected: symbol errors on su2-rail3 port 5, link downs on n001 mlx5_0, 1X on su3-rail6 port 2"

rc=0
sweep >"$work/faults.txt" || rc=$?
rgf_expect_eq "exit with findings" "$rc" 1
grep -qxF 'errors (leaf side): su2 rail3 n013 mlx5_5 port 1 <-> su2-rail3 port 5: SymbolErrorCounter 42 on the leaf side (su2-rail3 port 5)' \
  "$work/faults.txt" || rgf_fail "no leaf-side symbol errors on su2-rail3 port 5: $(cat "$work/faults.txt")"
grep -qxF 'errors (host side): su1 rail0 n001 mlx5_0 port 1 <-> su1-rail0 port 1: LinkDownedCounter 2 on the host side (n001 mlx5_0 port 1)' \
  "$work/faults.txt" || rgf_fail "no host-side link downs on n001 mlx5_0: $(cat "$work/faults.txt")"
grep -qxF 'width (leaf side): su3 rail6 n018 mlx5_10 port 1 <-> su3-rail6 port 2: width 1X < 4X (enabled 4X on n018 mlx5_10, 1X on su3-rail6; leaf side)' \
  "$work/faults.txt" || rgf_fail "no leaf-side 1X on su3-rail6 port 2: $(cat "$work/faults.txt")"
head -n1 "$work/faults.txt" | grep -q ' 3 findings;.*complete$' ||
  rgf_fail "fault sweep summary: $(head -n1 "$work/faults.txt")"
# The SU x rail grid: su1 rail0, su2 rail3 and su3 rail6 have one bad link each.
rgf_expect_eq "grid row su2" "$(grep '^su2 ' "$work/faults.txt" | tr -s ' ')" "su2 ok ok ok 1 ok ok ok ok"
rgf_expect_eq "grid row su3" "$(grep '^su3 ' "$work/faults.txt" | tr -s ' ')" "su3 ok ok ok ok ok ok 1 ok"
rgf_ok "text: each fault on its link, end named, in the SU x rail grid"

sweep --json >"$work/faults.json" || true
python3 - "$work/faults.json" <<'PY' || rgf_fail "JSON does not carry the faults"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["complete"] is True and j["summary"]["findings"] == 3, j["summary"]
link = next(l for l in j["links"] if l["host"] == "n018" and l["hca"] == "mlx5_10")
assert link["su"] == "su3" and link["rail"] == "rail6", link
assert link["a"]["width"] == {"active": 1, "enabled": 4, "supported": 12}, link["a"]["width"]
assert link["b"]["width"]["active"] == 1 and link["b"]["width"]["enabled"] == 1, link["b"]
assert link["findings"][0]["side"] == "leaf"
sym = next(l for l in j["links"] if l["host"] == "n013" and l["rail"] == "rail3")
assert sym["b"]["counters"]["SymbolErrorCounter"] == 42 and sym["b"]["extended_counters"], sym["b"]
assert sym["a"]["counters"]["SymbolErrorCounter"] == 0
up = [l for l in j["links"] if l["kind"] == "uplink"]
assert len(up) == 64 and {l["b"]["name"] for l in up} == {"spine1", "spine2"}, len(up)
PY
rgf_ok "JSON: both ends' width, speed and counters on every link, 64 uplinks to spine1/spine2"

# --- against a baseline: only what grew since counts ------------------------------------------
cp "$work/faults.json" "$work/baseline.json"
rc=0
sweep --baseline "$work/baseline.json" >"$work/base1.txt" || rc=$?
rgf_expect_eq "findings against the baseline taken with them" \
  "$(grep -c '^errors ' "$work/base1.txt" || true)" 0
grep -q '^width (leaf side): su3 rail6 ' "$work/base1.txt" || rgf_fail "the 1X link is not judged"
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=50'
sweep --baseline "$work/baseline.json" >"$work/base2.txt" || true
grep -qxF 'errors (leaf side): su2 rail3 n013 mlx5_5 port 1 <-> su2-rail3 port 5: SymbolErrorCounter +8 on the leaf side (su2-rail3 port 5)' \
  "$work/base2.txt" || rgf_fail "no +8 symbol errors against the baseline: $(cat "$work/base2.txt")"
echo '{"links": [{"a": {"guid": "0x12"}}]}' >"$work/bad.json"
rc=0
rg_fabric_run "$RGF_RAILCTL" fabric sweep "$work/topo.yaml" --baseline "$work/bad.json" \
  >/dev/null 2>"$work/bad.err" || rc=$?
rgf_expect_eq "exit on a bad baseline" "$rc" 1
grep -qF "$work/bad.json:1:27: bad or missing \"guid\"; expected \"0x\" and 16 hex digits" \
  "$work/bad.err" || rgf_fail "bad baseline message: $(cat "$work/bad.err")"
rgf_ok "baseline: counters already there are not findings, 8 new symbol errors are"

# --- a downed host cable: ibsim console Unlink of n019's rail-2 HCA port ----------------------
rg_fabric_console 'Unlink "H-0c42a10300001302"[1]'
rc=0
sweep >"$work/unlink.txt" || rc=$?
rgf_expect_eq "exit with a missing HCA" "$rc" 1
grep -qxF 'missing: su3 rail2 n019 mlx5_4 not found in the fabric (cable down or HCA unreachable)' \
  "$work/unlink.txt" || rgf_fail "the downed cable is not reported: $(cat "$work/unlink.txt")"
# The Unlink's trap makes opensm re-sweep; the 1X link stays 1X (the harness's opensm leaves
# link widths alone).
rgf_expect_eq "grid row su3 after the unlink" "$(grep '^su3 ' "$work/unlink.txt" | tr -s ' ')" \
  "su3 ok ok 1 ok ok ok 1 ok"
head -n1 "$work/unlink.txt" | grep -q '255 HCAs, 319 links, 4 findings;' ||
  rgf_fail "unlink summary: $(head -n1 "$work/unlink.txt")"
rgf_ok "downed host cable: n019 mlx5_4 missing, su3 rail2 marked"

# --- a leaf that stops answering mid-sweep ---------------------------------------------------
rg_fabric_console 'Error "S-fc6a1c0300000401"[0] 100 29'   # 29 = PortCountersExtended
start=$(date +%s%N)
rc=0
sweep --mad-timeout 300 --switch-timeout 1000 >"$work/mute.txt" || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
rgf_expect_eq "exit of a partial sweep" "$rc" 1
[ "$ms" -lt 5000 ] || rgf_fail "the partial sweep took $ms ms"
head -n1 "$work/mute.txt" | grep -q 'PARTIAL' || rgf_fail "not PARTIAL: $(head -n1 "$work/mute.txt")"
grep -q '^  su4-rail1 (0xfc6a1c0300000401, LID [0-9]*) timed-out: PortCountersExtended of port 1: no reply' \
  "$work/mute.txt" || rgf_fail "the mute leaf is not named: $(tail -n 5 "$work/mute.txt")"
rgf_expect_eq "grid row su4" "$(grep '^su4 ' "$work/mute.txt" | tr -s ' ')" "su4 ok ok? ok ok ok ok ok ok"
# The faults found before are still found: the rest of the fabric was read.
grep -q '^errors (leaf side): su2 rail3 ' "$work/mute.txt" || rgf_fail "the rest was not read"
rgf_ok "mute leaf: PARTIAL in $ms ms, su4-rail1 named, the rest of the fabric read"
echo "PASS"
