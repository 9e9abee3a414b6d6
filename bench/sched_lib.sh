# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by bench/sched_cost.sh and bench/sched_scale.sh (sourced): the generated layout and
# sdiag's numbers.

# sched_layout FILE DOMAINS SIZE WIDTH NAME: writes a rail topology of DOMAINS scalable units
# of SIZE nodes each, one leaf per rail (so one one-hop domain each), 8 rails, nodes named
# n<number> zero-padded to WIDTH digits, cluster NAME.
sched_layout() {
  local file=$1 domains=$2 size=$3 width=$4 name=$5 s r
  {
    echo "# bench/$name: $domains scalable units of $size nodes, 8 rails"
    echo "cluster: $name"
    echo "rails:"
    for r in 0 1 2 3 4 5 6 7; do
      echo "  - {index: $r, link: {rate_gbps: 400, width: 4X, speed: NDR}}"
    done
    echo "node_types:"
    echo "  - {name: gpu8, gpus: 8, nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_7]}"
    echo "scalable_units:"
    for ((s = 0; s < domains; s++)); do
      printf "  - {name: su%d, nodes: \"n[%0${width}d-%0${width}d]\", node_type: gpu8, leaves: [" \
        $((s + 1)) $((s * size + 1)) $((s * size + size))
      for r in 0 1 2 3 4 5 6 7; do printf '{rail: %d}%s' "$r" "$([ "$r" = 7 ] || echo ', ')"; done
      echo "]}"
    done
    echo "spines:"
    echo "  - {name: spine1}"
  } >"$file"
}

# sdiag_field FILE SECTION KEY: the number after "KEY:" in SECTION of sdiag's output
# (SECTION: "Main schedule" or "Backfilling"); empty when absent.
sdiag_field() {
  awk -v sec="$2" -v key="$3" '
    /^[A-Z]/ { insec = (index($0, sec) == 1) }
    insec { line = $0; sub(/^[ \t]+/, "", line)
            if (index(line, key ":") == 1) { sub(/^[^:]*:[ \t]*/, "", line); split(line, a, " ")
                                             print a[1]; exit } }' "$1"
}
