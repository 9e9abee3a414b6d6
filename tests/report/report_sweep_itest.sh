#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railctl report --sweep on a simulated dev-4su fabric (ibsim + opensm, rails at HDR): each
# fault injected through ibsim comes out of the report as the right suspect, with the end that
# errs and the leaf port the sweep found (node health is all ok: the host ends see nothing).
#   switch side only   SymbolErrorCounter on su2-rail3 port 5 (n013)
#   host side only     LinkDownedCounter on n001 mlx5_0
#   both ends          SymbolErrorCounter on n020 mlx5_11 and on su3-rail7 port 4
#   width, leaf end    ibportstate: su3-rail6 port 2 (n018) enabled at 1X
#   the leaf           SymbolErrorCounter on every host port of su4-rail1
#   the spine          SymbolErrorCounter on 3 ports of spine1
#   link down          Unlink of n019 mlx5_4
# With RAILGUARD_SAVE_SWEEP=FILE the sweep JSON is also copied to FILE (how
# tests/report/data/dev4su_sweep.json was made).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../fabric/fabric_itest_lib.sh
source "$here/../fabric/fabric_itest_lib.sh"

rgf_start_dev4su

rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=42'
rg_fabric_console 'PerformanceSet "H-0c42a10300000100"[1] PortCounters.LinkDownedCounter=2'
rg_fabric_console 'PerformanceSet "H-0c42a10300001407"[1] PortCounters.SymbolErrorCounter=7'
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000307"[4] PortCounters.SymbolErrorCounter=9'
for p in 1 2 3 4 5 6 7 8; do
  rg_fabric_console "PerformanceSet \"S-fc6a1c0300000401\"[$p] PortCounters.SymbolErrorCounter=3$p"
done
for p in 1 2 3; do
  rg_fabric_console "PerformanceSet \"S-fc6a1c03ff000001\"[$p] PortCounters.SymbolErrorCounter=1$p"
done
rg_fabric_run ibportstate -G 0xfc6a1c0300000306 2 width 1 >"$work/ibportstate.out" 2>&1 ||
  rgf_fail "ibportstate width 1: $(cat "$work/ibportstate.out")"
rg_fabric_console 'Unlink "H-0c42a10300001302"[1]'
rgf_ok "injected the seven faults"

rg_fabric_run "$RGF_RAILCTL" fabric sweep "$work/topo.yaml" --json >"$work/sweep.json" \
  2>"$work/sweep.err" || true
[ -s "$work/sweep.json" ] || rgf_fail "no sweep JSON: $(cat "$work/sweep.err")"
if [ -n "${RAILGUARD_SAVE_SWEEP:-}" ]; then cp "$work/sweep.json" "$RAILGUARD_SAVE_SWEEP"; fi

# Node health: every node idle, railcheck ok on every rail (the host ends see nothing).
rgf_healthy_snapshot "$work/snap.json"
"$RGF_RAILCTL" report --topology "$work/topo.yaml" --snapshot "$work/snap.json" --no-history \
  --sweep "$work/sweep.json" --json >"$work/report.json" 2>"$work/report.err" ||
  rgf_fail "railctl report --sweep: $(cat "$work/report.err")"
python3 - "$work/report.json" <<'PY' || rgf_fail "suspects: $(head -c 3000 "$work/report.json")"
import json, sys
j = json.load(open(sys.argv[1]))
s = j["suspects"]
def one(**kv):
    m = [x for x in s if all(x.get(k) == v for k, v in kv.items())]
    assert len(m) == 1, (kv, [(x["kind"], x["end"], x["component"]) for x in s])
    return m[0]
leaf = one(kind="leaf", leaf="su4-rail1")
assert leaf["end"] == "leaf" and leaf["nodes"] == "n[025-032]", leaf
spine = one(kind="spine", component="spine1")
assert spine["end"] == "spine", spine
sw = one(node="n013", rail=3)
assert (sw["end"], sw["leaf"], sw["port"], sw["port_source"]) == ("switch", "su2-rail3", 5, "sweep"), sw
host = one(node="n001", rail=0)
assert (host["end"], host["leaf"], host["port"]) == ("host", "su1-rail0", 1), host
both = one(node="n020", rail=7)
assert (both["end"], both["port"]) == ("both", 4), both
width = one(node="n018", rail=6)
assert (width["end"], width["port"]) == ("switch", 2) and "width down" in width["title"], width
down = one(node="n019", rail=2)
assert down["end"] == "link-down", down
assert j["sweep"]["complete"] is True, j["sweep"]
PY
rgf_ok "report --sweep: leaf, spine, switch end, host end, both ends, 1X on the leaf end, link down"

"$RGF_RAILCTL" report --topology "$work/topo.yaml" --snapshot "$work/snap.json" --no-history \
  --sweep "$work/sweep.json" >"$work/report.txt" 2>&1 || rgf_fail "text report"
grep -qF '[high, end: switch] switch side only (switch port or its transceiver): n013 rail3' \
  "$work/report.txt" || rgf_fail "text: $(cat "$work/report.txt")"
grep -qF 'SymbolErrorCounter 42 on the leaf side (su2-rail3 port 5)' "$work/report.txt" ||
  rgf_fail "text evidence: $(cat "$work/report.txt")"
rgf_ok "text names the end and the port"
