// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/verbs.h"

#include <infiniband/verbs.h>

#include "healthcheck/parse.h"

#include <map>
#include <mutex>

namespace railguard::health {
namespace {

const char* StateName(int s) {
  static const char* const kNames[] = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
  return s >= 0 && s < 6 ? kNames[s] : "UNKNOWN";
}

const char* PhysStateName(int s) {
  static const char* const kNames[] = {
      "<unknown>",         "Sleep",   "Polling", "Disabled", "PortConfigurationTraining", "LinkUp",
      "LinkErrorRecovery", "Phy Test"};
  return s >= 0 && s < 8 ? kNames[s] : "<unknown>";
}

// ibv_port_attr.active_width is an encoding, not a lane count; 0 for an unknown one.
int Lanes(uint8_t w) {
  switch (w) {
    case 1:
      return 1;
    case 2:
      return 4;
    case 4:
      return 8;
    case 8:
      return 12;
    case 16:
      return 2;
  }
  return 0;
}

// The speed name of an active_speed / active_speed_ex encoding (one bit per speed,
// enum ibv_port_speed), "" for an unknown one.
const char* SpeedName(uint32_t s) {
  switch (s) {
    case 1:
      return "SDR";
    case 2:
      return "DDR";
    case 4:
      return "QDR";
    case 8:
      return "FDR10";
    case 16:
      return "FDR";
    case 32:
      return "EDR";
    case 64:
      return "HDR";
    case 128:
      return "NDR";
    case 256:
      return "XDR";
  }
  return "";
}

class Libibverbs : public Verbs {
 public:
  Libibverbs(ibv_device** list, int n) : list_(list) {
    for (int i = 0; i < n; ++i) devices_[ibv_get_device_name(list[i])] = list[i];
  }
  ~Libibverbs() override {
    for (auto& kv : open_) ibv_close_device(kv.second);
    ibv_free_device_list(list_);
  }

  bool QueryPort(const std::string& name, int port, VerbsPort* out, std::string* err) override {
    ibv_context* ctx = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = open_.find(name);
      if (it != open_.end()) {
        ctx = it->second;
      } else {
        auto dev = devices_.find(name);
        if (dev == devices_.end()) {
          *err = "libibverbs has no device " + name;
          return false;
        }
        ctx = ibv_open_device(dev->second);
        if (!ctx) {
          *err = "libibverbs: cannot open " + name;
          return false;
        }
        open_[name] = ctx;
      }
    }
    ibv_port_attr attr{};
    if (ibv_query_port(ctx, static_cast<uint8_t>(port), &attr) != 0) {
      *err = "libibverbs: ibv_query_port(" + name + ", " + std::to_string(port) + ") failed";
      return false;
    }
    VerbsPortAttr a;
    a.state = attr.state;
    a.phys_state = attr.phys_state;
    a.active_width = attr.active_width;
    a.active_speed = attr.active_speed;
    a.active_speed_ex = ActiveSpeedEx(attr);
    a.link_layer = attr.link_layer;
    *out = VerbsPortFromAttr(a);
    return true;
  }

 private:
  ibv_device** list_;
  std::map<std::string, ibv_device*> devices_;
  std::mutex mu_;
  std::map<std::string, ibv_context*> open_;
};

}  // namespace

VerbsPort VerbsPortFromAttr(const VerbsPortAttr& a) {
  VerbsPort p;
  p.state = a.state;
  p.state_name = StateName(a.state);
  p.phys_state = a.phys_state;
  p.phys_state_name = PhysStateName(a.phys_state);
  p.link_layer = a.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
  const uint32_t speed = a.active_speed_ex != 0 ? a.active_speed_ex : a.active_speed;
  p.width = Lanes(a.active_width);
  p.speed = SpeedName(speed);
  const double lane = IbLaneGbps(p.speed);
  if (p.width == 0 || lane <= 0) {
    p.rate_known = false;
    p.rate_why = "active_width " + std::to_string(a.active_width) + ", " +
                 (a.active_speed_ex != 0 ? "active_speed_ex " + std::to_string(a.active_speed_ex)
                                         : "active_speed " + std::to_string(a.active_speed)) +
                 (p.width == 0 ? ": unknown width" : ": unknown speed");
    p.width = 0;
    p.speed.clear();
    return p;
  }
  p.gbps = lane * p.width;
  return p;
}

std::unique_ptr<Verbs> OpenLibibverbs(std::string* why) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (!list) {
    *why = "libibverbs: ibv_get_device_list failed";
    return nullptr;
  }
  if (n == 0) {
    ibv_free_device_list(list);
    *why = "libibverbs lists no RDMA device";
    return nullptr;
  }
  return std::make_unique<Libibverbs>(list, n);
}

}  // namespace railguard::health
