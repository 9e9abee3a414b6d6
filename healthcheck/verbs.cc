// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/verbs.h"

#include <infiniband/verbs.h>

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

// ibv_port_attr.active_width is an encoding, not a lane count.
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

// active_speed -> name and the per-lane rate the kernel's rate file uses.
void Speed(uint8_t s, std::string* name, double* lane) {
  switch (s) {
    case 2:
      *name = "DDR", *lane = 5;
      return;
    case 4:
      *name = "QDR", *lane = 10;
      return;
    case 8:
      *name = "FDR10", *lane = 10;
      return;
    case 16:
      *name = "FDR", *lane = 14;
      return;
    case 32:
      *name = "EDR", *lane = 25;
      return;
    case 64:
      *name = "HDR", *lane = 50;
      return;
    case 128:
      *name = "NDR", *lane = 100;
      return;
  }
  *name = "SDR", *lane = 2.5;
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
    out->state = attr.state;
    out->state_name = StateName(attr.state);
    out->phys_state = attr.phys_state;
    out->phys_state_name = PhysStateName(attr.phys_state);
    out->width = Lanes(attr.active_width);
    double lane = 0;
    Speed(attr.active_speed, &out->speed, &lane);
    out->gbps = lane * out->width;
    out->link_layer = attr.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" : "InfiniBand";
    return true;
  }

 private:
  ibv_device** list_;
  std::map<std::string, ibv_device*> devices_;
  std::mutex mu_;
  std::map<std::string, ibv_context*> open_;
};

}  // namespace

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
