// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/ethtool.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

namespace railguard::health {
namespace {

// More statistics than any driver has (mlx5 with 256 channels has some 20,000): a larger
// count is a corrupt reply, not something to allocate for.
constexpr uint32_t kMaxStats = 200000;

std::string Prefix(const std::string& ifname) { return "ethtool statistics of " + ifname + ": "; }

// The name in record `k` of `names`, or "" with `*why` when it is not a proper name.
std::string NameAt(const std::string& names, size_t k, std::string* why) {
  const char* rec = names.data() + k * kEthGstringLen;
  const void* nul = std::memchr(rec, '\0', kEthGstringLen);
  if (!nul) {
    *why = "name " + std::to_string(k) + " is not NUL-terminated within " +
           std::to_string(kEthGstringLen) + " bytes (ETH_GSTRING_LEN)";
    return "";
  }
  const std::string name(rec, static_cast<const char*>(nul) - rec);
  if (name.empty()) {
    *why = "name " + std::to_string(k) + " is empty";
    return "";
  }
  for (unsigned char c : name) {
    if (c <= 0x20 || c >= 0x7f) {
      *why = "name " + std::to_string(k) + " holds a byte that is not printable ASCII";
      return "";
    }
  }
  return name;
}

// The kernel's ethtool ioctl.
class KernelEthtool : public EthtoolIoctl {
 public:
  explicit KernelEthtool(int fd) : fd_(fd) {}
  ~KernelEthtool() override { close(fd_); }

  bool StatsCount(const std::string& ifname, uint32_t* count, std::string* err) override {
    // struct ethtool_sset_info with room for one u32 after it.
    std::vector<uint64_t> buf((sizeof(ethtool_sset_info) + sizeof(uint32_t)) / 8 + 1, 0);
    auto* info = reinterpret_cast<ethtool_sset_info*>(buf.data());
    info->cmd = ETHTOOL_GSSET_INFO;
    info->sset_mask = uint64_t{1} << ETH_SS_STATS;
    if (!Call(ifname, info, "ETHTOOL_GSSET_INFO", err)) return false;
    if (!(info->sset_mask & (uint64_t{1} << ETH_SS_STATS))) {
      *err = Prefix(ifname) + "the driver has no statistics (ETH_SS_STATS); expected a driver "
                              "such as mlx5_core that has";
      return false;
    }
    *count = info->data[0];
    return true;
  }

  bool StatNames(const std::string& ifname, uint32_t room, uint32_t* len, std::string* names,
                 std::string* err) override {
    // The kernel writes as many names as the driver has when it answers (ethtool_get_strings
    // ignores the length asked for): leave slack for a count that grew since StatsCount.
    const size_t cap = Slack(room);
    std::vector<uint64_t> buf((sizeof(ethtool_gstrings) + cap * kEthGstringLen) / 8 + 1, 0);
    auto* gs = reinterpret_cast<ethtool_gstrings*>(buf.data());
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = room;
    if (!Call(ifname, gs, "ETHTOOL_GSTRINGS", err)) return false;
    *len = gs->len;
    const size_t got = std::min<size_t>(gs->len, cap);
    names->assign(reinterpret_cast<const char*>(gs->data), got * kEthGstringLen);
    return true;
  }

  bool StatValues(const std::string& ifname, uint32_t room, uint32_t* n_stats,
                  std::vector<uint64_t>* values, std::string* err) override {
    const size_t cap = Slack(room);
    std::vector<uint64_t> buf(sizeof(ethtool_stats) / 8 + 1 + cap, 0);
    auto* st = reinterpret_cast<ethtool_stats*>(buf.data());
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = room;
    if (!Call(ifname, st, "ETHTOOL_GSTATS", err)) return false;
    *n_stats = st->n_stats;
    const size_t got = std::min<size_t>(st->n_stats, cap);
    values->assign(reinterpret_cast<const uint64_t*>(st->data),
                   reinterpret_cast<const uint64_t*>(st->data) + got);
    return true;
  }

 private:
  static size_t Slack(uint32_t room) { return size_t{room} * 2 + 256; }

  bool Call(const std::string& ifname, void* data, const char* what, std::string* err) {
    if (!IsInterfaceName(ifname)) {
      *err = Prefix(ifname) + "not an interface name; expected 1 to 15 characters without '/'";
      return false;
    }
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, ifname.data(), ifname.size());
    ifr.ifr_data = static_cast<char*>(data);
    if (ioctl(fd_, SIOCETHTOOL, &ifr) != 0) {
      *err = Prefix(ifname) + "ioctl SIOCETHTOOL " + what + " failed: " + std::strerror(errno);
      return false;
    }
    return true;
  }

  int fd_;
};

}  // namespace

bool IsInterfaceName(const std::string& name) {
  if (name.empty() || name.size() >= IFNAMSIZ || name == "." || name == "..") return false;
  for (unsigned char c : name)
    if (c <= 0x20 || c >= 0x7f || c == '/' || c == ':') return false;
  return true;
}

bool ReadEthtoolStats(EthtoolIoctl& io, const std::string& ifname, EthtoolStats* out,
                      std::string* err) {
  uint32_t count = 0;
  if (!io.StatsCount(ifname, &count, err)) return false;
  if (count == 0 || count > kMaxStats) {
    *err = Prefix(ifname) + "ETHTOOL_GSSET_INFO gives " + std::to_string(count) +
           " statistics; expected 1 to " + std::to_string(kMaxStats);
    return false;
  }
  uint32_t len = 0;
  std::string names;
  if (!io.StatNames(ifname, count, &len, &names, err)) return false;
  if (len != count) {
    *err = Prefix(ifname) + "ETHTOOL_GSTRINGS gives " + std::to_string(len) + " names for " +
           std::to_string(count) +
           " statistics (the driver's set changed between the calls); expected the same count";
    return false;
  }
  if (names.size() < size_t{len} * kEthGstringLen) {
    *err = Prefix(ifname) + "ETHTOOL_GSTRINGS reply cut short: " + std::to_string(names.size()) +
           " bytes; expected " + std::to_string(len) + " names of " +
           std::to_string(kEthGstringLen) + " bytes";
    return false;
  }
  uint32_t n_stats = 0;
  std::vector<uint64_t> values;
  if (!io.StatValues(ifname, count, &n_stats, &values, err)) return false;
  if (n_stats != count) {
    *err = Prefix(ifname) + "ETHTOOL_GSTATS gives " + std::to_string(n_stats) + " values for " +
           std::to_string(count) +
           " names (the driver's set changed between the calls); expected the same count";
    return false;
  }
  if (values.size() < n_stats) {
    *err = Prefix(ifname) + "ETHTOOL_GSTATS reply cut short: " + std::to_string(values.size()) +
           " values; expected " + std::to_string(n_stats);
    return false;
  }
  EthtoolStats stats;
  std::set<std::string> seen;
  for (size_t k = 0; k < count; ++k) {
    std::string why;
    std::string name = NameAt(names, k, &why);
    if (name.empty()) {
      *err = Prefix(ifname) + "ETHTOOL_GSTRINGS " + why +
             "; expected names such as \"rx_crc_errors_phy\"";
      return false;
    }
    if (seen.insert(name).second) stats.emplace_back(std::move(name), values[k]);
  }
  *out = std::move(stats);
  return true;
}

std::unique_ptr<EthtoolIoctl> OpenEthtoolIoctl(std::string* why) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *why = std::string("ethtool: cannot open a socket for SIOCETHTOOL: ") + std::strerror(errno);
    return nullptr;
  }
  return std::make_unique<KernelEthtool>(fd);
}

}  // namespace railguard::health
