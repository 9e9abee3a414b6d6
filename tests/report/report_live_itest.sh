#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: `railctl report` against a real slurmctld (tests/harness, etc/dev-4su.yaml,
# 32 nodes), reading node states, reasons, features, Extra and running jobs through libslurm.
#  1. A leaf-switch fault: the Extra of all 8 nodes of su2 says rail 3 degraded and they are
#     drained with railcheck's reason. The top suspect must be su2's rail-3 leaf (su2-rail3),
#     explaining all 8 nodes, with no per-node suspect for them; checked in all four formats.
#     A saved snapshot gives the same report as the live read.
#  2. A single-cable fault: one node (n013, node 5 of su2), one rail (6) down. The suspect must
#     name the node, the rail, its NIC (mlx5_10), the leaf (su2-rail6) and the port (5).
#  3. (24.11 and later only) A job with --exclusive=topo on 2 nodes of su3: Slurm marks the
#     other 6 BLOCKED; the report must count none of su3 free and find the largest job in su4.
#  4. Observe mode: railcheck (health.mode: observe) changed nothing in Slurm and says in Extra
#     that it would drain n025 and requeue its job, and nothing on n026; all four formats say so.
# (railcheck sets Extra itself on a real cluster; here scontrol does, as railcheck would.)
# Env: RAILGUARD_SOURCE_DIR (default: this checkout), RAILGUARD_BINARY_DIR (railctl's folder).
# On the system Slurm; report_live_2411_itest.sh and _2511_ set rg_release (e.g. 24.11.5) and
# run it on that release (tests/harness/cluster.sh --slurm-version) with the railctl of
# slurm-tools-<release>/ (RAILGUARD_TOOLS_DIR: another), skipping when those are not built.
set -euo pipefail

src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=$(basename "${0%.sh}")
checks=0
yaml=$src/etc/dev-4su.yaml

# shellcheck source-path=SCRIPTDIR source=../harness/cluster.sh
source "$src/tests/harness/cluster.sh"
railctl=$bin/railctl
release=()
if [ -n "${rg_release:-}" ]; then
  railctl=$(rg_release_tools "$rg_release")/railctl
  rg_skip_unbuilt "$name" "$rg_release" "$railctl"
  release=(--slurm-version "$rg_release")
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rg-report-itest.XXXXXX")
cleanup() {
  rg_cluster_stop || true
  rm -rf -- "$tmp"
}

fail() {
  echo "$name: FAIL: $*" >&2
  if [ -n "${RAILGUARD_CLUSTER_DIR:-}" ] && [ -s "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" ]; then
    echo "---- last 10 lines of slurmctld.log" >&2
    grep -v pmix "$RAILGUARD_CLUSTER_DIR/ctld/slurmctld.log" | tail -n 10 >&2
  fi
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "$name: ok: $*"
}

[ -x "$railctl" ] || fail "$railctl not built"
command -v python3 >/dev/null || fail "python3 is needed to read the JSON report"

# extra STATES VERDICT FAILED: railcheck's Extra JSON, STATES like "ok ok ok degraded ...".
extra() {
  local states="" s
  for s in $1; do states+="${states:+,}\"$s\""; done
  printf '{"railcheck":{"time":%s,"verdict":"%s","rails":[%s],"failed":[%s]}}' \
    "$(date +%s)" "$2" "$states" "$3"
}
all_ok="ok ok ok ok ok ok ok ok"
# observed EXTRA WOULD: railcheck's Extra in observe mode, with "would": WOULD (a JSON array).
observed() { printf '%s,"would":%s}}' "${1%\}\}}" "$2"; }

