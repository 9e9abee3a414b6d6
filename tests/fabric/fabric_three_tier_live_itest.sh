#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A three-tier fabric with a management leaf group, live (issue 25, items 2 and 3): the HDR
# dev-4su topology simulated with 2 core switches above its 2 spines (`--cores 2`: every spine
# cabled once to each) and a login group (`--service login:3:2`: leaves login-leaf1 and
# login-leaf2 on both spines, hosts login01-03 with 2 HCAs each), served by ibsim and brought up
# by opensm.
#   - `topology discover --live` (libibnetdisc) gives 2 spines and 2 core switches, not 4
#     spines; the login hosts are one service-hosts finding and no SU; the YAML lists the cores
#     and is the source topology plus them; the same from ibnetdiscover's dump.
#   - SymbolErrorCounter on core1's ports to both spines (ibsim console PerformanceSet): the
#     sweep judges those links as kind "core", core end; the report names core1 as a "core"
#     suspect.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

rgf_start_dev4su --cores 2 --service login:3:2

opts=(--cluster raildev --node-type dgx-h100)
rc=0
rg_fabric_run "$RGF_RAILCTL" topology discover --live "${opts[@]}" -o "$work/live.yaml" \
  2>"$work/live.err" || rc=$?
rgf_expect_eq "exit of discover --live (service-hosts only: informational)" "$rc" 0
grep -q 'discovered 4 scalable units, 32 hosts, 8 rails, 32 leaves, 2 spines and 2 core switches' \
  "$work/live.err" || rgf_fail "discover --live summary: $(tail -n1 "$work/live.err")"
grep -q '^service-hosts: leaf group login-leaf1, login-leaf2 holds 3 hosts with 2 HCAs each (login01, login02, login03)' \
  "$work/live.err" || rgf_fail "no service-hosts finding: $(cat "$work/live.err")"
rgf_expect_eq "findings besides service-hosts" \
  "$(grep -v -e ': discovered ' -e '^ibwarn: ' -e '^service-hosts: ' "$work/live.err" | wc -l)" 0
grep -q '^cores:$' "$work/live.yaml" && grep -q 'name: core2, guid: "0xfc6a1c03fc000002"' \
  "$work/live.yaml" || rgf_fail "the YAML lists no cores: $(cat "$work/live.yaml")"
# The source topology plus its cores: `topology show` of both, cores line aside.
diff <("$RGF_RAILCTL" topology show "$work/live.yaml" | grep -v '^cores:') \
  <("$RGF_RAILCTL" topology show "$work/topo.yaml") ||
  rgf_fail "the topology discovered live differs from the one simulated"
"$RGF_RAILCTL" topology show "$work/live.yaml" | grep -q '^cores: core1 core2$' ||
  rgf_fail "topology show lists no cores"
rgf_ok "discover --live: 2 spines and 2 core switches, the login group one service-hosts finding"

rg_fabric_run ibnetdiscover >"$work/dump.txt" 2>"$work/dump.err" ||
  rgf_fail "ibnetdiscover failed: $(cat "$work/dump.err")"
"$RGF_RAILCTL" topology discover "$work/dump.txt" "${opts[@]}" -o "$work/text.yaml" \
  2>"$work/text.err" || rgf_fail "discover of the dump: $(tail -n3 "$work/text.err")"
cmp "$work/text.yaml" "$work/live.yaml" || rgf_fail "the dump's YAML differs from the live one"
rgf_ok "the same from ibnetdiscover's dump"

# Core switch GUIDs 0xfc6a1c03fc000000 | i; core port i is spine i's (topo/fabric_sim.h).
rg_fabric_console 'PerformanceSet "S-fc6a1c03fc000001"[1] PortCounters.SymbolErrorCounter=31'
rg_fabric_console 'PerformanceSet "S-fc6a1c03fc000001"[2] PortCounters.SymbolErrorCounter=32'
rg_fabric_run "$RGF_RAILCTL" fabric sweep "$work/live.yaml" --json >"$work/sweep.json" \
  2>"$work/sweep.err" || true
[ -s "$work/sweep.json" ] || rgf_fail "no sweep JSON: $(cat "$work/sweep.err")"
python3 - "$work/sweep.json" <<'PY' || rgf_fail "sweep: $(head -c 2000 "$work/sweep.json")"
import json, sys
j = json.load(open(sys.argv[1]))
core = [l for l in j["links"] if l["kind"] == "core"]
assert len(core) == 4, [(l["a"]["name"], l["b"]["name"]) for l in core]
bad = sorted((l["a"]["name"], l["b"]["name"], l["b"]["port"], f["side"])
             for l in core for f in l["findings"])
assert bad == [("spine1", "core1", 1, "core"), ("spine2", "core1", 2, "core")], bad
assert not any(l["kind"] == "unknown" for l in j["links"] if l["a"]["name"].startswith("core")
               or l["b"]["name"].startswith("core")), "a core link of kind unknown"
PY
rgf_ok "sweep: 4 spine-core links of kind core, core1's two with findings on the core end"

rgf_healthy_snapshot "$work/snap.json"
"$RGF_RAILCTL" report --topology "$work/live.yaml" --snapshot "$work/snap.json" --no-history \
  --sweep "$work/sweep.json" --json >"$work/report.json" 2>"$work/report.err" ||
  rgf_fail "railctl report --sweep: $(cat "$work/report.err")"
python3 - "$work/report.json" <<'PY' || rgf_fail "suspects: $(head -c 3000 "$work/report.json")"
import json, sys
s = json.load(open(sys.argv[1]))["suspects"]
assert [(x["kind"], x["component"], x["end"]) for x in s] == [("core", "core1", "core")], s
PY
rgf_ok "report --sweep: core1 is the one suspect, a core switch"
