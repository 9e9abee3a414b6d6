#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# railctl topology discover --live on a simulated fabric: the dev-4su topology (rails at HDR)
# with a swapped cable pair (n003's rails 1 and 2) and a UFM host on spine1, served by ibsim
# and brought up by opensm. Discovering it through libibnetdisc gives the same YAML and the
# same findings as `railctl topology discover` of ibnetdiscover's dump of it, and the YAML
# is the topology it was simulated from. `railctl topology audit PLAN --live` against the
# plan (the YAML it was simulated from) names the swapped pair and the UFM host, as the
# audit of the dump does.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=fabric_itest_lib.sh
source "$here/fabric_itest_lib.sh"

rgf_start_dev4su --swap n003:mlx5_3:2 --ufm ufm01

opts=(--cluster raildev --node-type dgx-h100)
rgf_discover_dump "${opts[@]}"
rc=0
start=$(date +%s%N)
rg_fabric_run "$RGF_RAILCTL" topology discover --live "${opts[@]}" -o "$work/live.yaml" \
  2>"$work/live.err" || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
rgf_expect_eq "exit of discover --live (findings)" "$rc" 1
grep -q 'discovered 4 scalable units, 32 hosts, 8 rails, 32 leaves and 2 spines' "$work/live.err" ||
  rgf_fail "discover --live summary: $(tail -n1 "$work/live.err")"
rgf_ok "discover --live through libibnetdisc in $ms ms: $(tail -n1 "$work/live.err")"

# Findings: one per line, then the summary line "<source>: ..." that names the input
# (libumad2sim's own ibwarn lines left out).
findings() { grep -v -e ': discovered ' -e '^ibwarn: ' "$1"; }
diff <(findings "$work/text.err") <(findings "$work/live.err") ||
  rgf_fail "discover --live's findings differ from discover's on the dump"
diff <(tail -n1 "$work/text.err" | sed 's/^[^:]*: //') \
  <(tail -n1 "$work/live.err" | sed 's/^live fabric ([^)]*): //') ||
  rgf_fail "the summaries differ"
rgf_expect_eq "rail-mismatch findings" "$(grep -c '^rail-mismatch: n003 mlx5_[34] ' "$work/live.err")" 2
grep -q '^non-compute: ufm01 mlx5_0 on spine1 port ' "$work/live.err" ||
  rgf_fail "no non-compute finding for ufm01: $(cat "$work/live.err")"
cmp "$work/text.yaml" "$work/live.yaml" || rgf_fail "discover --live's YAML differs from discover's"
diff <("$RGF_RAILCTL" topology show "$work/live.yaml") \
  <("$RGF_RAILCTL" topology show "$work/topo.yaml") ||
  rgf_fail "the topology discovered live differs from the YAML it was simulated from"
rgf_ok "same YAML and findings (2 rail-mismatch, 1 non-compute) live and from the dump; YAML = source"

# --json works live too.
rg_fabric_run "$RGF_RAILCTL" topology discover --live "${opts[@]}" --json >"$work/live.json" \
  2>/dev/null || true
python3 - "$work/live.json" <<'PY' || rgf_fail "discover --live --json"
import json, sys
j = json.load(open(sys.argv[1]))
kinds = sorted(f["kind"] for f in j["findings"])
assert kinds == ["non-compute", "rail-mismatch", "rail-mismatch"], kinds
assert j["summary"]["hosts"] == 32 and j["summary"]["switches"] == 34, j["summary"]
PY
rgf_ok "discover --live --json: the same findings"

# The fabric against its plan, live and from the dump: the swapped pair in one line, the UFM
# host on spine1 is not on a planned leaf (no "extra").
for how in live dump; do
  rc=0
  if [ "$how" = live ]; then
    rg_fabric_run "$RGF_RAILCTL" topology audit "$work/topo.yaml" --live >"$work/audit-$how.out" \
      2>/dev/null || rc=$?
  else
    "$RGF_RAILCTL" topology audit "$work/topo.yaml" "$work/fabric.net" >"$work/audit-$how.out" \
      2>/dev/null || rc=$?
  fi
  rgf_expect_eq "exit of topology audit ($how)" "$rc" 1
  grep -q "^swapped: n003 mlx5_3 and n003 mlx5_4 are on each other's leaves: " \
    "$work/audit-$how.out" && grep -q ': 1 difference$' "$work/audit-$how.out" ||
    rgf_fail "topology audit ($how): $(cat "$work/audit-$how.out")"
done
diff <(grep -v ' against ' "$work/audit-live.out") <(grep -v ' against ' "$work/audit-dump.out") ||
  rgf_fail "the audit live and of the dump differ"
rgf_ok "topology audit against the plan, live and of the dump: $(head -n1 "$work/audit-live.out")"

# A bad CA name is an error that says what was tried, not a hang.
rc=0
rg_fabric_run "$RGF_RAILCTL" topology discover --live --ca nosuch_hca "${opts[@]}" \
  >/dev/null 2>"$work/bad.err" || rc=$?
rgf_expect_eq "exit with an unknown --ca" "$rc" 1
grep -q 'could not discover the fabric from nosuch_hca' "$work/bad.err" ||
  rgf_fail "unknown --ca: $(cat "$work/bad.err")"
rgf_ok "discover --live --ca nosuch_hca: $(tail -n1 "$work/bad.err")"
echo "PASS"
