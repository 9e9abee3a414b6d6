// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/hwloc_rails.h"

#include <hwloc.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "base/text_file.h"

namespace railguard::topo {
namespace {

constexpr unsigned kNvidiaVendor = 0x10de;
constexpr unsigned kClassVga = 0x0300;
constexpr unsigned kClass3d = 0x0302;
constexpr unsigned kClassEthernet = 0x0200;
constexpr unsigned kClassInfiniband = 0x0207;

// In C++ the PCI attributes struct is nested in the attribute union.
using PciAttr = hwloc_obj_attr_u::hwloc_pcidev_attr_s;

// Owns an hwloc topology from init to destroy.
class HwlocTopology {
 public:
  HwlocTopology() = default;
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  ~HwlocTopology() {
    if (initialized_) hwloc_topology_destroy(topo_);
  }

  // Loads the XML export at `xml_path`, or the running system if it is null. On failure
  // returns false with `*reason` set to hwloc's errno text.
  bool Load(const std::string* xml_path, std::string* reason) {
    errno = 0;  // not every hwloc failure sets it
    if (hwloc_topology_init(&topo_) != 0) return Fail(reason);
    initialized_ = true;
    if (hwloc_topology_set_io_types_filter(topo_, HWLOC_TYPE_FILTER_KEEP_ALL) != 0)
      return Fail(reason);
    if (xml_path && hwloc_topology_set_xml(topo_, xml_path->c_str()) != 0) return Fail(reason);
    if (hwloc_topology_load(topo_) != 0) return Fail(reason);
    return true;
  }

  hwloc_topology_t get() const { return topo_; }

 private:
  static bool Fail(std::string* reason) {
    const int e = errno;
    *reason = e != 0 ? std::strerror(e) : "unknown error";
    return false;
  }

  hwloc_topology_t topo_ = nullptr;
  bool initialized_ = false;
};

std::string BusId(const PciAttr& pci) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", static_cast<unsigned>(pci.domain),
                static_cast<unsigned>(pci.bus), static_cast<unsigned>(pci.dev),
                static_cast<unsigned>(pci.func));
  return buf;
}

bool StartsWith(const char* s, const char* prefix) {
  return s && std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

bool IsGpu(hwloc_obj_t pci) {
  const PciAttr& a = pci->attr->pcidev;
  if (a.vendor_id == kNvidiaVendor && (a.class_id == kClass3d || a.class_id == kClassVga))
    return true;
  // The CUDA and NVML backends name their devices cuda<N> and nvml<N>.
  for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling) {
    if (c->type != HWLOC_OBJ_OS_DEVICE) continue;
    const hwloc_obj_osdev_type_t t = c->attr->osdev.type;
    if ((t == HWLOC_OBJ_OSDEV_GPU || t == HWLOC_OBJ_OSDEV_COPROC) &&
        (StartsWith(c->name, "cuda") || StartsWith(c->name, "nvml")))
      return true;
  }
  return false;
}

// The PCI-to-PCI bridges above `obj`, outermost first.
std::vector<std::string> BridgesAbove(hwloc_obj_t obj) {
  std::vector<std::string> out;
  for (hwloc_obj_t p = obj->parent; p && p->type == HWLOC_OBJ_BRIDGE; p = p->parent)
    if (p->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI)
      out.push_back(BusId(p->attr->bridge.upstream.pci));
  std::reverse(out.begin(), out.end());
  return out;
}

void Gather(hwloc_topology_t topo, IoFacts* facts) {
  for (hwloc_obj_t pci = hwloc_get_next_pcidev(topo, nullptr); pci;
       pci = hwloc_get_next_pcidev(topo, pci)) {
    ++facts->pci_functions;
    const std::string busid = BusId(pci->attr->pcidev);
    if (IsGpu(pci)) facts->gpus.push_back({"", busid, BridgesAbove(pci)});
    const unsigned cls = pci->attr->pcidev.class_id;
    if (cls != kClassInfiniband && cls != kClassEthernet) continue;
    for (hwloc_obj_t c = pci->io_first_child; c; c = c->next_sibling)
      if (c->type == HWLOC_OBJ_OS_DEVICE && c->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS &&
          c->name)
        facts->nics.push_back({c->name, busid, BridgesAbove(pci)});
  }
}

