#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Fails when the source tree breaks its layering (run by CTest as check_layers), or when
README.md's table of folders says otherwise than LAYERS below (CTest check_layers_readme).

Every folder of the tree sits on a layer and names the folders it may include (LAYERS); a
file may include files of its own folder and of those folders only, all on lower layers
("includes point down"). A folder LAYERS lets include another that none of its files
includes is a problem too: the table says what the code needs, no more. On top of that no
include cycle between files is allowed, and no source file outside tests/ may be longer than
MAX_LINES lines.

Usage: scripts/check_layers.py [SOURCE_DIR]      (default: the folder above this script)
       scripts/check_layers.py [SOURCE_DIR] --readme README.md
The second form checks the table of README.md's "What is here" section instead: one row per
top-level folder of SOURCE_DIR, and for a folder of LAYERS its layer and may-include list as
LAYERS has them; every `folder/` that section names in backticks must exist.
Prints one line per problem, then "check_layers: N problems"; exits 1 when N > 0 (2 on a bad
command line).
"""
import os
import re
import sys

# folder: (layer, the folders it may include besides itself). Lowest layer first; a folder
# may include only folders on lower layers. A folder not listed is an error, so a new folder
# must be placed on purpose. README.md's "What is here" table says the same.
LAYERS = {
    # diagnostics, files, JSON, numbers, names, args
    "base": (0, []),
    # the rail topology model and its formats
    "topo": (1, ["base"]),
    # railguard.yaml: schema, defaults, locating, loading (with the topology it names)
    "config": (2, ["base", "topo"]),
    # formats railcheck writes and others read
    "wire": (3, ["base"]),
    # fabric sweep: libibnetdisc + libibmad, judge, output (the sweep JSON's format is wire's)
    "fabric": (4, ["base", "topo", "config", "wire"]),
    # the Slurm plugins, railcheck, the fleet report
    "plugin": (5, ["base", "topo", "config", "wire"]),
    "healthcheck": (5, ["base", "topo", "config", "wire"]),
    "report": (5, ["base", "topo", "wire"]),
    # railctl
    "cli": (6, ["base", "topo", "config", "wire", "fabric", "healthcheck", "report"]),
    # benchmarks
    "bench": (7, ["base", "topo", "config", "wire", "plugin", "healthcheck", "report"]),
    # fuzz targets (they reuse the trace reader of bench/)
    "fuzz": (8, ["base", "topo", "config", "wire", "plugin", "healthcheck", "report", "bench"]),
}
MAX_LINES = 700
SOURCE_EXT = (".cc", ".h", ".c")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
README_SECTION = "## What is here"
README_COLUMNS = ("layer", "folder", "may include")
BACKTICKED_FOLDER = re.compile(r"`([A-Za-z0-9_.\-/]+)/`")


def folder_of(rel):
    return rel.split("/", 1)[0]


def layer_of(folder):
    return LAYERS[folder][0]


def names(folders):
    """`["topo", "base"]` as "base/, topo/": lowest layer first ("nothing" when empty)."""
    order = sorted(folders, key=lambda f: (LAYERS[f][0] if f in LAYERS else len(LAYERS), f))
    return ", ".join(f + "/" for f in order) if folders else "nothing"


def skipped_top(name):
    """True for a top-level entry that is no part of the source tree (hidden, a build)."""
    return name.startswith(".") or name.startswith("build")


def table_problems():
    """LAYERS itself: every folder it lets a folder include exists in it, on a lower layer."""
    problems = []
    for folder, (layer, allowed) in LAYERS.items():
        for t in allowed:
            if t not in LAYERS:
                problems.append(f"scripts/check_layers.py: LAYERS lets {folder}/ include {t}/, "
                                "which is on no layer")
            elif layer_of(t) >= layer:
                problems.append(f"scripts/check_layers.py: LAYERS lets {folder}/ (layer {layer}) "
                                f"include {t}/ (layer {layer_of(t)}); expected only folders on "
                                "lower layers")
    return problems


def include_problem(rel, number, target, folder, tfolder):
    """The problem with `rel` including `target` (of another folder), or None."""
    if tfolder in LAYERS[folder][1]:
        return None
    if layer_of(tfolder) >= layer_of(folder):
        kind = "a peer" if layer_of(tfolder) == layer_of(folder) else "a higher"
        return (f"{rel}:{number}: includes {target}, in {kind} folder ({tfolder}/ is on layer "
                f"{layer_of(tfolder)}, {folder}/ on layer {layer_of(folder)}); expected "
                "includes that point down")
    return (f"{rel}:{number}: includes {target}, but {folder}/ may include only "
            f"{names(LAYERS[folder][1])} (LAYERS in scripts/check_layers.py); add {tfolder}/ "
            "there and in README.md's table if the design allows it")


def check_tree(root):
    problems = table_problems()
    graph = {}
    used = {f: set() for f in LAYERS}  # folder -> the other folders its files include
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        top = "" if rel_dir == "." else rel_dir.split(os.sep)[0]
        if skipped_top(top) or top == "tests":
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
            if folder not in LAYERS:
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
                if "/" not in target or tfolder not in LAYERS:
                    continue  # a system header or a Slurm header (src/..., slurm/...)
                if not os.path.exists(os.path.join(root, target)):
                    continue
                graph[rel].append(target)
                if tfolder == folder:
                    continue
                used[folder].add(tfolder)
                problem = include_problem(rel, number, target, folder, tfolder)
                if problem:
                    problems.append(problem)
    for folder, (_, allowed) in LAYERS.items():
        if not os.path.isdir(os.path.join(root, folder)):
            continue  # README mode says when a folder of LAYERS is gone
        for t in allowed:
            if t not in used[folder]:
                problems.append(f"{folder}/: may include {t}/ (LAYERS in scripts/check_layers.py) "
                                "but none of its files does; remove it there and in README.md's "
                                "table")
    problems.extend(cycle_problems(graph))
    return problems


def cycle_problems(graph):
    """Include cycles between files: depth-first search with colours."""
    problems = []
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
    return problems


def split_row(line):
    """The cells of a Markdown table row; a "|" inside backticks does not split."""
    cells, cell, quoted = [], "", False
    for ch in line.strip().strip("|"):
        if ch == "`":
            quoted = not quoted
        if ch == "|" and not quoted:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
    cells.append(cell.strip())
    return cells


def readme_section(lines):
    """(first line number, lines) of the "What is here" section, or None."""
    start = None
    for i, line in enumerate(lines):
        if line.strip() == README_SECTION:
            start = i
        elif start is not None and line.startswith("## "):
            return start + 1, lines[start:i]
    return (start + 1, lines[start:]) if start is not None else None


def readme_rows(where, first, section, problems):
    """{folder: (row name, layer or None, may-include list)} from the section's table."""
    rows = {}
    columns = None
    for offset, line in enumerate(section):
        if not line.startswith("|"):
            continue
        cells = split_row(line)
        if columns is None:
            lowered = [c.lower() for c in cells]
            missing = [c for c in README_COLUMNS if c not in lowered]
            if missing:
                problems.append(f"{where}:{first + offset}: table header {line.strip()}; "
                                f"expected the columns {', '.join(README_COLUMNS)}")
                return rows
            columns = {c: lowered.index(c) for c in README_COLUMNS}
            continue
        if set(line.replace("|", "").strip()) <= set("-: "):
            continue  # the separator row
        cell = {c: cells[i] if i < len(cells) else "" for c, i in columns.items()}
        folders = BACKTICKED_FOLDER.findall(cell["folder"])
        row = f"{where}:{first + offset}: row {cell['folder'] or '(no folder)'}"
        if not folders:
            problems.append(f"{row}: names no `folder/` in the folder column")
            continue
        layer = None
        if cell["layer"]:
            if not cell["layer"].isdigit():
                problems.append(f"{row}: layer '{cell['layer']}'; expected a number or nothing")
                continue
            layer = int(cell["layer"])
        allowed = [f for f in BACKTICKED_FOLDER.findall(cell["may include"]) if "/" not in f]
        for f in folders:
            if f in rows:
                problems.append(f"{row}: {f}/ has a row already ({rows[f][0]})")
            rows[f] = (row, layer, allowed)
    if columns is None:
        problems.append(f"{where}:{first}: no table in section '{README_SECTION}'; expected one "
                        f"with the columns {', '.join(README_COLUMNS)}")
    return rows


