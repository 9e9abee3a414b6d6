// SPDX-License-Identifier: GPL-2.0-or-later
// Builders shared by the discovery tests (tests/topo/discover*_test.cc, node_map_test.cc,
// tests/cli/cmd_discover_test.cc): the dev layout's simulated dump, generated layouts and
// dumps, and compact views of findings, so each test states only what it is about.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "topo/discover.h"
#include "topo/fabric_sim.h"
#include "topo/ibnet.h"
#include "topo/topology_yaml.h"

namespace railguard::topo::discover_testing {

inline const std::string kDev4su = RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml";
inline const std::string kX5 = RAILGUARD_SHARED_DATA "/ibnetdiscover/hpc-toolset-x5/";
inline const std::string kIbtopotool = RAILGUARD_SHARED_DATA "/ibnetdiscover/ibtopotool/";

inline Topology LoadFile(const std::string& path) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyFile(path, &t, &diags)) << FormatDiags(diags);
  return t;
}

inline Topology Load(const std::string& text) {
  Topology t;
  Diags diags;
  EXPECT_TRUE(LoadTopologyString(text, "t.yaml", &t, &diags)) << FormatDiags(diags);
  return t;
}

inline IbFabric Parse(const std::string& text) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscover(text, "t.topo", &f, &errors)) << FormatDiags(errors);
  return f;
}

inline IbFabric ParseFile(const std::string& path) {
  IbFabric f;
  Diags errors;
  EXPECT_TRUE(ParseIbnetdiscoverFile(path, &f, &errors)) << FormatDiags(errors);
  return f;
}

// Simulates `t` with the faults given as (flag, value) pairs.
inline std::string Simulate(const Topology& t,
                            const std::vector<std::pair<std::string, std::string>>& faults = {},
                            int uplinks = 1) {
  SimOptions opts;
  opts.uplinks = uplinks;
  for (const auto& [flag, value] : faults) {
    std::string err;
    EXPECT_TRUE(AddSimFault(t, flag, value, &opts.faults, &err)) << err;
  }
  std::string out;
  std::string err;
  EXPECT_TRUE(SimulateFabric(t, opts, &out, &err)) << err;
  return out;
}

inline DiscoverOptions DevOptions() {
  DiscoverOptions o;
  o.cluster = "raildev";
  o.node_type = "dgx-h100";
  o.gpus = 8;
  return o;
}

inline Discovery DiscoverDev(const std::vector<std::pair<std::string, std::string>>& faults,
                             DiscoverOptions opts = DevOptions()) {
  return Discover(Parse(Simulate(LoadFile(kDev4su), faults)), opts);
}

// The dev layout with 8 spines ("spine1".."spine8"), for rail planes: spine i serves rail
// i % 8 (SimOptions::rail_planes), as large fabrics under core switches are built.
inline Topology PlanesDevLayout() {
  Topology t = LoadFile(kDev4su);
  t.spines.clear();
  for (int i = 1; i <= 8; ++i) t.spines.push_back({"spine" + std::to_string(i), "", 0});
  return t;
}

// The dev layout with the GUIDs the simulator gives its switches.
inline std::string DevYamlWithSimulatedGuids() {
  Topology t = LoadFile(kDev4su);
  AssignSwitchGuids(&t);
  return EmitTopologyYaml(t);
}

// `text` with every occurrence of `from` replaced by `to`.
inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
  return text;
}

// kind/node/hca/switch/guid/port of a finding, for compact comparisons.
inline std::string Key(const Finding& f) {
  return f.kind + " " + f.node + "/" + f.hca + " " + f.switch_name + " " + f.guid + " " +
         std::to_string(f.port);
}

inline std::vector<std::string> Keys(const Discovery& d) {
  std::vector<std::string> keys;
  for (const Finding& f : d.findings) keys.push_back(Key(f));
  return keys;
}

inline std::map<std::string, int> KindCounts(const Discovery& d) {
  std::map<std::string, int> counts;
  for (const Finding& f : d.findings) ++counts[f.kind];
  return counts;
}

