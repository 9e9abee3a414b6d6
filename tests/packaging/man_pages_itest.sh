#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages in man/ have no groff warnings and say what the programs do:
#  - railctl(8) has a section for every command `railctl --help` lists, and names every
#    option of each command's --help;
#  - railcheck(8) names every option of `railcheck --help` (once railcheck is built);
#  - railguard.yaml(5) names every key the config and topology loaders accept (the key
#    tables of config/load.cc and topo/topology_yaml.cc), every health check and every
#    error counter, and gives the defaults etc/railguard.yaml lists.
# Env: RAILGUARD_SOURCE_DIR, RAILGUARD_BINARY_DIR (where railctl and railcheck are built).
set -euo pipefail
src=${RAILGUARD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
bin=${RAILGUARD_BINARY_DIR:-$src/build}
name=man_pages_itest
checks=0

fail() {
  echo "$name: FAIL: $*" >&2
  exit 1
}
ok() {
  checks=$((checks + 1))
  echo "$name: ok: $*"
}

# roff OPTION: how an option is written in roff source, every '-' as '\-'.
roff() { printf '%s' "${1//-/\\-}"; }

# options HELP-TEXT: every --long option and -x short option the text names, one per line.
options() {
  grep -oE -- '(^|[ [(|])--?[a-zA-Z][a-zA-Z0-9-]*' <<<"$1" | sed 's/^[ [(|]//' | sort -u
}

# --- groff warnings --------------------------------------------------------------------------
for page in "$src"/man/*.[1-8]; do
  out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
  [ -z "$out" ] || fail "man --warnings -l $page: $out"
  out=$(groff -ww -z -man -Tutf8 "$page" 2>&1)
  [ -z "$out" ] || fail "groff -ww $page: $out"
  ok "no warnings from man --warnings or groff -ww: man/${page##*/}"
done

# --- railctl(8) ------------------------------------------------------------------------------
railctl=$bin/railctl
[ -x "$railctl" ] || fail "$railctl not built"
page=$src/man/railctl.8
# "  %-9s %-9s %s": group, command (empty for one-word commands such as report), help.
mapfile -t commands < <("$railctl" --help | awk '/^commands:/ { on = 1; next }
  on && /^  [a-z]/ { cmd = substr($0, 3, 9) " " substr($0, 13, 9); gsub(/ +/, " ", cmd);
    sub(/ $/, "", cmd); print cmd } on && /^$/ { on = 0 }')
[ "${#commands[@]}" -gt 0 ] || fail "railctl --help lists no commands"
for cmd in "${commands[@]}"; do
  grep -q "^\.SS \"$cmd" "$page" || fail "railctl.8 has no section '.SS \"$cmd ...\"' for 'railctl $cmd'"
  # shellcheck disable=SC2086 # "group command" is two words on purpose
  help=$("$railctl" $cmd --help)
  while read -r opt; do
    grep -qF -- "$(roff "$opt")" "$page" ||
      fail "railctl.8 does not mention $opt of 'railctl $cmd' (as $(roff "$opt"))"
  done < <(options "$help")
done
ok "railctl.8 covers ${#commands[@]} commands of railctl --help and all their options"

# --- railcheck(8) ----------------------------------------------------------------------------
railcheck=$bin/healthcheck/railcheck
[ -x "$railcheck" ] || railcheck=$bin/railcheck
if [ -x "$railcheck" ]; then
  page=$src/man/railcheck.8
  [ -f "$page" ] || fail "railcheck is built but man/railcheck.8 does not exist"
  help=$("$railcheck" --help)
  while read -r opt; do
    grep -qF -- "$(roff "$opt")" "$page" ||
      fail "railcheck.8 does not mention $opt of 'railcheck --help' (as $(roff "$opt"))"
  done < <(options "$help")
  ok "railcheck.8 covers every option of railcheck --help"
else
  echo "$name: note: railcheck is not built in $bin; railcheck.8 not compared"
fi

# --- railguard.yaml(5) -----------------------------------------------------------------------
page=$src/man/railguard.yaml.5
# strings FILE START: the quoted words from the line matching START to the next "};".
strings() {
  awk -v start="$2" '$0 ~ start { on = 1 } on { print } on && /};/ { on = 0 }' "$1" |
    grep -oE '"[A-Za-z0-9_.]+"' | tr -d '"'
}
mapfile -t keys < <({
  strings "$src/config/load.cc" '^const char\* const k[A-Za-z]*Keys\[\] = {'
  strings "$src/topo/topology_yaml.cc" '^const char\* const k[A-Za-z]*Keys\[\] = {'
  strings "$src/healthcheck/check_table.cc" 'HealthChecks() {'
  strings "$src/config/config.cc" 'LinkErrorCounterNames() {'
} | sort -u)
[ "${#keys[@]}" -gt 30 ] || fail "found only ${#keys[@]} keys in config/ and topo/topology_yaml.cc: ${keys[*]}"
for key in "${keys[@]}"; do
  grep -qE "^\.(B|BR|BI|IB|SS) ${key//./\\.}( |$)" "$page" ||
    fail "railguard.yaml.5 does not name '$key' (a .B, .BR or .SS line starting with it)"
done
ok "railguard.yaml.5 names all ${#keys[@]} keys, checks and counters of the loaders"

# Defaults: etc/railguard.yaml lists every default value ("key: value" under placement: and
# health:); the man page gives each as "key (default value", "key (value)" or, for a check,
# "value:" on the line after the check's name.
n=0
while read -r key value; do
  # Every line naming the key, roff quotes dropped, each followed by the line after it.
  found=0
  while IFS=$'\t' read -r line next; do
    case $line in
      "$key (default $value"[,\ \)]* | "$key ($value)"*) found=1 ;;
      *) [[ $next != "$value:"* ]] || found=1 ;;
    esac
  done < <(awk -v key="$key" '
    prev != "" { print prev "\t" $0; prev = "" }
    ($1 == ".B" || $1 == ".BR") && $2 == key {
      prev = $0; sub(/^\.BR? /, "", prev); gsub(/"/, "", prev); gsub(/ +/, " ", prev) }' "$page")
  [ "$found" = 1 ] ||
    fail "railguard.yaml.5 does not give $key the default of etc/railguard.yaml, $value"
  n=$((n + 1))
done < <(sed -n '/^placement:/,$p' "$src/etc/railguard.yaml" |
  sed -nE 's/^ {2,4}([A-Za-z0-9_.]+): ([^ #]+).*/\1 \2/p')
[ "$n" -gt 20 ] || fail "found only $n defaults in etc/railguard.yaml"
ok "railguard.yaml.5 gives the $n defaults etc/railguard.yaml lists"

echo "$name: PASS ($checks checks, $SECONDS s)"