// How many bridges, from the top, `a` and `b` share.
size_t SharedDepth(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

std::string GpuLabel(size_t k, const PciEndpoint& gpu) {
  return "GPU " + std::to_string(k) + " (" + gpu.busid + ")";
}

std::string NicLabel(const PciEndpoint& nic) { return nic.name + " (" + nic.busid + ")"; }

// "a", "a and b", "a, b and c".
std::string JoinNics(const std::vector<PciEndpoint>& nics, const std::vector<size_t>& which) {
  std::string out;
  for (size_t i = 0; i < which.size(); ++i) {
    if (i > 0) out += i + 1 == which.size() ? " and " : ", ";
    out += NicLabel(nics[which[i]]);
  }
  return out;
}

}  // namespace

std::vector<std::string> RailOrder::NicNames() const {
  std::vector<std::string> out;
  for (const RailNic& r : rails) out.push_back(r.nic);
  return out;
}

void RailOrder::FillNodeType(NodeType* type) const {
  type->gpus = static_cast<int>(rails.size());
  type->nics.clear();
  type->nic_pci.clear();
  type->gpu_pci.clear();
  for (const RailNic& r : rails) {
    type->nics.push_back(r.nic);
    type->nic_pci.push_back(r.nic_pci);
    type->gpu_pci.push_back(r.gpu_pci);
  }
}

bool GatherIoFactsFromXml(const std::string& path, IoFacts* facts, std::string* err) {
  // hwloc reports a missing, unreadable or empty file as a parse failure; say what it is.
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    *err = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  // hwloc reads the path itself, to its end: refuse what would never end or is too large.
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && !S_ISDIR(st.st_mode) &&
      (!S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) > kHwlocXmlInput.max_bytes)) {
    std::fclose(f);
    *err = path + (S_ISREG(st.st_mode)
                       ? ": file is " + std::to_string(st.st_size) + " bytes; expected at most " +
                             std::to_string(kHwlocXmlInput.max_bytes)
                       : std::string(": is not a regular file; expected ") + kHwlocXmlInput.name +
                             " such as 'lstopo --of xml' writes");
    return false;
  }
  const bool empty = std::fgetc(f) == EOF;
  const int read_errno = std::ferror(f) ? errno : 0;
  std::fclose(f);
  if (read_errno != 0) {
    *err = path + ": cannot read: " + std::strerror(read_errno);
    return false;
  }
  if (empty) {
    *err = path + ": file is empty; expected an hwloc XML export such as 'lstopo --of xml' writes";
    return false;
  }
  HwlocTopology topo;
  std::string reason;
  if (!topo.Load(&path, &reason)) {
    *err = path + ": hwloc cannot load this as an XML topology (" + reason +
           "); expected an hwloc XML export such as 'lstopo --of xml' writes";
    return false;
  }
  *facts = IoFacts();
  facts->source = path;
  Gather(topo.get(), facts);
  return true;
}

bool GatherIoFactsFromLiveSystem(IoFacts* facts, std::string* err) {
  HwlocTopology topo;
  std::string reason;
  if (!topo.Load(nullptr, &reason)) {
    *err = std::string(kLiveSource) + ": hwloc cannot discover this machine (" + reason + ")";
    return false;
  }
  *facts = IoFacts();
  facts->source = kLiveSource;
  Gather(topo.get(), facts);
  return true;
}

