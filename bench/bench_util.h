// SPDX-License-Identifier: GPL-2.0-or-later
// What the benchmarks share: the generated rail layout they time, and timing arithmetic.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace railguard::bench {

// A rail topology YAML of `sus` SUs of `per_su` DGX H100 nodes ("<prefix>[00001-...]") on 8
// NDR rails, one leaf per rail and SU with `leaf_ports` ports (0: no port count given), and
// 16 spines without a port count (the simulator sizes them for 1024 leaves).
inline std::string LayoutYaml(int sus, int per_su, const std::string& cluster = "bench",
                              const std::string& prefix = "gpu", int leaf_ports = 64) {
  std::string y = "cluster: " + cluster + "\nrails:\n";
  for (int r = 0; r < 8; ++r)
    y += "  - {index: " + std::to_string(r) + ", link: {rate_gbps: 400, width: 4X, speed: NDR}}\n";
  y += "node_types:\n  - name: dgx-h100\n    gpus: 8\n"
       "    nics: [mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11]\n"
       "scalable_units:\n";
  const std::string ports = leaf_ports > 0 ? ", ports: " + std::to_string(leaf_ports) : "";
  for (int s = 0; s < sus; ++s) {
    char nodes[80];
    std::snprintf(nodes, sizeof nodes, "%s[%05d-%05d]", prefix.c_str(), s * per_su + 1,
                  (s + 1) * per_su);
    y += "  - name: su" + std::to_string(s + 1) + "\n    nodes: \"" + nodes +
         "\"\n    node_type: dgx-h100\n    leaves:\n";
    for (int r = 0; r < 8; ++r) y += "      - {rail: " + std::to_string(r) + ports + "}\n";
  }
  y += "spines:\n";
  for (int i = 1; i <= 16; ++i) y += "  - {name: spine" + std::to_string(i) + "}\n";
  return y;
}

// A steady-clock duration in milliseconds.
inline double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// The median of `v` (the upper one of an even count); `v` must not be empty.
inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace railguard::bench
