#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railctl fabric sweep --previous and --prometheus against a simulated dev-4su fabric (ibsim +
# opensm, rails at HDR). Between two sweeps the ibsim console (ibsim 0.10's PerformanceSet
# knows PortCounters.PortXmitWait and PortCountersExtended.PortXmitData, the counters the sweep
# reads on PMAs with PortCountersExtended) makes n001 mlx5_0 send, su1-rail0's uplink to spine1
# wait, and two leaf ports take symbol errors: the traffic section and JSON name the busy link
# and the waiting uplink in SU x rail terms, and error growth is judged per hour with railcheck's
# limits (symbol_error 120/h: +200 fails, +100 does not; a --config raising it lets +200 pass).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

rgf_start_dev4su
sweep() { rg_fabric_run "$RGF_RAILCTL" fabric sweep "$work/topo.yaml" "$@" 2>>"$work/sweep.err"; }

sweep --json -o "$work/first.json" || rgf_fail "first sweep: $(tail -n3 "$work/sweep.err")"
python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["summary"]["time"]; assert t > 1.7e9, t' \
  "$work/first.json" || rgf_fail "the sweep JSON has no summary.time"
rgf_ok "first sweep, time $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["time"])' "$work/first.json")"

# HCA GUIDs 0x0c42a10300000000 | node << 8 | rail, leaves 0xfc6a1c0300000000 | SU << 8 | rail
# (topo/fabric_sim.h); leaf port 33 is the first uplink (to spine1).
rg_fabric_console 'PerformanceSet "H-0c42a10300000100"[1] PortCountersExtended.PortXmitData=5000000000'
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000100"[33] PortCounters.PortXmitWait=90000'
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000203"[5] PortCounters.SymbolErrorCounter=200'
rg_fabric_console 'PerformanceSet "S-fc6a1c0300000302"[7] PortCounters.SymbolErrorCounter=100'

rc=0
sweep --previous "$work/first.json" >"$work/second.txt" || rc=$?
rgf_expect_eq "exit with a finding" "$rc" 1
grep -qxF 'errors (leaf side): su2 rail3 n013 mlx5_5 port 1 <-> su2-rail3 port 5: SymbolErrorCounter +200 in 1 h (200/h) > limit 120/h on the leaf side (su2-rail3 port 5)' \
  "$work/second.txt" || rgf_fail "no windowed symbol errors on su2-rail3 port 5: $(cat "$work/second.txt")"
rgf_expect_eq "error findings (the +100 is under 120/h)" "$(grep -c '^errors ' "$work/second.txt")" 1
# The busiest link is n001 mlx5_0's; its utilization is 5e9 words * 4 B over the seconds
# between the sweeps and 25e9 B/s, so only its position and direction are fixed here.
sed -n '/^busiest links/{n;p}' "$work/second.txt" |
  grep -q '^  su1 rail0 n001 mlx5_0 port 1 <-> su1-rail0 port 1: [0-9.]*% n001 mlx5_0 -> su1-rail0, ' ||
  rgf_fail "n001 mlx5_0 is not the busiest link: $(cat "$work/second.txt")"
wait_row=$(sed -n '/^PortXmitWait per second per SU x rail/,/^spine/p' "$work/second.txt" | grep '^su1 ')
[[ $wait_row =~ ^su1\ +0/([0-9]+)\ +0/0 ]] && [ "${BASH_REMATCH[1]}" -gt 0 ] ||
  rgf_fail "su1 rail0's uplinks do not show the wait: '$wait_row'"
rgf_ok "traffic: n001 mlx5_0 busiest, su1 rail0 uplinks waiting (${BASH_REMATCH[1]}/s); +200 symbol errors judged per hour"

sweep --previous "$work/first.json" --json -o "$work/second.json" || true
python3 - "$work/second.json" <<'PY' || rgf_fail "the JSON's traffic"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["traffic"]
assert 0 < t["seconds"] < 600, t["seconds"]
link = next(l for l in j["links"] if l["host"] == "n001" and l["hca"] == "mlx5_0")
a = link["traffic"]["a"]
assert abs(a["xmit_bytes_per_second"] * t["seconds"] - 2e10) < 2e10 * 0.01, a
assert link["traffic"]["capacity_bytes_per_second"] == 25e9, link["traffic"]
up = next(l for l in j["links"] if l["kind"] == "uplink" and l["a"]["name"] == "su1-rail0"
          and l["a"]["port"] == 33)
assert abs(up["traffic"]["a"]["xmit_wait_per_second"] * t["seconds"] - 90000) < 900, up["traffic"]
cell = t["grid"][0]["rails"][0]
assert cell["uplink_xmit_wait_per_second"] > 0 and cell["host_max_utilization"] > 0, cell
PY
rgf_ok "JSON: per-link rates (n001 mlx5_0 sent 2e10 bytes, su1-rail0 port 33 waited 90000 ticks)"

