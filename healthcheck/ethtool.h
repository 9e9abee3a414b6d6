// SPDX-License-Identifier: GPL-2.0-or-later
// A network interface's driver statistics (what `ethtool -S` prints) through the kernel's
// ethtool ioctl (SIOCETHTOOL: ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS of
// linux/ethtool.h), behind an interface so that tests inject the kernel's replies.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railguard::health {

// ETH_GSTRING_LEN of linux/ethtool.h: each statistic's name is a NUL-padded 32-byte record.
inline constexpr size_t kEthGstringLen = 32;

// The three SIOCETHTOOL requests for the statistics string set (ETH_SS_STATS), as the kernel
// answers them. Thread-safe: gather workers call it concurrently.
class EthtoolIoctl {
 public:
  virtual ~EthtoolIoctl() = default;
  // ETHTOOL_GSSET_INFO: the number of statistics of `ifname`. False with `*err` when the
  // ioctl fails or the driver has no statistics set.
  virtual bool StatsCount(const std::string& ifname, uint32_t* count, std::string* err) = 0;
  // ETHTOOL_GSTRINGS for room for `room` names: `*len` is the count the reply gives (which the
  // kernel takes from the driver again, so it may differ from `room`), `*names` the name
  // records it returned (kEthGstringLen bytes each; fewer bytes when cut short).
  virtual bool StatNames(const std::string& ifname, uint32_t room, uint32_t* len,
                         std::string* names, std::string* err) = 0;
  // ETHTOOL_GSTATS for room for `room` values: `*n_stats` as the reply gives it, `*values`
  // the values returned.
  virtual bool StatValues(const std::string& ifname, uint32_t room, uint32_t* n_stats,
                          std::vector<uint64_t>* values, std::string* err) = 0;
};

// The statistics of one interface, in the driver's order.
using EthtoolStats = std::vector<std::pair<std::string, uint64_t>>;

// Reads the statistics of `ifname` through `io` and checks the replies agree: the same count
// from all three, every name record whole, NUL-terminated within kEthGstringLen bytes,
// printable and not empty. False with `*err` = "ethtool statistics of IF: WHAT; expected
// WHAT" otherwise (never a partial result). A name given twice keeps its first value.
bool ReadEthtoolStats(EthtoolIoctl& io, const std::string& ifname, EthtoolStats* out,
                      std::string* err);

// True for a network interface name the ioctl can take: 1 to 15 bytes (IFNAMSIZ - 1), no
// '/', no whitespace, not "." or "..".
bool IsInterfaceName(const std::string& name);

// The kernel's ethtool ioctl over an AF_INET datagram socket, or nullptr with `*why`.
std::unique_ptr<EthtoolIoctl> OpenEthtoolIoctl(std::string* why);

}  // namespace railguard::health
