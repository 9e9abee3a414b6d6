// SPDX-License-Identifier: GPL-2.0-or-later
// Rail order from hwloc: pairs each GPU with the NIC under the same PCIe switch, live or from
// an hwloc XML export, giving a node type's NIC-per-rail list (rail k = NIC nearest GPU k).
#pragma once

#include <string>
#include <vector>

#include "topo/model.h"

namespace railguard::topo {

// A GPU or NIC as hwloc shows it, with the PCIe bridges above it. Bus ids are in hwloc's form,
// "0000:1b:00.0" (lower-case hex).
struct PciEndpoint {
  std::string name;                  // NIC: OpenFabrics device ("mlx5_0"); GPU: unused
  std::string busid;                 // the PCI function
  std::vector<std::string> bridges;  // PCI-to-PCI bridges (switch and root ports) above the
                                     // function, outermost first; host bridges are left out
};

// What hwloc found; the input of FindRailOrder.
struct IoFacts {
  std::string source;             // names the input in messages: the XML path, or kLiveSource
  int pci_functions = 0;          // every PCI function seen, GPU or not
  std::vector<PciEndpoint> gpus;  // NVIDIA GPUs, in no particular order
  std::vector<PciEndpoint> nics;  // OpenFabrics devices on InfiniBand or Ethernet functions
};

// IoFacts::source of the running system.
inline constexpr char kLiveSource[] = "live topology";

// One rail of the node.
struct RailNic {
  int rail = 0;         // k: the NIC of the k-th GPU in PCI bus-id order
  std::string gpu_pci;  // "0000:1b:00.0"
  std::string nic;      // "mlx5_0"
  std::string nic_pci;  // "0000:18:00.0"
  std::string via;      // bus id of the deepest PCIe bridge above both (the shared switch)
};

// A NIC that is the nearest NIC of no GPU: storage, in-band management.
struct OtherNic {
  std::string nic;      // "mlx5_1"
  std::string nic_pci;  // "0000:29:00.0"
};

// The rail order of one node.
struct RailOrder {
  std::string source;                // IoFacts::source
  std::vector<RailNic> rails;        // rails[k].rail == k
  std::vector<OtherNic> other_nics;  // by PCI bus id

  // The NIC names in rail order: the value of node_types[].nics in the rail YAML.
  std::vector<std::string> NicNames() const;
  // Sets type->gpus, nics, nic_pci and gpu_pci from the rails; leaves the name alone.
  void FillNodeType(NodeType* type) const;
};

// Reads GPUs and NICs from the hwloc XML export at `path` (lstopo --of xml), keeping every
// I/O object. GPUs are PCI functions of vendor 0x10de and class 0x0302 or 0x0300, or that
// carry a cuda* / nvml* OS device; NICs are OpenFabrics OS devices on functions of class
// 0x0207 (InfiniBand) or 0x0200 (Ethernet, RoCE). Returns false with `*err` naming the file and
// hwloc's reason if hwloc cannot load it.
bool GatherIoFactsFromXml(const std::string& path, IoFacts* facts, std::string* err);

// As GatherIoFactsFromXml, from the running system; `facts->source` is kLiveSource.
bool GatherIoFactsFromLiveSystem(IoFacts* facts, std::string* err);

// Pairs every GPU with its nearest NIC: the NIC whose deepest common PCIe bridge with the GPU is
// deepest; a host bridge or the CPU side does not count. A GPU that keeps several equally near
// NICs loses those claimed by other GPUs. Returns false with `*err` ("<source>: ...") if there
// is no GPU, a GPU shares no PCIe switch with any NIC, a GPU is left with several equally near
// NICs, or two GPUs are nearest to the same NIC. NICs nearest to no GPU go to other_nics.
bool FindRailOrder(const IoFacts& facts, RailOrder* order, std::string* err);

// GatherIoFactsFromXml, then FindRailOrder.
bool RailOrderFromXml(const std::string& path, RailOrder* order, std::string* err);
// GatherIoFactsFromLiveSystem, then FindRailOrder.
bool RailOrderFromLiveSystem(RailOrder* order, std::string* err);

}  // namespace railguard::topo