bool FindRailOrder(const IoFacts& facts, RailOrder* order, std::string* err) {
  const std::string& src = facts.source;
  if (facts.pci_functions == 0) {
    *err = src + ": no PCI devices in the topology, so no GPU to pair with a NIC";
    return false;
  }
  if (facts.gpus.empty()) {
    *err = src + ": no NVIDIA GPU among " + std::to_string(facts.pci_functions) +
           " PCI functions; expected vendor 0x10de with class 0x0302 (3D) or 0x0300 (VGA), "
           "or a cuda/nvml OS device";
    return false;
  }
  std::vector<PciEndpoint> gpus = facts.gpus;
  std::sort(gpus.begin(), gpus.end(),
            [](const PciEndpoint& a, const PciEndpoint& b) { return a.busid < b.busid; });
  const std::vector<PciEndpoint>& nics = facts.nics;

  // Per GPU, the NICs below its deepest bridge that has any NIC below it.
  std::vector<std::vector<size_t>> nearest(gpus.size());
  std::vector<std::string> via(gpus.size());
  for (size_t g = 0; g < gpus.size(); ++g) {
    size_t best = 0;
    for (size_t n = 0; n < nics.size(); ++n) {
      const size_t depth = SharedDepth(gpus[g].bridges, nics[n].bridges);
      if (depth == 0 || depth < best) continue;
      if (depth > best) nearest[g].clear();
      best = depth;
      nearest[g].push_back(n);
    }
    if (nearest[g].empty()) {
      *err = src + ": " + GpuLabel(g, gpus[g]) +
             " shares no PCIe switch with any NIC; expected an OpenFabrics NIC on a function "
             "of class 0x0207 or 0x0200 behind the same switch";
      return false;
    }
    via[g] = gpus[g].bridges[best - 1];
  }

  // In rounds: every GPU left with one nearest NIC claims it, all at once so that the order of
  // the GPUs does not matter; claimed NICs drop out of the other GPUs' choices, which may leave
  // them with one in turn.
  std::vector<int> owner(nics.size(), -1);
  std::vector<bool> settled(gpus.size(), false);
  std::vector<std::vector<size_t>> left = nearest;
  auto both_nearest = [&](size_t a, size_t b, size_t nic) {
    const size_t first = std::min(a, b), second = std::max(a, b);
    *err = src + ": " + GpuLabel(first, gpus[first]) + " and " + GpuLabel(second, gpus[second]) +
           " are both nearest to " + NicLabel(nics[nic]) + "; expected one NIC per GPU";
    return false;
  };
  for (;;) {
    std::vector<int> wanted_by(nics.size(), -1);
    std::vector<size_t> claims;
    for (size_t g = 0; g < gpus.size(); ++g) {
      if (settled[g]) continue;
      std::vector<size_t>& choices = left[g];
      choices.erase(
          std::remove_if(choices.begin(), choices.end(), [&](size_t n) { return owner[n] >= 0; }),
          choices.end());
      if (choices.empty()) {
        const size_t taken = *std::find_if(nearest[g].begin(), nearest[g].end(),
                                           [&](size_t n) { return owner[n] >= 0; });
        return both_nearest(g, static_cast<size_t>(owner[taken]), taken);
      }
      if (choices.size() != 1) continue;
      const size_t n = choices[0];
      if (wanted_by[n] >= 0) return both_nearest(static_cast<size_t>(wanted_by[n]), g, n);
      wanted_by[n] = static_cast<int>(g);
      claims.push_back(g);
    }
    if (claims.empty()) break;
    for (size_t g : claims) {
      owner[left[g][0]] = static_cast<int>(g);
      settled[g] = true;
    }
  }
  for (size_t g = 0; g < gpus.size(); ++g) {
    if (settled[g]) continue;
    *err = src + ": " + GpuLabel(g, gpus[g]) + " is equally near " + JoinNics(nics, left[g]) +
           " via switch " + via[g] + ", and no other GPU claims " +
           (left[g].size() == 2 ? "either" : "any of them") + "; cannot tell which is rail " +
           std::to_string(g);
    return false;
  }

  RailOrder out;
  out.source = src;
  for (size_t g = 0; g < gpus.size(); ++g) {
    const PciEndpoint& nic = nics[left[g][0]];
    out.rails.push_back({static_cast<int>(g), gpus[g].busid, nic.name, nic.busid, via[g]});
  }
  for (size_t n = 0; n < nics.size(); ++n)
    if (owner[n] < 0) out.other_nics.push_back({nics[n].name, nics[n].busid});
  std::sort(out.other_nics.begin(), out.other_nics.end(), [](const OtherNic& a, const OtherNic& b) {
    return a.nic_pci != b.nic_pci ? a.nic_pci < b.nic_pci : a.nic < b.nic;
  });
  *order = std::move(out);
  return true;
}

bool RailOrderFromXml(const std::string& path, RailOrder* order, std::string* err) {
  IoFacts facts;
  return GatherIoFactsFromXml(path, &facts, err) && FindRailOrder(facts, order, err);
}

bool RailOrderFromLiveSystem(RailOrder* order, std::string* err) {
  IoFacts facts;
  return GatherIoFactsFromLiveSystem(&facts, err) && FindRailOrder(facts, order, err);
}

}  // namespace railguard::topo
