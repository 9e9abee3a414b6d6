// SPDX-License-Identifier: GPL-2.0-or-later
// Port attributes through libibverbs (ibv_query_port), used when the node has RDMA devices;
// behind an interface so tests can inject ports.
#pragma once

#include <cstdint>
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
  // False when the width or speed encoding is one railcheck does not know (an XDR port seen
  // through a libibverbs without active_speed_ex reads active_speed 0): width, speed and
  // gbps are then meaningless and the rate is read from sysfs, whose kernel text names it.
  bool rate_known = true;
  std::string rate_why;  // when !rate_known: "active_width 3, active_speed 0 unknown"
};

// The fields of struct ibv_port_attr that railcheck reads, as libibverbs filled them in.
struct VerbsPortAttr {
  int state = 0;                 // enum ibv_port_state
  int phys_state = 0;            // 5 = LinkUp
  uint8_t active_width = 0;      // IBV_WIDTH_1X 1, 4X 2, 8X 4, 12X 8, 2X 16
  uint8_t active_speed = 0;      // IBV_SPEED_SDR 1, DDR 2, QDR 4, FDR10 8, FDR 16, EDR 32,
                                 // HDR 64, NDR 128
  uint32_t active_speed_ex = 0;  // IBV_SPEED_XDR 256 and later speeds; 0 when the library
                                 // has no such field or the speed fits active_speed
  uint8_t link_layer = 0;        // IBV_LINK_LAYER_INFINIBAND 1, IBV_LINK_LAYER_ETHERNET 2
};

// `a` in sysfs terms: the speed from active_speed_ex when it is non-zero, else from
// active_speed (rdma-core's rule, man ibv_query_port); unknown encodings leave
// rate_known false rather than guessing SDR.
VerbsPort VerbsPortFromAttr(const VerbsPortAttr& a);

namespace verbs_detail {
template <typename Attr>
auto SpeedEx(const Attr& a, int) -> decltype(static_cast<uint32_t>(a.active_speed_ex)) {
  return static_cast<uint32_t>(a.active_speed_ex);
}
template <typename Attr>
uint32_t SpeedEx(const Attr&, long) {
  return 0;
}
}  // namespace verbs_detail

// active_speed_ex of an ibv_port_attr-like struct when its libibverbs has the field
// (rdma-core 48 and later), 0 when it has not: the compile-time guard for older headers
// (Debian bookworm's rdma-core 44 has no such field).
template <typename Attr>
uint32_t ActiveSpeedEx(const Attr& a) {
  return verbs_detail::SpeedEx(a, 0);
}

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
