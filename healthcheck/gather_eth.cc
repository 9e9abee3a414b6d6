// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/gather_eth.h"

#include <vector>

#include "healthcheck/read_fact.h"

namespace railguard::health {
namespace {

// The netdev of the port, or "" with `*err`.
std::string FindNetdev(const Sysfs& fs, const std::string& dev, int port, std::string* err) {
  // drivers/infiniband/core/sysfs.c: gid_attrs/ndevs/N names the netdev of GID N.
  const std::string gid0 = dev + "/ports/" + std::to_string(port) + "/gid_attrs/ndevs/0";
  std::string text;
  std::string why;
  if (fs.ReadFile(gid0, &text, &why)) {
    const std::string name = Trimmed(text);
    if (IsInterfaceName(name)) return name;
  }
  // The PCI function's netdevs: device/net/<if> (one per port on mlx5).
  const std::string net = dev + "/device/net";
  std::vector<std::string> names;
  if (!fs.ListDir(net, &names, &why) || names.empty()) {
    *err = "no network interface: neither " + gid0 + " nor " + net +
           " names one; expected the RoCE port's netdev there";
    return "";
  }
  std::vector<std::string> usable;
  for (const std::string& n : names)
    if (IsInterfaceName(n)) usable.push_back(n);
  if (usable.size() == 1) return usable[0];
  for (const std::string& n : usable) {
    // net-sysfs.c dev_port: the port of the device this netdev is, counted from 0.
    uint64_t dev_port = 0;
    std::string expected;
    if (fs.ReadFile(net + "/" + n + "/dev_port", &text, &why) &&
        ParseCount(text, &dev_port, &expected) && dev_port + 1 == static_cast<uint64_t>(port))
      return n;
  }
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + Printable(n);
  *err = net + " holds " + list + " and none has dev_port " + std::to_string(port - 1) +
         "; expected one netdev for port " + std::to_string(port);
  return "";
}

}  // namespace

EthFacts GatherEth(const Sysfs& fs, EthtoolIoctl* ethtool, const std::string& root,
                   const std::string& dev, int port) {
  EthFacts e;
  e.read = true;
  e.netdev = FindNetdev(fs, dev, port, &e.netdev_error);
  if (e.netdev.empty()) return e;
  e.dir = JoinPath(root, "class/net/" + e.netdev);
  if (!fs.Exists(e.dir)) {
    e.netdev_error = e.dir + " does not exist; expected the netdev " + e.netdev + " of " + dev;
    e.netdev.clear();
    return e;
  }
  e.operstate = ReadFact<std::string>(fs, e.dir + "/operstate", ParseOperstate);
  e.carrier_changes = ReadFact<uint64_t>(fs, e.dir + "/carrier_changes", ParseCount);
  e.speed_mbps = ReadFact<long long>(fs, e.dir + "/speed", ParseNetSpeed);
  if (ethtool) {
    EthtoolStats stats;
    if (ReadEthtoolStats(*ethtool, e.netdev, &stats, &e.stats_error)) {
      e.stats_read = true;
      for (auto& kv : stats) e.stats.emplace(std::move(kv.first), kv.second);
    }
  }
  return e;
}

}  // namespace railguard::health