printf 'topology: %s\nhealth:\n  link_error_limits:\n    symbol_error: 1000\n' "$work/topo.yaml" \
  >"$work/railguard.yaml"
rc=0
sweep --previous "$work/first.json" --config "$work/railguard.yaml" >"$work/third.txt" || rc=$?
rgf_expect_eq "findings with symbol_error at 1000/h" "$(grep -c '^errors ' "$work/third.txt" || true)" 0
rgf_expect_eq "exit with no finding" "$rc" 0
rgf_ok "--config: symbol_error 1000/h lets +200 pass"

sweep --previous "$work/first.json" --prometheus -o "$work/metrics.prom" || true
python3 - "$work/metrics.prom" <<'PY' || rgf_fail "the Prometheus output"
import re, sys
sample = re.compile(r'^([a-z_]+)(\{(?:[a-z_]+="(?:[^"\\]|\\.)*",?)*\})? (\S+)$')
fams, series, values, current = set(), set(), {}, None
for line in open(sys.argv[1]).read().splitlines():
    if line.startswith("# HELP "):
        current = line.split()[2]; assert current not in fams, line; fams.add(current)
    elif line.startswith("# TYPE "):
        assert line.split()[2] == current and line.split()[3] in ("counter", "gauge"), line
    else:
        m = sample.match(line); assert m, line
        assert m.group(1) == current, line
        key = line.rsplit(" ", 1)[0]; assert key not in series, line; series.add(key)
        values[key] = float(m.group(3))
sym = ('railguard_fabric_port_errors_total{su="su2",rail="rail3",leaf="su2-rail3",port="5",'
       'host="n013",hca="mlx5_5",end="leaf",counter="SymbolErrorCounter"}')
assert values[sym] == 200, values.get(sym)
wait = ('railguard_fabric_port_xmit_wait_total{su="su1",rail="rail0",leaf="su1-rail0",'
        'port="33",host="",hca="",end="leaf"}')
assert values[wait] == 90000, values.get(wait)
util = ('railguard_fabric_port_utilization_ratio{su="su1",rail="rail0",leaf="su1-rail0",'
        'port="1",host="n001",hca="mlx5_0",end="host"}')
assert values[util] > 0, values.get(util)
ok = [k for k in series if k.startswith("railguard_fabric_link_width_ok")]
assert len(ok) == 320 and all(values[k] == 1 for k in ok), len(ok)
assert values["railguard_fabric_sweep_complete"] == 1
print(len(series), "series")
PY
rgf_ok "--prometheus parses: one family header each, no duplicate series, the injected values"

# Bad --previous input: file:line:column and the expected form; nothing swept.
printf '{"summary": {"time": "noon"}, "links": []}\n' >"$work/bad.json"
rc=0
sweep --previous "$work/bad.json" >/dev/null || rc=$?
rgf_expect_eq "exit with a bad --previous" "$rc" 1
grep -qF "$work/bad.json:1:22: bad \"summary\": {\"time\"}" "$work/sweep.err" ||
  rgf_fail "bad --previous: $(tail -n2 "$work/sweep.err")"
rgf_ok "a bad --previous names file:line:column"
# --state-dir: the first sweep finds no state (no traffic section, counters judged whole) and
# leaves its JSON; the next reads it as the previous sweep and replaces it.
mkdir "$work/state"
sweep --state-dir "$work/state" >"$work/state1.txt" || true
[ -s "$work/state/last-sweep.json" ] || rgf_fail "--state-dir left no last-sweep.json"
if grep -q '^traffic over' "$work/state1.txt"; then rgf_fail "a traffic section without a previous sweep"; fi
rgf_expect_eq "first state run: symbol errors judged whole" "$(grep -c '^errors ' "$work/state1.txt")" 2
t1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["time"])' "$work/state/last-sweep.json")
rc=0
sweep --state-dir "$work/state" >"$work/state2.txt" || rc=$?
grep -q '^traffic over' "$work/state2.txt" || rgf_fail "second state run has no traffic: $(cat "$work/state2.txt")"
rgf_expect_eq "second state run: nothing grew, no errors" "$(grep -c '^errors ' "$work/state2.txt" || true)" 0
rgf_expect_eq "second state run exit" "$rc" 0
t2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["time"])' "$work/state/last-sweep.json")
python3 -c "import sys; assert float(sys.argv[2]) > float(sys.argv[1])" "$t1" "$t2" ||
  rgf_fail "--state-dir did not replace last-sweep.json ($t1, $t2)"
rgf_ok "--state-dir: first run leaves the state, the next judges growth against it and replaces it"
echo "PASS"
