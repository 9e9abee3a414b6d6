// SPDX-License-Identifier: GPL-2.0-or-later
// What the RoCE tests share: an ethtool ioctl that answers with replies given by the test, in
// the kernel's layout (linux/ethtool.h: 32-byte NUL-padded names of ETH_SS_STATS, one u64 a
// value), with mlx5's statistic names (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "healthcheck/ethtool.h"

namespace railguard::health::eth_testing {

// Some of what `ethtool -S` shows on a ConnectX-7 RoCE port: software counters first, then
// the pport groups (IEEE 802.3 "_phy", physical-layer statistical, per-priority PFC).
inline EthtoolStats Mlx5Stats() {
  return {{"rx_packets", 123456789},
          {"tx_packets", 987654321},
          {"rx_bytes_phy", 9876543210},
          {"rx_crc_errors_phy", 0},
          {"rx_symbol_err_phy", 0},
          {"link_down_events_phy", 1},
          {"rx_pcs_symbol_err_phy", 0},
          {"rx_corrected_bits_phy", 4711},
          {"rx_err_lane_0_phy", 0},
          {"rx_prio3_pause", 12},
          {"tx_prio3_pause", 34},
          {"rx_prio3_pause_duration", 56}};
}

// The name records of `stats` as ETHTOOL_GSTRINGS returns them.
inline std::string NameRecords(const EthtoolStats& stats) {
  std::string out;
  for (const auto& kv : stats) {
    std::string rec = kv.first.substr(0, kEthGstringLen);
    rec.resize(kEthGstringLen, '\0');
    out += rec;
  }
  return out;
}

// Per interface: the replies of the three requests. By default consistent replies of
// `stats`; tests change count, len, names or n_stats to model a broken driver or a race.
struct Reply {
  EthtoolStats stats;
  bool fail = false;  // every ioctl fails (EOPNOTSUPP)
  uint32_t count = 0;
  uint32_t len = 0;
  std::string names;
  uint32_t n_stats = 0;
  std::vector<uint64_t> values;
};

inline Reply ReplyOf(const EthtoolStats& stats) {
  Reply r;
  r.stats = stats;
  r.count = r.len = r.n_stats = static_cast<uint32_t>(stats.size());
  r.names = NameRecords(stats);
  for (const auto& kv : stats) r.values.push_back(kv.second);
  return r;
}

class FakeEthtool : public EthtoolIoctl {
 public:
  void Set(const std::string& ifname, Reply r) {
    std::lock_guard<std::mutex> lock(mu_);
    replies_[ifname] = std::move(r);
  }

  bool StatsCount(const std::string& ifname, uint32_t* count, std::string* err) override {
    const Reply* r = Find(ifname, err);
    if (!r) return false;
    *count = r->count;
    return true;
  }
  bool StatNames(const std::string& ifname, uint32_t, uint32_t* len, std::string* names,
                 std::string* err) override {
    const Reply* r = Find(ifname, err);
    if (!r) return false;
    *len = r->len;
    *names = r->names;
    return true;
  }
  bool StatValues(const std::string& ifname, uint32_t, uint32_t* n_stats,
                  std::vector<uint64_t>* values, std::string* err) override {
    const Reply* r = Find(ifname, err);
    if (!r) return false;
    *n_stats = r->n_stats;
    *values = r->values;
    return true;
  }

 private:
  const Reply* Find(const std::string& ifname, std::string* err) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = replies_.find(ifname);
    if (it == replies_.end() || it->second.fail) {
      *err = "ethtool statistics of " + ifname +
             ": ioctl SIOCETHTOOL failed: Operation not supported";
      return nullptr;
    }
    return &it->second;
  }

  std::mutex mu_;
  std::map<std::string, Reply> replies_;
};

}  // namespace railguard::health::eth_testing
