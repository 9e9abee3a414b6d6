// SPDX-License-Identifier: GPL-2.0-or-later
// The tiny fabric the fabric tests share (tests/fabric/*_test.cc): its rail YAML and the nodes
// libibnetdisc would discover in it (hand-written after the YAML, as topo/fabric_sim.h cables).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fabric/sweep.h"

namespace railguard::fabric::tiny_fabric {

// One SU of two hosts on two HDR rails, one spine; leaves unnamed (su1-rail0, su1-rail1).
inline const char kYaml[] = R"(cluster: tiny
rails:
  - {index: 0, link: {rate_gbps: 200, width: 4X, speed: HDR}}
  - {index: 1, link: {rate_gbps: 200, width: 4X, speed: HDR}}
node_types:
  - {name: gpu, gpus: 2, nics: [mlx5_0, mlx5_3]}
scalable_units:
  - name: su1
    nodes: "h[1-2]"
    node_type: gpu
    leaves: [{rail: 0, ports: 8}, {rail: 1, ports: 8}]
spines:
  - {name: spine1, ports: 8}
)";

constexpr uint64_t kSpine = 0x100;
inline uint64_t LeafGuid(int rail) { return 0x200 + rail; }
inline uint64_t HcaGuid(int host, int rail) { return 0x1000 + host * 16 + rail; }

inline LinkState Hdr4x() {
  LinkState s;
  s.width_active = s.width_enabled = s.width_supported = 4;
  s.speed_active = s.speed_enabled = s.speed_supported = "HDR";
  return s;
}

inline SweptPort PortTo(int port, uint64_t peer, int peer_port) {
  SweptPort p;
  p.port = port;
  p.peer_guid = peer;
  p.peer_port = peer_port;
  p.link = Hdr4x();
  return p;
}

// The discovered fabric of kYaml: leaf r port h+1 <-> HCA (h, r); leaf port 5 <-> spine port
// r+1. LIDs: spine 1, leaves 2 and 3, HCAs from 10.
inline std::vector<SweptNode> TinyFabric() {
  std::vector<SweptNode> nodes;
  SweptNode spine;
  spine.guid = kSpine;
  spine.is_switch = true;
  spine.description = "MF0;spine1:MQM8700/U1";
  spine.lid = 1;
  for (int r = 0; r < 2; ++r) spine.ports.push_back(PortTo(r + 1, LeafGuid(r), 5));
  nodes.push_back(spine);
  int lid = 10;
  for (int r = 0; r < 2; ++r) {
    SweptNode leaf;
    leaf.guid = LeafGuid(r);
    leaf.is_switch = true;
    leaf.description = "MF0;su1-rail" + std::to_string(r) + ":MQM8700/U1";
    leaf.lid = 2 + r;
    for (int h = 0; h < 2; ++h) leaf.ports.push_back(PortTo(h + 1, HcaGuid(h, r), 1));
    leaf.ports.push_back(PortTo(5, kSpine, r + 1));
    nodes.push_back(leaf);
    for (int h = 0; h < 2; ++h) {
      SweptNode hca;
      hca.guid = HcaGuid(h, r);
      hca.description = "h" + std::to_string(h + 1) + (r ? " mlx5_3" : " mlx5_0");
      hca.ports.push_back(PortTo(1, LeafGuid(r), h + 1));
      hca.lid = lid;
      hca.port_lids.push_back(lid++);
      nodes.push_back(hca);
    }
  }
  return nodes;
}

}  // namespace railguard::fabric::tiny_fabric
