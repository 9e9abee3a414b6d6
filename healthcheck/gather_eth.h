// SPDX-License-Identifier: GPL-2.0-or-later
// Gathering what a RoCE rail's network interface says: which netdev the IB device's port
// is, its operstate, carrier_changes and speed (class/net), and its ethtool statistics.
#pragma once

#include <string>

#include "healthcheck/ethtool.h"
#include "healthcheck/facts.h"
#include "healthcheck/sysfs.h"

namespace railguard::health {

// The netdev of port `port` of the IB device folder `dev` (<root>/class/infiniband/<nic>):
// ports/<port>/gid_attrs/ndevs/0 (the netdev of GID 0), else the one entry of device/net/
// (several: the one whose dev_port is port - 1). Then <root>/class/net/<netdev>/operstate,
// carrier_changes and speed, and, when `ethtool` is not null, its statistics. Every value
// that cannot be read or parsed is kept as an error naming the file and the form expected.
EthFacts GatherEth(const Sysfs& fs, EthtoolIoctl* ethtool, const std::string& root,
                   const std::string& dev, int port);

}  // namespace railguard::health