inline std::string AllFindings(const Discovery& d) {
  std::string s;
  for (const Finding& f : d.findings) s += f.ToString() + "\n";
  return s;
}

// A generated layout: `sus` SUs of `per_su` hosts "gpu0001"..., 8 rails, `spines` spines. Every
// switch has its own name and GUID, so they must survive the round trip too.
inline std::string BigLayout(int sus, int per_su, int spines, int spine_ports) {
  std::string y = "cluster: big\nrails:\n";
  for (int r = 0; r < 8; ++r)
    y += "  - {index: " + std::to_string(r) + ", link: {rate_gbps: 200, width: 4X, speed: HDR}}\n";
  y += "node_types:\n  - name: hgx\n    gpus: 8\n    nics: [mlx5_0, mlx5_1, mlx5_2, mlx5_3, "
       "mlx5_6, mlx5_7, mlx5_8, mlx5_9]\nscalable_units:\n";
  char buf[160];
  for (int s = 0; s < sus; ++s) {
    std::snprintf(buf, sizeof buf, "  - name: su%d\n    nodes: \"gpu[%04d-%04d]\"\n", s + 1,
                  s * per_su + 1, s * per_su + per_su);
    y += buf;
    y += "    node_type: hgx\n    leaves:\n";
    for (int r = 0; r < 8; ++r) {
      std::snprintf(buf, sizeof buf,
                    "      - {rail: %d, name: ib-s%03d-r%d, guid: \"0x98039b03%06x\", ports: 64}\n",
                    r, s + 1, r, s * 16 + r);
      y += buf;
    }
  }
  y += "spines:\n";
  for (int i = 0; i < spines; ++i) {
    std::snprintf(buf, sizeof buf, "  - {name: core%d, guid: \"0x98039b03ff%06x\", ports: %d}\n",
                  i + 1, i, spine_ports);
    y += buf;
  }
  return y;
}

// Switch records only; each link listed by the switch, as a partial dump would have it.
class DumpBuilder {
 public:
  int AddSwitch(const std::string& desc, int ports) {
    switches_.push_back({desc, ports, {}});
    return static_cast<int>(switches_.size()) - 1;
  }
  void AddHost(int sw, int port, const std::string& desc, const std::string& token = "4xNDR") {
    const uint64_t guid = 0x100000 + ++cas_;
    switches_[sw].lines.emplace_back(port, "\"" + IbNodeId(IbNodeType::kCa, guid) + "\"[1](" +
                                               std::to_string(guid) + ") \t\t# \"" + desc +
                                               "\" lid 1 " + token);
  }
  void Cable(int a, int pa, int b, int pb, const std::string& token = "4xNDR") {
    switches_[a].lines.emplace_back(pa, "\"" + IbNodeId(IbNodeType::kSwitch, Guid(b)) + "\"[" +
                                            std::to_string(pb) + "]\t\t# \"" + switches_[b].desc +
                                            "\" lid 1 " + token);
  }
  std::string Text() const {
    std::string t;
    for (size_t i = 0; i < switches_.size(); ++i) {
      const Sw& s = switches_[i];
      t += "\nSwitch\t" + std::to_string(s.ports) + " \"" +
           IbNodeId(IbNodeType::kSwitch, Guid(static_cast<int>(i))) + "\"\t\t# \"" + s.desc +
           "\" enhanced port 0 lid 1 lmc 0\n";
      std::vector<std::pair<int, std::string>> lines = s.lines;
      std::sort(lines.begin(), lines.end());
      for (const auto& [port, rest] : lines) t += "[" + std::to_string(port) + "]\t" + rest + "\n";
    }
    return t;
  }

 private:
  static uint64_t Guid(int sw) { return 0xaa00 + static_cast<uint64_t>(sw); }
  struct Sw {
    std::string desc;
    int ports;
    std::vector<std::pair<int, std::string>> lines;
  };
  std::vector<Sw> switches_;
  uint64_t cas_ = 0;
};

}  // namespace railguard::topo::discover_testing
