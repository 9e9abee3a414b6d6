#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails when the source tree breaks its layering (run by CTest as check_layers).

Every folder of the tree sits on a layer; a file may include files of its own folder and of
folders on lower layers only ("includes point down"). Folders on one layer are peers and may
not include each other. On top of that no include cycle between files is allowed, and no
source file outside tests/ may be longer than MAX_LINES lines.

Usage: scripts/check_layers.py [SOURCE_DIR]      (default: the folder above this script)
Prints one line per problem, then "check_layers: N problems"; exits 1 when N > 0.
"""
import os
import re
import sys

# Lowest first. A folder not listed is an error, so a new folder must be placed on purpose.
LAYERS = [
    ["base"],                              # diagnostics, files, JSON, numbers, names, args
    ["topo"],                              # the rail topology model and its formats
    ["config"],                            # railguard.yaml: schema, defaults, locating, loading
    ["wire"],                              # formats railcheck writes and others read
    ["fabric"],                            # fabric sweep: libibnetdisc + libibmad, judge, output
    ["plugin", "healthcheck", "report"],   # the Slurm plugins, railcheck, the fleet report
    ["cli"],                               # railctl
    ["bench"],                             # benchmarks
    ["fuzz"],                              # fuzz targets (they reuse the trace reader of bench/)
]
MAX_LINES = 700
SOURCE_EXT = (".cc", ".h", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    return rel.split("/", 1)[0]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    layer_of = {f: i for i, fs in enumerate(LAYERS) for f in fs}
    problems = []
    graph = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        top = "" if rel_dir == "." else rel_dir.split(os.sep)[0]
        if top.startswith(".") or top.startswith("build") or top == "tests":
            dirnames[:] = []
            continue
        for name in filenames:
            if not name.endswith(SOURCE_EXT):
                continue
            rel = os.path.normpath(os.path.join(rel_dir, name))
            if rel_dir == ".":
                problems.append(f"{rel}: source file at the top of the tree; expected one "
                                "in a component folder")
                continue
            folder = folder_of(rel)
            if folder not in layer_of:
                problems.append(f"{rel}: folder {folder}/ is on no layer; add it to LAYERS "
                                "in scripts/check_layers.py")
                continue
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            if len(lines) > MAX_LINES:
                problems.append(f"{rel}: {len(lines)} lines; expected at most {MAX_LINES} "
                                "(split it by phase or subject)")
            graph[rel] = []
            for number, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = m.group(1)
                tfolder = folder_of(target)
                if "/" not in target or tfolder not in layer_of:
                    continue  # a system header or a Slurm header (src/..., slurm/...)
                if not os.path.exists(os.path.join(root, target)):
                    continue
                graph[rel].append(target)
                if tfolder == folder:
                    continue
                if layer_of[tfolder] >= layer_of[folder]:
                    kind = "a peer" if layer_of[tfolder] == layer_of[folder] else "a higher"
                    problems.append(f"{rel}:{number}: includes {target}, in {kind} folder "
                                    f"({tfolder}/ is on layer {layer_of[tfolder]}, {folder}/ "
                                    f"on layer {layer_of[folder]}); expected includes that "
                                    "point down")
    # Include cycles between files: depth-first search with colours.
    state = {}
    stack = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in graph.get(node, []):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                problems.append("include cycle: " + " -> ".join(cycle))
            elif nxt in graph and state.get(nxt) is None:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if state.get(node) is None:
            visit(node)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
