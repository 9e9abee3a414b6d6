#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Integration test: the `railctl report --html` page of the fixture (tests/report/data: a
# su2 rail-3 leaf fault, a cable, a host fault, hostile strings from Slurm) opened in a real
# headless Chromium. Checks what the browser renders after the page's own JS ran: the heatmap
# cell of the degraded leaf, the drill-down of n009 opened from the URL fragment, its
# content, the cell's node panel, that hostile input stayed text, and a screenshot.
# Env: RAILGUARD_SOURCE_DIR (default: this checkout), RAILGUARD_BINARY_DIR (railctl's folder).
# Leaves the page, the DOM and the screenshot in $RAILGUARD_BINARY_DIR/report-browser/.
set -euo pipefail

src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=report_html_browser_itest
checks=0

fail() {
  echo "$name: FAIL: $*" >&2
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "$name: ok: $*"
}

[ -x "$bin/railctl" ] || fail "$bin/railctl not built"
browser=$(command -v chromium || true)
[ -n "$browser" ] || fail "chromium not installed (scripts/setup.sh installs it)"

out=$bin/report-browser
rm -rf "$out"
mkdir -p "$out"
profile=$(mktemp -d "${TMPDIR:-/tmp}/rg-chromium.XXXXXX")
trap 'rm -rf -- "$profile"' EXIT

# chromium FLAGS... URL: a fresh profile each run, nothing fetched from the network.
run_chromium() {
  local p
  p=$(mktemp -d "$profile/p.XXXXXX")
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --hide-scrollbars --user-data-dir="$p" "$@" 2>>"$out/chromium.log"
}

"$bin/railctl" report --topology "$src/etc/dev-4su.yaml" \
  --snapshot "$src/tests/report/data/dev4su_faults.json" \
  --history "$src/tests/report/data/dev4su_events.log" --html -o "$out/report.html" \
  2>"$out/railctl.err" || fail "railctl report --html failed: $(cat "$out/railctl.err")"
ok "railctl wrote $out/report.html ($(wc -c <"$out/report.html") bytes)"

# --- the DOM after the page's JS ran, opened at node n009 ---------------------------------
run_chromium --dump-dom "file://$out/report.html#node-n009" >"$out/dom.html" ||
  fail "chromium --dump-dom failed (see $out/chromium.log)"
[ -s "$out/dom.html" ] || fail "chromium dumped an empty DOM (see $out/chromium.log)"
grep -q '<body data-js="ready">' "$out/dom.html" ||
  fail "the page's script did not run (no data-js=\"ready\" on <body>)"
ok "chromium loaded the page and ran its script"

# The heatmap cell of su2's rail-3 leaf: degraded, strongly coloured, 8 of 8 nodes.
cell=$(grep -o '<td class="cell [^"]*" data-su="su2" data-rail="3"[^>]*>' "$out/dom.html" || true)
[ -n "$cell" ] || fail "no heatmap cell for su2 rail 3"
[[ $cell == *'class="cell degraded most"'* ]] || fail "su2 rail 3 cell is not degraded: $cell"
[[ $cell == *'data-leaf="su2-rail3"'* && $cell == *'data-degraded="8"'* && $cell == *'data-ok="0"'* ]] ||
  fail "su2 rail 3 cell does not count 8 degraded on leaf su2-rail3: $cell"
for su in su1 su3 su4; do
  c=$(grep -o "<td class=\"cell [^\"]*\" data-su=\"$su\" data-rail=\"3\"" "$out/dom.html" || true)
  [[ $c == *'class="cell ok"'* ]] || fail "$su rail 3 is not ok: $c"
done
down=$(grep -o '<td class="cell [^"]*" data-su="su4" data-rail="0"[^>]*>' "$out/dom.html" || true)
[[ $down == *'class="cell down some"'* ]] || fail "su4 rail 0 (n026 down) is not a down cell: $down"
ok "heatmap: su2 rail3 degraded (8 of 8, leaf su2-rail3), rail3 ok elsewhere, su4 rail0 down"

