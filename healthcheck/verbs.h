// SPDX-License-Identifier: GPL-2.0-or-later
// Port attributes through libibverbs (ibv_query_port), used when the node has RDMA devices;
// behind an interface so tests can inject ports.
#pragma once

#include <memory>
#include <string>

namespace railguard::health {

// What ibv_query_port says about one port, in sysfs terms.
struct VerbsPort {
  int state = 0;           // 4 = ACTIVE
  std::string state_name;  // "ACTIVE"
  int phys_state = 0;      // 5 = LinkUp
  std::string phys_state_name;
  int width = 0;           // lanes
  std::string speed;       // "NDR"
  double gbps = 0;         // width x lane rate, as the kernel's rate file computes it
  std::string link_layer;  // "InfiniBand" or "Ethernet"
};

// Thread-safe: gather workers call it concurrently.
class Verbs {
 public:
  virtual ~Verbs() = default;
  // Port `port` of device `name` ("mlx5_3"). False with `*err` when the device is not
  // among libibverbs' devices or the query fails.
  virtual bool QueryPort(const std::string& name, int port, VerbsPort* out, std::string* err) = 0;
};

// libibverbs' view of this machine, or nullptr (with `*why`) when it lists no device.
// Loading the providers costs milliseconds: call it only when /sys/class/infiniband has
// entries.
std::unique_ptr<Verbs> OpenLibibverbs(std::string* why);

}  // namespace railguard::health