def check_readme(root, readme):
    """README.md's "What is here" against LAYERS and the folders of `root`."""
    problems = table_problems()
    where = os.path.relpath(readme, root) if os.path.isabs(readme) else readme
    path = readme if os.path.isabs(readme) else os.path.join(root, readme)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        return problems + [f"{where}: cannot read: {e.strerror}"]
    found = readme_section(lines)
    if not found:
        return problems + [f"{where}: no section '{README_SECTION}'"]
    first, section = found
    rows = readme_rows(where, first, section, problems)
    for folder, (row, layer, allowed) in rows.items():
        if "/" in folder:
            problems.append(f"{row}: {folder}/ is not a top-level folder")
        elif not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"{row}: {folder}/ is not a folder of the tree; remove the row")
        if folder not in LAYERS:
            if layer is not None:
                problems.append(f"{row}: layer {layer}, but {folder}/ is on no layer in "
                                "scripts/check_layers.py; expected an empty layer column")
            continue
        want_layer, want_allowed = LAYERS[folder]
        if layer != want_layer:
            problems.append(f"{row}: layer {'(none)' if layer is None else layer}; "
                            f"scripts/check_layers.py puts {folder}/ on layer {want_layer}")
        if sorted(allowed) != sorted(want_allowed):
            problems.append(f"{row}: may include {names(allowed)}; scripts/check_layers.py "
                            f"lets {folder}/ include {names(want_allowed)}")
    tops = sorted(e for e in os.listdir(root)
                  if not skipped_top(e) and os.path.isdir(os.path.join(root, e)))
    for folder in sorted(set(tops) | set(LAYERS)):
        if folder not in rows:
            layer = str(LAYERS[folder][0]) if folder in LAYERS else ""
            problems.append(f"{where}: no row for {folder}/ in the table of '{README_SECTION}'; "
                            f"expected | {layer} | `{folder}/` | ... |")
    for offset, line in enumerate(section):
        for name in BACKTICKED_FOLDER.findall(line):
            if not os.path.isdir(os.path.join(root, name)):
                problems.append(f"{where}:{first + offset}: names `{name}/`, which is not a "
                                "folder of the tree")
    return problems


def main(argv):
    args = argv[1:]
    readme = None
    if "--readme" in args:
        i = args.index("--readme")
        if i + 1 >= len(args):
            print("usage: check_layers.py [SOURCE_DIR] [--readme README.md]", file=sys.stderr)
            return 2
        readme = args[i + 1]
        del args[i:i + 2]
    if len(args) > 1:
        print("usage: check_layers.py [SOURCE_DIR] [--readme README.md]", file=sys.stderr)
        return 2
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    problems = check_readme(root, readme) if readme else check_tree(root)
    for p in problems:
        print(p)
    print(f"check_layers: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