# The top suspect as rendered.
top=$(perl -0777 -ne 'print $1 if /(<li class="suspect[^"]*" data-rank="1".*?<\/li><\/ul><\/li>)/s' \
  "$out/dom.html")
[[ $top == *'data-kind="leaf"'* && $top == *'data-component="su2-rail3"'* ]] ||
  fail "suspect 1 is not leaf su2-rail3: ${top:0:300}"
[[ $top == *'leaf switch su2-rail3 (su2, rail3) or its uplinks'* ]] ||
  fail "suspect 1 does not name the leaf: ${top:0:300}"
ok "suspect 1 is leaf switch su2-rail3"

# The drill-down of n009: opened by the script from the fragment, with its rails and history.
drill=$(perl -0777 -ne 'print $1 if /(<details class="node[^"]*" id="node-n009".*?<\/details>)/s' \
  "$out/dom.html")
[ -n "$drill" ] || fail "no drill-down for n009"
head=${drill%%>*}
[[ $head == *'open=""'* && $head == *focus* ]] ||
  fail "n009's drill-down was not opened from #node-n009: $head>"
for want in 'su2 (node 1 of 8)' 'idle+drain' \
  'railcheck: rail3 mlx5_5 rate 200 Gb/s &lt; 400 Gb/s' \
  '<td>rail3</td><td>mlx5_5</td><td>su2-rail3</td><td>port 1</td><td class="degraded">degraded</td><td>port.rate</td>' \
  'Events, last 7 days' '<td>drained</td>'; do
  [[ $drill == *"$want"* ]] || fail "n009's drill-down lacks '$want'"
done
ok "n009 drill-down opened by the page's script: su2 node 1, rail3 mlx5_5 on su2-rail3 port 1 degraded (port.rate), its events"

# The cell's panel lists the leaf's nodes with links to their drill-downs.
panel=$(perl -0777 -ne 'print $1 if /(<div class="panel[^"]*" id="cell-1-3">.*?<\/div>)/s' "$out/dom.html")
for n in 009 010 011 012 013 014 015 016; do
  [[ $panel == *"<a href=\"#node-n$n\">n$n</a> degraded: port.rate"* ]] ||
    fail "the su2 rail3 panel does not list n$n: ${panel:0:300}"
done
ok "the su2 rail3 cell's panel lists n[009-016] with links"

# Hostile input from Slurm (a drain reason with <img onerror>, a job named </td><script>) is
# text, not markup: no <img> element, one <script> element (the page's), the text visible.
[ "$(grep -o '<img' "$out/dom.html" | wc -l)" -eq 0 ] || fail "an <img> element was created"
[ "$(grep -o '<script' "$out/dom.html" | wc -l)" -eq 1 ] ||
  fail "$(grep -o '<script' "$out/dom.html" | wc -l) <script> elements; expected only the page's"
grep -q '&lt;img src=x onerror=alert(1)&gt; swapped DIMM' "$out/dom.html" ||
  fail "the admin's reason is not shown as text"
grep -q '&lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;' "$out/dom.html" ||
  fail "the job name is not shown as text"
ok "hostile reason and job name render as text (no <img>, only the page's <script>)"

# --- the page as a person sees it -----------------------------------------------------------
run_chromium --window-size=1400,4400 --screenshot="$out/report.png" "file://$out/report.html" \
  >/dev/null || fail "chromium --screenshot failed (see $out/chromium.log)"
size=$(wc -c <"$out/report.png")
[ "$size" -gt 100000 ] || fail "screenshot $out/report.png is only $size bytes (blank page?)"
[ "$(head -c 8 "$out/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  fail "$out/report.png is not a PNG"
ok "screenshot $out/report.png ($size bytes)"

echo "$name: PASS ($checks checks, ${SECONDS} s)"
