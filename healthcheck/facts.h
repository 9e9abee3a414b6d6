// SPDX-License-Identifier: GPL-2.0-or-later
// The facts railcheck gathers about one node (rail NIC ports, PCIe paths, GPUs), before any
// judgement. Gathered by gather.h from sysfs (and libibverbs); tests build them by hand.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "healthcheck/parse.h"

namespace railguard::health {

// A value read from one file, or why there is none.
template <typename T>
struct Fact {
  std::optional<T> value;
  std::string raw;    // the file's text without its newline, as read (for messages)
  std::string error;  // when !value: "PATH: cannot open: ..." or "PATH: got 'x'; expected ..."

  bool ok() const { return value.has_value(); }
};

// One counter file of ports/N/counters or ports/N/hw_counters.
struct Counter {
  uint64_t value = 0;
  bool no_pma = false;  // the file read "N/A (no PMA)": the device cannot count
  std::string error;    // unreadable or malformed; `value` is then meaningless
};

// Port N of a rail NIC.
struct PortFacts {
  int number = 0;      // the port (1 on mlx5 compute NICs)
  std::string dir;     // <root>/class/infiniband/<nic>/ports/<N>
  std::string source;  // where state, phys_state, rate and link_layer came from: sysfs, verbs
  Fact<PortStateValue> state;                  // "4: ACTIVE"
  Fact<PortStateValue> phys_state;             // "5: LinkUp"
  Fact<std::string> link_layer;                // "InfiniBand" or "Ethernet"
  Fact<RateValue> rate;                        // "400 Gb/sec (4X NDR)"
  std::map<std::string, Counter> counters;     // by file name
  std::map<std::string, Counter> hw_counters;  // driver counters, by file name
  std::string counters_error;                  // the counters folder could not be listed
};

// The network interface of a RoCE rail (its port's link_layer is Ethernet), read from
// class/net/<netdev> (net/core/net-sysfs.c) and the driver's ethtool statistics.
struct EthFacts {
  bool read = false;           // the port is Ethernet: what follows was looked for
  std::string netdev;          // "enp24s0f0np0"; "" when none was found
  std::string netdev_error;    // why there is none
  std::string dir;             // <root>/class/net/<netdev>
  Fact<std::string> operstate;     // "up", "down", "lowerlayerdown", ... (operstate)
  Fact<uint64_t> carrier_changes;  // carrier up and down transitions since boot
  Fact<long long> speed_mbps;      // Mb/s; -1 when the driver does not know (SPEED_UNKNOWN)
  bool stats_read = false;     // the ethtool statistics were read (a live node, / as root)
  std::string stats_error;     // why they could not be, when an ioctl was tried
  std::map<std::string, uint64_t> stats;  // every ethtool statistic, by name
};

// The NIC of one rail.
struct NicFacts {
  int rail = 0;
  std::string name;      // "mlx5_3"
  bool complete = true;  // false when its gather did not finish in time (see timeouts)
  bool present = false;
  std::string missing;     // when !present: what was looked for and what happened
  std::string port_error;  // present but no port could be read
  PortFacts port;
  std::string pci;                    // PCI function "0000:18:00.0"; "" when unknown
  std::string pci_error;              // why `pci` is unknown
  std::vector<std::string> pci_path;  // `pci`, then each bridge up to the root port
  std::string host_bridge;            // "pci0000:15": the root complex above the root port
  EthFacts eth;                       // RoCE rails: the netdev and its physical layer
  // class/infiniband/<nic>/fw_ver ("28.39.1002") and board_id ("MT_0000000838"), read when
  // the NIC is present; a driver without board_id has no such file (!board_id_present).
  Fact<std::string> fw_ver;
  bool board_id_present = false;
  Fact<std::string> board_id;
};

// Whether one aer_dev_* file exists and what it holds.
struct AerFact {
  bool present = false;  // devices without AER have no such file
  Fact<AerValue> value;
};

// One PCI function on the path of a rail NIC or a GPU.
struct PciDevice {
  std::string bdf;  // "0000:18:00.0"
  std::string dir;  // its sysfs folder, links resolved
  Fact<uint32_t> vendor;
  Fact<uint32_t> klass;   // class code, 0x060400 for a PCI bridge
  bool has_link = false;  // the function has PCIe link attributes (current_link_speed)
  Fact<PcieSpeedValue> cur_speed;
  Fact<PcieSpeedValue> max_speed;
  Fact<int> cur_width;
  Fact<int> max_width;
  AerFact aer_correctable;
  AerFact aer_nonfatal;
  AerFact aer_fatal;
};

// One GPU.
struct GpuFacts {
  int index = 0;  // GPU k, which belongs with the NIC of rail k
  std::string bdf;
  bool present = false;
  std::string missing;  // when !present
  std::vector<std::string> pci_path;
  std::string host_bridge;
};

// A gather worker that had not finished when the read deadline passed.
struct GatherTimeout {
  int rail = -1;     // its rail, or -1 for the GPU/PCIe scan
  std::string task;  // "rail3 mlx5_5" or "gpus"
  std::string path;  // the file or folder it was reading
  int limit_ms = 0;  // the deadline it missed
};

// Everything gathered about one node.
struct NodeFacts {
  std::string node;
  std::string sysfs_root;
  std::vector<NicFacts> nics;            // in rail order
  bool gpus_complete = true;             // false when the GPU scan did not finish in time
  std::string gpu_source;                // "gpu_pci" (listed in the node type) or "scan"
  std::string gpu_error;                 // the scan could not run
  std::vector<GpuFacts> gpus;            // in GPU order
  std::map<std::string, PciDevice> pci;  // every function on a NIC or GPU path, by BDF
  std::vector<GatherTimeout> timeouts;
  bool verbs_used = false;  // port state came from libibverbs for at least one NIC
  // The kernel's boot id (healthcheck/boot_id.h), from health.boot_id_file; an error when it
  // could not be read, neither when it was not read (counter resets are then seen only
  // when a counter goes backwards).
  Fact<std::string> boot_id;
  double gather_ms = 0;     // wall time of the gather
};

}  // namespace railguard::health
