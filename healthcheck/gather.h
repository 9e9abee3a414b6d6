// SPDX-License-Identifier: GPL-2.0-or-later
// Gathering a node's facts: each rail NIC's port and PCIe path, and the GPUs, read from sysfs
// (and libibverbs when given) by worker threads, each read under a deadline.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "healthcheck/ethtool.h"
#include "healthcheck/facts.h"
#include "healthcheck/sysfs.h"
#include "healthcheck/verbs.h"

namespace railguard::health {

// What to gather.
struct GatherSpec {
  std::string node;
  std::string sysfs_root;            // "/" on a real node; "%n" already replaced
  std::vector<std::string> nics;     // the node type's NIC per rail, in rail order
  std::vector<std::string> gpu_pci;  // the node type's GPU functions, if it lists them
  // A worker inside one read (or ioctl) for this long is stuck: it is left behind and its
  // NIC (or the GPUs) reported in NodeFacts::timeouts. Time between reads does not count.
  int read_timeout_ms = 500;
  // The longest Gather waits for all workers together, however busy the node; 0: as long
  // as read_timeout_ms (what re-reads and tests want).
  int total_timeout_ms = 0;
  // The ethtool ioctl for RoCE rails' statistics (live node only); null: not read.
  std::shared_ptr<EthtoolIoctl> ethtool;
  std::string boot_id_file;          // the kernel's boot id ("%n" replaced); "" = not read
  bool gpus = true;                  // false: no GPU scan (re-reading rail NICs only)
};

// Gathers the facts of `spec` with one worker thread per rail NIC and one for the GPUs,
// reading through `fs` (and `verbs`, when not null, for port state and rate). Returns when
// every worker is done or stuck in one read for read_timeout_ms, or total_timeout_ms passed,
// whichever comes first: a worker not done then is reported in NodeFacts::timeouts with the
// path it was on, its NIC (or the GPUs) is marked incomplete, and the worker is left behind,
// detached, owning its inputs.
// Never throws.
NodeFacts Gather(const GatherSpec& spec, std::shared_ptr<const Sysfs> fs,
                 std::shared_ptr<Verbs> verbs);

// The same reads for one NIC without threads or deadline (tests, `railcheck baseline`).
// `*pci` receives the functions on its PCIe path.
// A port whose link_layer is Ethernet also gets NicFacts::eth (gather_eth.h), its ethtool
// statistics through `ethtool` when that is not null.
NicFacts GatherNic(const Sysfs& fs, Verbs* verbs, const std::string& root, int rail,
                   const std::string& name, std::map<std::string, PciDevice>* pci,
                   EthtoolIoctl* ethtool = nullptr);

// GPUs and their PCIe paths: the functions of `gpu_pci` when given, else every NVIDIA
// display or 3D controller under <root>/bus/pci/devices, in bus order.
void GatherGpus(const Sysfs& fs, const std::string& root, const std::vector<std::string>& gpu_pci,
                NodeFacts* out);

// True for a PCI address "DDDD:BB:DD.F" in lower- or upper-case hex.
bool IsBdf(const std::string& s);

}  // namespace railguard::health
