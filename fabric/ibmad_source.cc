// SPDX-License-Identifier: GPL-2.0-or-later
// FabricSource over libibnetdisc and libibmad.
#include "fabric/ibmad_source.h"

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace railguard::fabric {

int WidestLanes(unsigned mask) {
  if (mask & 8) return 12;
  if (mask & 4) return 8;
  if (mask & 2) return 4;
  if (mask & 16) return 2;
  if (mask & 1) return 1;
  return 0;
}

std::string FastestSpeed(unsigned mask, unsigned ext_mask) {
  if (ext_mask & 8) return "NDR";
  if (ext_mask & 4) return "HDR";
  if (ext_mask & 2) return "EDR";
  if (ext_mask & 1) return "FDR";
  if (mask & 4) return "QDR";
  if (mask & 2) return "DDR";
  if (mask & 1) return "SDR";
  return "";
}

namespace {

// PortInfo CapabilityMask bit IsExtendedSpeedsSupported (IBA 14.2.5.6).
constexpr uint32_t kCapExtendedSpeeds = 1u << 14;

LinkState StateOf(uint8_t* info, uint32_t capmask) {
  LinkState s;
  s.width_active = WidestLanes(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
  s.width_enabled = WidestLanes(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ENABLED_F));
  s.width_supported = WidestLanes(mad_get_field(info, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F));
  const bool ext = capmask & kCapExtendedSpeeds;
  auto e = [&](int field) {
    return ext ? mad_get_field(info, 0, static_cast<MAD_FIELDS>(field)) : 0u;
  };
  s.speed_active = FastestSpeed(mad_get_field(info, 0, IB_PORT_LINK_SPEED_ACTIVE_F),
                                e(IB_PORT_LINK_SPEED_EXT_ACTIVE_F));
  s.speed_enabled = FastestSpeed(mad_get_field(info, 0, IB_PORT_LINK_SPEED_ENABLED_F),
                                 e(IB_PORT_LINK_SPEED_EXT_ENABLED_F));
  s.speed_supported = FastestSpeed(mad_get_field(info, 0, IB_PORT_LINK_SPEED_SUPPORTED_F),
                                   e(IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
  return s;
}

class IbmadSource : public FabricSource {
 public:
  explicit IbmadSource(const IbmadOptions& opts) : opts_(opts) {}
  ~IbmadSource() override {
    if (port_) mad_rpc_close_port(port_);
  }

  bool Discover(std::vector<SweptNode>* nodes, int* smps, std::string* err) override {
    ibnd_config_t config;
    std::memset(&config, 0, sizeof(config));
    config.max_smps = static_cast<unsigned>(opts_.max_smps);
    config.timeout_ms = static_cast<unsigned>(opts_.smp_timeout_ms);
    config.retries = 1;
    std::vector<char> ca(opts_.ca.begin(), opts_.ca.end());
    ca.push_back('\0');
    ibnd_fabric_t* f = ibnd_discover_fabric(opts_.ca.empty() ? nullptr : ca.data(), opts_.ca_port,
                                            nullptr, &config);
    if (!f) {
      *err = "libibnetdisc could not discover the fabric from " +
             (opts_.ca.empty() ? std::string("the default HCA port") : opts_.ca) +
             " (is the port up and a subnet manager running?)";
      return false;
    }
    *smps = static_cast<int>(f->total_mads_used);
    for (ibnd_node_t* n = f->nodes; n; n = n->next) {
      if (n->type != IB_NODE_SWITCH && n->type != IB_NODE_CA && n->type != IB_NODE_ROUTER)
        continue;
      SweptNode s;
      s.guid = n->guid;
      s.is_switch = n->type == IB_NODE_SWITCH;
      s.is_router = n->type == IB_NODE_ROUTER;
      s.num_ports = n->numports;
      s.description = n->nodedesc;
      uint32_t capmask = 0;
      if (s.is_switch && n->ports && n->ports[0]) {
        s.lid = n->ports[0]->base_lid;
        capmask = mad_get_field(n->ports[0]->info, 0, IB_PORT_CAPMASK_F);
      }
      for (int p = 1; p <= n->numports; ++p) {
        ibnd_port_t* port = n->ports ? n->ports[p] : nullptr;
        if (!port || !port->remoteport || !port->remoteport->node) continue;
        SweptPort sp;
        sp.port = p;
        sp.peer_guid = port->remoteport->node->guid;
        sp.peer_port = port->remoteport->portnum;
        const uint32_t cap =
            s.is_switch ? capmask : mad_get_field(port->info, 0, IB_PORT_CAPMASK_F);
        sp.link = StateOf(port->info, cap);
        if (!s.is_switch) {
          s.port_lids.push_back(port->base_lid);
          if (!s.lid) s.lid = port->base_lid;
        }
        s.ports.push_back(sp);
      }
      nodes->push_back(std::move(s));
    }
    ibnd_destroy_fabric(f);
    return true;
  }

  bool LocalPort(int* lid, int* sm_lid, std::string* err) override {
    std::vector<char> ca(opts_.ca.begin(), opts_.ca.end());
    ca.push_back('\0');
    umad_port_t port;
    std::memset(&port, 0, sizeof(port));
    const int rc = umad_get_port(opts_.ca.empty() ? nullptr : ca.data(), opts_.ca_port, &port);
    if (rc < 0) {
      *err = "libibumad cannot read port " + std::to_string(opts_.ca_port) + " of " +
             (opts_.ca.empty() ? std::string("the default HCA") : opts_.ca) + ": " +
             std::strerror(-rc);
      return false;
    }
    *lid = static_cast<int>(port.base_lid);
    *sm_lid = static_cast<int>(port.sm_lid);
    umad_release_port(&port);
    return true;
  }

  bool Open(std::string* err) override {
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS};
    std::vector<char> ca(opts_.ca.begin(), opts_.ca.end());
    ca.push_back('\0');
    port_ = mad_rpc_open_port(opts_.ca.empty() ? nullptr : ca.data(), opts_.ca_port, classes, 3);
    if (!port_) {
      *err = "libibmad could not open a MAD port on " +
             (opts_.ca.empty() ? std::string("the default HCA") : opts_.ca);
      return false;
    }
    fd_ = mad_rpc_portid(port_);
    agent_ = mad_rpc_class_agent(port_, IB_PERFORMANCE_CLASS);
    smi_agent_ = mad_rpc_class_agent(port_, IB_SMI_CLASS);
    if (fd_ < 0 || agent_ < 0 || smi_agent_ < 0) {
      *err = "libibmad has no performance-class or SMI agent on its MAD port";
      return false;
    }
    return true;
  }

  // Sends `q`: a PMA Get to QP1 of q.lid (ClassPortInfo, PortCounters with PortSelect
  // q.port, PortCountersExtended), or for kNodeInfo a LID-routed SMP Get of NodeInfo
  // (IBA 14.2.5.3) to its QP0.
  bool Send(const PmaRequest& q, int timeout_ms, std::string* err) override {
    const bool smp = q.attr == PmaAttr::kNodeInfo;
    static const unsigned kAttr[] = {CLASS_PORT_INFO, IB_GSI_PORT_COUNTERS,
                                     IB_GSI_PORT_COUNTERS_EXT, IB_ATTR_NODE_INFO};
    static_assert(static_cast<int>(PmaAttr::kNodeInfo) == 3, "kAttr is in PmaAttr's order");
    std::vector<uint8_t> umad(umad_size() + IB_MAD_SIZE, 0);
    uint8_t data[IB_PC_DATA_SZ] = {};  // the larger of the two (192 and 64 bytes)
    static_assert(IB_PC_DATA_SZ >= IB_SMP_DATA_SIZE, "one buffer fits both");
    if (q.attr == PmaAttr::kPortCounters || q.attr == PmaAttr::kPortCountersExtended)
      mad_set_field(data, 0, IB_PC_PORT_SELECT_F, q.port);
    ib_rpc_t rpc;
    std::memset(&rpc, 0, sizeof(rpc));
    rpc.mgtclass = smp ? IB_SMI_CLASS : IB_PERFORMANCE_CLASS;
    rpc.method = IB_MAD_METHOD_GET;
    rpc.attr.id = kAttr[static_cast<int>(q.attr)];
    rpc.timeout = static_cast<unsigned>(timeout_ms);
    rpc.datasz = smp ? IB_SMP_DATA_SIZE : IB_PC_DATA_SZ;
    rpc.dataoffs = smp ? IB_SMP_DATA_OFFS : IB_PC_DATA_OFFS;
    rpc.trid = q.tid;
    if (smp) rpc.mkey = smp_mkey_get(port_);
    ib_portid_t id;
    std::memset(&id, 0, sizeof(id));
    ib_portid_set(&id, q.lid, smp ? 0 : 1, smp ? 0 : IB_DEFAULT_QP1_QKEY);
    const int len = mad_build_pkt(umad.data(), &rpc, &id, nullptr, data);
    if (len < 0) {
      *err = "could not build the MAD for LID " + std::to_string(q.lid);
      return false;
    }
    if (umad_send(fd_, smp ? smi_agent_ : agent_, umad.data(), len, timeout_ms, 0) < 0) {
      *err = "umad_send to LID " + std::to_string(q.lid) + " failed";
      return false;
    }
    return true;
  }

  int Receive(int timeout_ms, PmaReply* r, std::string* err) override {
    static const MAD_FIELDS kFields[kCounterCount] = {
        IB_PC_ERR_SYM_F,        IB_PC_LINK_RECOVERS_F,  IB_PC_LINK_DOWNED_F,
        IB_PC_ERR_RCV_F,        IB_PC_ERR_PHYSRCV_F,    IB_PC_ERR_SWITCH_REL_F,
        IB_PC_XMT_DISCARDS_F,   IB_PC_ERR_XMTCONSTR_F,  IB_PC_ERR_RCVCONSTR_F,
        IB_PC_ERR_LOCALINTEG_F, IB_PC_ERR_EXCESS_OVR_F, IB_PC_VL15_DROPPED_F,
        IB_PC_XMT_WAIT_F,       IB_PC_XMT_BYTES_F,      IB_PC_RCV_BYTES_F,
        IB_PC_XMT_PKTS_F,       IB_PC_RCV_PKTS_F};
    static const MAD_FIELDS kExt[] = {IB_PC_EXT_XMT_BYTES_F, IB_PC_EXT_RCV_BYTES_F,
                                      IB_PC_EXT_XMT_PKTS_F, IB_PC_EXT_RCV_PKTS_F};
    std::vector<uint8_t> umad(umad_size() + IB_MAD_SIZE * 2, 0);
    int len = IB_MAD_SIZE * 2;
    const int rc = umad_recv(fd_, umad.data(), &len, timeout_ms);
    if (rc == -ETIMEDOUT || rc == -EAGAIN) return 0;
    if (rc < 0) {
      *err = "umad_recv: " + std::string(std::strerror(-rc));
      return -1;
    }
    uint8_t* mad = static_cast<uint8_t*>(umad_get_mad(umad.data()));
    r->tid = static_cast<uint32_t>(mad_get_field64(mad, 0, IB_MAD_TRID_F) & 0xffffffffu);
    if (const int st = umad_status(umad.data())) {  // the kernel's own timeout (ETIMEDOUT)
      r->error = "no reply (" + std::string(std::strerror(st)) + ")";
      return 1;
    }
    if (const unsigned st = mad_get_field(mad, 0, IB_MAD_STATUS_F)) {
      char hex[16];
      std::snprintf(hex, sizeof(hex), "0x%04x", st);
      r->error = std::string("MAD status ") + hex + " (attribute not supported?)";
      return 1;
    }
    if (mad_get_field(mad, 0, IB_MAD_MGMTCLASS_F) == IB_SMI_CLASS) {
      if (mad_get_field(mad, 0, IB_MAD_ATTRID_F) != IB_ATTR_NODE_INFO) {
        r->error = "SMP reply of an unexpected attribute";
        return 1;
      }
      r->node_guid = mad_get_field64(mad + IB_SMP_DATA_OFFS, 0, IB_NODE_GUID_F);
      r->ok = true;
      return 1;
    }
    const uint8_t* data = mad + IB_PC_DATA_OFFS;
    auto get = [&](MAD_FIELDS f) { return mad_get_field(const_cast<uint8_t*>(data), 0, f); };
    switch (mad_get_field(mad, 0, IB_MAD_ATTRID_F)) {
      case CLASS_PORT_INFO:
        r->capmask = static_cast<uint16_t>(get(IB_CPI_CAPMASK_F));
        break;
      case IB_GSI_PORT_COUNTERS:
        for (int c = 0; c < kCounterCount; ++c) r->counters[c] = get(kFields[c]);
        break;
      case IB_GSI_PORT_COUNTERS_EXT:
        for (int i = 0; i < 4; ++i)
          r->counters[kXmitData + i] = mad_get_field64(const_cast<uint8_t*>(data), 0, kExt[i]);
        break;
      default:
        r->error = "reply of an unexpected attribute";
        return 1;
    }
    r->ok = true;
    return 1;
  }

 private:
  IbmadOptions opts_;
  ibmad_port* port_ = nullptr;
  int fd_ = -1;
  int agent_ = -1;
  int smi_agent_ = -1;
};

}  // namespace

std::unique_ptr<FabricSource> MakeIbmadSource(const IbmadOptions& opts) {
  return std::make_unique<IbmadSource>(opts);
}

}  // namespace railguard::fabric