# jq-like: json FILE EXPR prints the Python expression EXPR over the parsed report `r`.
json() {
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

rg_cluster_start --topo "$yaml" --topology-plugin tree --railctl "$railctl" "${release[@]}" \
  --no-trap ||
  fail "the cluster did not start (see the messages above)"
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# --- a healthy cluster, as railcheck leaves it: feature rail_healthy and Extra on every node --
for su in 1 2 3 4; do
  first=$(((su - 1) * 8 + 1))
  nodes=$(printf 'n[%03d-%03d]' "$first" $((first + 7)))
  scontrol update nodename="$nodes" availablefeatures="su$su,rail_healthy" \
    activefeatures="su$su,rail_healthy" extra="$(extra "$all_ok" ok "")" ||
    fail "scontrol update $nodes (features, extra) failed"
done
[ "$(scontrol show node n010 | grep -o 'ActiveFeatures=[^ ]*')" = "ActiveFeatures=su2,rail_healthy" ] ||
  fail "n010 did not get the rail_healthy feature: $(scontrol show node n010 | grep Features)"

# Jobs that run through the faults: 4 nodes of su1, 2 of su2.
job1=$(sbatch --parsable -w 'n[001-004]' -N4 -o /dev/null --wrap 'sleep 600') || fail "sbatch su1"
job2=$(sbatch --parsable -w 'n[009-010]' -N2 -o /dev/null --wrap 'sleep 600') || fail "sbatch su2"
for _ in $(seq 1 60); do
  running=$(squeue -h -t R -j "$job1,$job2" | wc -l)
  [ "$running" -eq 2 ] && break
  sleep 0.5
done
[ "$running" -eq 2 ] || fail "jobs $job1, $job2 did not start: $(squeue)"

"$railctl" report --topology "$yaml" --no-history --json >"$tmp/healthy.json" 2>"$tmp/err" ||
  fail "railctl report on the healthy cluster failed: $(cat "$tmp/err")"
[ "$(json "$tmp/healthy.json" 'r["summary"]["health"]["healthy"]')" = 32 ] ||
  fail "healthy cluster: $(json "$tmp/healthy.json" 'r["summary"]')"
[ "$(json "$tmp/healthy.json" 'len(r["suspects"])')" = 0 ] || fail "suspects on a healthy cluster"
[ "$(json "$tmp/healthy.json" 'r["summary"]["free"]')" = 26 ] ||
  fail "expected 26 free nodes (32 minus 6 in jobs): $(json "$tmp/healthy.json" 'r["summary"]')"
[ "$(json "$tmp/healthy.json" 'r["slurm_cluster"]')" != "" ] || fail "no Slurm ClusterName read"
ok "healthy cluster read live: 32 healthy, 26 free, no suspects"

# --- 1. leaf fault: su2 rail 3 ---------------------------------------------------------------
scontrol update nodename='n[009-016]' \
  extra="$(extra "ok ok ok degraded ok ok ok ok" drain '"rail3:port.rate"')" \
  availablefeatures=su2 activefeatures=su2 ||
  fail "scontrol update n[009-016] extra failed"
scontrol update nodename='n[009-016]' state=drain \
  reason='railcheck: rail3 mlx5_5 rate 200 Gb/s < 400 Gb/s' || fail "scontrol drain failed"

"$railctl" report --topology "$yaml" --no-history --json --save-snapshot "$tmp/leaf.snap" \
  >"$tmp/leaf.json" 2>"$tmp/err" || fail "railctl report --json failed: $(cat "$tmp/err")"
r=$tmp/leaf.json
[ "$(json "$r" 'r["suspects"][0]["kind"]')" = leaf ] ||
  fail "top suspect is not a leaf: $(json "$r" 'r["suspects"][0]["title"]')"
[ "$(json "$r" 'r["suspects"][0]["leaf"]')" = su2-rail3 ] ||
  fail "top suspect is not su2-rail3: $(json "$r" 'r["suspects"][0]["title"]')"
[ "$(json "$r" 'r["suspects"][0]["affected_nodes"]')" = 8 ] ||
  fail "the leaf suspect does not explain 8 nodes: $(json "$r" 'r["suspects"][0]')"
[ "$(json "$r" 'r["suspects"][0]["nodes"]')" = 'n[009-016]' ] || fail "leaf suspect nodes"
[ "$(json "$r" 'len(r["suspects"])')" = 1 ] ||
  fail "the su2 nodes are also listed one by one: $(json "$r" '[s["title"] for s in r["suspects"]]')"
[ "$(json "$r" 'r["matrix"][1]["cells"][3]["degraded"]')" = 8 ] || fail "matrix su2 rail3"
[ "$(json "$r" 'r["summary"]["drained"]')" = 8 ] || fail "expected 8 drained nodes"
[ "$(json "$r" '[n["drained_by"] for n in r["nodes"] if n["drained"]] == ["railcheck"]*8')" = True ] ||
  fail "drained nodes not attributed to railcheck"
[ "$(json "$r" 'r["nodes"][8]["reason_time"] is not None')" = True ] || fail "no reason_time"
[ "$(json "$r" '[j["id"] for j in r["jobs_on_degraded_paths"]]')" = "[$job2]" ] ||
  fail "job $job2 on n[009-010] not listed on a degraded path: $(json "$r" 'r["jobs_on_degraded_paths"]')"
[ "$(json "$r" 'r["capacity"][1]["free"]')" = 0 ] || fail "su2 should have no free node"
[ "$(json "$r" 'r["summary"]["largest_job"]')" = "{'nodes': 8, 'su': 'su3'}" ] ||
  fail "largest job: $(json "$r" 'r["summary"]["largest_job"]')"
ok "JSON: top suspect leaf su2-rail3 explains n[009-016] (1 suspect), job $job2 on a degraded path, largest job 8 in su3"

"$railctl" report --topology "$yaml" --no-history >"$tmp/leaf.txt" 2>"$tmp/err" ||
  fail "railctl report (text) failed: $(cat "$tmp/err")"
grep -q '^ 1\. \[high\] leaf switch su2-rail3 (su2, rail3) or its uplinks: 8 of 8 nodes bad on rail3$' \
  "$tmp/leaf.txt" || fail "text: suspect 1 is not the leaf: $(grep -A2 SUSPECTS "$tmp/leaf.txt")"
grep -q '^ 2\. ' "$tmp/leaf.txt" && fail "text lists a second suspect"
grep -q '^su2      8  ok   ok   ok   8d   ok   ok   ok   ok$' "$tmp/leaf.txt" ||
  fail "text matrix row of su2: $(grep '^su2 ' "$tmp/leaf.txt")"
awk 'length($0) > 100 { exit 1 }' "$tmp/leaf.txt" || fail "a text line is wider than 100 columns"
ok "text: suspect 1 is leaf su2-rail3, only suspect; matrix su2 R3 = 8d; within 100 columns"

"$railctl" report --topology "$yaml" --no-history --html -o "$tmp/leaf.html" 2>"$tmp/err" ||
  fail "railctl report --html failed: $(cat "$tmp/err")"
grep -q '<td class="cell degraded most" data-su="su2" data-rail="3" data-leaf="su2-rail3" data-ok="0" data-degraded="8"' \
  "$tmp/leaf.html" || fail "html: no degraded heatmap cell for su2 rail 3"
grep -q 'data-rank="1" data-kind="leaf" data-component="su2-rail3"' "$tmp/leaf.html" ||
  fail "html: suspect 1 is not leaf su2-rail3"
ok "html: heatmap cell su2/rail3 degraded 8, suspect 1 leaf su2-rail3"

"$railctl" report --topology "$yaml" --no-history --prometheus -o "$tmp/leaf.prom" \
  2>"$tmp/err" || fail "railctl report --prometheus failed: $(cat "$tmp/err")"
grep -Eq '^railguard_suspect_nodes\{cluster="raildev",rank="1",kind="leaf",component="su2-rail3",confidence="high",end="unknown"\} 8$' \
  "$tmp/leaf.prom" || fail "prometheus: no rank-1 leaf suspect su2-rail3: $(grep suspect "$tmp/leaf.prom")"
grep -Eq '^railguard_rail_nodes\{cluster="raildev",su="su2",rail="3",leaf="su2-rail3",state="degraded"\} 8$' \
  "$tmp/leaf.prom" || fail "prometheus: su2 rail3 not 8 degraded"
grep -Eq "^railguard_job_degraded_nodes\{cluster=\"raildev\",job=\"$job2\",user=\"[^\"]*\",name=\"wrap\"\} 2$" \
  "$tmp/leaf.prom" || fail "prometheus: job $job2 not on a degraded path"
bad=$(grep -Ev '^(# HELP railguard_[a-z_]+ .+|# TYPE railguard_[a-z_]+ gauge|railguard_[a-z_]+(\{([a-z_]+="([^"\\]|\\.)*",?)*\})? -?[0-9]+(\.[0-9]+)?)$' \
  "$tmp/leaf.prom" || true)
[ -z "$bad" ] || fail "prometheus lines not in the exposition format: $bad"
ok "prometheus: rank-1 suspect leaf su2-rail3 (8 nodes), su2 rail3 8 degraded, every line well-formed"

"$railctl" report --topology "$yaml" --no-history --json --snapshot "$tmp/leaf.snap" \
  >"$tmp/again.json" 2>"$tmp/err" || fail "report from the saved snapshot failed: $(cat "$tmp/err")"
cmp -s "$tmp/leaf.json" "$tmp/again.json" ||
  fail "the saved snapshot gives a different report: $(diff <(tr ',' '\n' <"$tmp/leaf.json") <(tr ',' '\n' <"$tmp/again.json") | head)"
ok "--save-snapshot then --snapshot gives the identical JSON report"

# --- 2. single-cable fault: n013 rail 6 down ------------------------------------------------
scontrol update nodename='n[009-016]' state=resume || fail "scontrol resume failed"
scontrol update nodename='n[009-016]' extra="$(extra "$all_ok" ok "")" \
  availablefeatures=su2,rail_healthy activefeatures=su2,rail_healthy || fail "reset su2"
scontrol update nodename=n013 extra="$(extra "ok ok ok ok ok ok down ok" drain '"rail6:port.state"')" \
  availablefeatures=su2 activefeatures=su2 || fail "scontrol update n013 extra failed"
scontrol update nodename=n013 state=drain reason='railcheck: rail6 mlx5_10 port DOWN' ||
  fail "scontrol drain n013 failed"
now=$(date +%s)
# Two hours apart: three incidents (events less than an hour apart would be one).
for k in 1 2 3; do
  printf '{"v":1,"time":%s,"node":"n013","event":"flap","rail":6,"nic":"mlx5_10","checks":["link.flap"],"detail":"link_downed %s -> %s","counters":{"link_downed":{"value":%s,"delta":1,"seconds":600}}}\n' \
    $((now - k * 7200)) "$k" $((k + 1)) $((k + 1))
done >"$tmp/events.log"

"$railctl" report --topology "$yaml" --history "$tmp/events.log" --json >"$tmp/cable.json" \
  2>"$tmp/err" || fail "railctl report --json (cable) failed: $(cat "$tmp/err")"
r=$tmp/cable.json
[ "$(json "$r" 'len(r["suspects"])')" = 1 ] ||
  fail "expected one suspect: $(json "$r" '[s["title"] for s in r["suspects"]]')"
got=$(json "$r" '"{kind} {node} {rail} {nic} {leaf} {port}".format(**r["suspects"][0])')
[ "$got" = "cable n013 6 mlx5_10 su2-rail6 5" ] ||
  fail "cable suspect is '$got'; expected 'cable n013 6 mlx5_10 su2-rail6 5'"
[ "$(json "$r" 'r["history"]["repeat_offenders"][0]["node"]')" = n013 ] ||
  fail "n013's 3 flaps do not make it a repeat offender"
[ "$(json "$r" 'r["nodes"][12]["history"]["rails"][0]["flaps"]["24h"]')" = 3 ] ||
  fail "n013 rail 6 flaps in 24 h"
ok "JSON: cable suspect n013 rail6 mlx5_10 -> su2-rail6 port 5; 3 flaps, repeat offender"

"$railctl" report --topology "$yaml" --history "$tmp/events.log" >"$tmp/cable.txt" \
  2>"$tmp/err" || fail "railctl report (cable text) failed: $(cat "$tmp/err")"
grep -q '^ 1\. \[high\] cable, optic or NIC port: n013 rail6 (mlx5_10) -> su2-rail6 port 5$' \
  "$tmp/cable.txt" || fail "text: $(grep -A3 SUSPECTS "$tmp/cable.txt")"
grep -q 'port 5 is a guess (no sweep given): n013 is node 5 of su2 (leaf port = position' \
  "$tmp/cable.txt" || fail "text does not say how the port was found"
"$railctl" report --topology "$yaml" --history "$tmp/events.log" --html -o "$tmp/cable.html" \
  2>"$tmp/err" || fail "html (cable) failed"
grep -q '<td class="cell down some" data-su="su2" data-rail="6"' "$tmp/cable.html" ||
  fail "html: su2 rail6 cell is not down"
grep -q 'cable, optic or NIC port: n013 rail6 (mlx5_10) -&gt; su2-rail6 port 5' "$tmp/cable.html" ||
  fail "html: no cable suspect"
"$railctl" report --topology "$yaml" --history "$tmp/events.log" --prometheus \
  >"$tmp/cable.prom" 2>"$tmp/err" || fail "prometheus (cable) failed"
grep -Eq '^railguard_suspect_nodes\{cluster="raildev",rank="1",kind="cable",component="n013 rail6 \(mlx5_10\) -> su2-rail6 port 5",confidence="high",end="unknown"\} 1$' \
  "$tmp/cable.prom" || fail "prometheus: $(grep suspect_nodes "$tmp/cable.prom")"
grep -Eq '^railguard_node_rail_events\{cluster="raildev",node="n013",rail="6",kind="flap",window="24h"\} 3$' \
  "$tmp/cable.prom" || fail "prometheus: n013 rail6 flaps"
ok "text, html, prometheus: cable n013 rail6 (mlx5_10) -> su2-rail6 port 5"

# --- 3. (24.11+) a job with --exclusive=topo: Slurm marks the rest of its leaf BLOCKED -------
if [ -n "${rg_release:-}" ]; then
  job3=$(sbatch --parsable --exclusive=topo -w 'n[017-018]' -N2 -o /dev/null --wrap 'sleep 600') ||
    fail "sbatch --exclusive=topo"
  for _ in $(seq 1 60); do
    [ "$(squeue -h -t R -j "$job3" | wc -l)" -eq 1 ] && break
    sleep 0.5
  done
  grep -q 'State=IDLE+BLOCKED' < <(scontrol show node n019) ||
    fail "Slurm did not block n019 beside job $job3 (--exclusive=topo): $(scontrol show node n019 | grep State=)"
  "$railctl" report --topology "$yaml" --history "$tmp/events.log" --json     --save-snapshot "$tmp/blocked.snap" >"$tmp/blocked.json" 2>"$tmp/err" ||
    fail "railctl report --json (blocked) failed: $(cat "$tmp/err")"
  r=$tmp/blocked.json
  [ "$(json "$r" 'r["capacity"][2]["free"]')" = 0 ] ||
    fail "su3 has free nodes although job $job3 blocks n[019-024]: $(json "$r" 'r["capacity"][2]')"
  [ "$(json "$r" 'r["summary"]["largest_job"]["su"]')" = su4 ] ||
    fail "largest job: $(json "$r" 'r["summary"]["largest_job"]')"
  grep -q '"blocked"' "$tmp/blocked.snap" || fail "the snapshot has no node flagged blocked"
  ok "--exclusive=topo job $job3 on n[017-018]: n[019-024] BLOCKED, su3 0 free, largest job in su4"
  scancel "$job3" || true
fi

# --- 4. observe mode: railcheck would drain n025 (and requeue its job), nothing on n026 -------
scontrol update nodename=n025 \
  extra="$(observed "$(extra "ok ok down ok ok ok ok ok" drain '"rail2:port.state"')" '["drain","requeue"]')" ||
  fail "scontrol update n025 extra (observe mode) failed"
scontrol update nodename=n026 extra="$(observed "$(extra "$all_ok" ok "")" '[]')" ||
  fail "scontrol update n026 extra (observe mode) failed"
"$railctl" report --topology "$yaml" --no-history --json >"$tmp/observe.json" 2>"$tmp/err" ||
  fail "railctl report --json (observe) failed: $(cat "$tmp/err")"
r=$tmp/observe.json
[ "$(json "$r" 'r["summary"]["observe"]')" = "{'nodes': 2, 'would': {'drain': 1, 'restrict': 0, 'requeue': 1, 'resume': 0}}" ] ||
  fail "JSON summary.observe: $(json "$r" 'r["summary"]["observe"]')"
[ "$(json "$r" '(r["nodes"][24]["would"], r["nodes"][25]["observe"], r["nodes"][25]["would"])')" = "(['drain', 'requeue'], True, [])" ] ||
  fail "JSON would of n025, n026: $(json "$r" '[(n["name"], n["would"]) for n in r["nodes"] if n["observe"]]')"
"$railctl" report --topology "$yaml" --no-history >"$tmp/observe.txt" 2>"$tmp/err" ||
  fail "railctl report (observe text) failed: $(cat "$tmp/err")"
for line in 'observe mode on 2 of 32 nodes: railcheck changed nothing in Slurm there' \
  '  would drain 1 node, requeue jobs on 1' '  would drain 1 node: n025'; do
  grep -qxF "$line" "$tmp/observe.txt" ||
    fail "text has no line '$line': $(grep -A8 -i 'observe mode' "$tmp/observe.txt")"
done
"$railctl" report --topology "$yaml" --no-history --html -o "$tmp/observe.html" 2>"$tmp/err" ||
  fail "html (observe) failed"
grep -q '<span class="would">would drain</span><span class="would">would requeue</span></summary>' \
  "$tmp/observe.html" || fail "html: no would badges on n025"
"$railctl" report --topology "$yaml" --no-history --prometheus >"$tmp/observe.prom" 2>"$tmp/err" ||
  fail "prometheus (observe) failed"
for line in 'railguard_node_would{cluster="raildev",node="n025",action="requeue"} 1' \
  'railguard_would_nodes{cluster="raildev",action="drain"} 1' \
  'railguard_would_nodes{cluster="raildev",action="restrict"} 0'; do
  grep -qxF "$line" "$tmp/observe.prom" ||
    fail "prometheus has no line '$line': $(grep -E 'would|observe' "$tmp/observe.prom")"
done
[ "$(sinfo -h -n n025 -o %t)" = idle ] || fail "n025 is not idle: $(sinfo -h -n n025 -o %t)"
ok "observe mode: n025 would be drained (job requeued), n026 nothing; text, JSON, HTML, Prometheus"

scancel "$job1" "$job2" || true
echo "$name: PASS ($checks checks, ${SECONDS} s)"
