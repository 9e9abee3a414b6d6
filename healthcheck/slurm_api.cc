// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/slurm_api.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <unistd.h>

#include <cerrno>
#include <utility>
#include <vector>

#ifndef RAILGUARD_SLURM_DEFAULT_CONF
#error "RAILGUARD_SLURM_DEFAULT_CONF (the libslurm's default slurm.conf) comes from CMakeLists.txt"
#endif

namespace railguard::health {
namespace {

// libslurm reports its errors in errno (slurm_get_errno(), gone since 23.02, only read it).
std::string SlurmError() { return slurm_strerror(errno); }

// The drain reason's user, where the release's update message carries one (before 26.05;
// 26.05's slurmctld takes the uid of the request).
template <typename Msg>
auto SetReasonUid(Msg* msg, int) -> decltype(msg->reason_uid = 0, void()) {
  msg->reason_uid = getuid();
}
template <typename Msg>
void SetReasonUid(Msg*, long) {}

// The node state flags railcheck respects (act.h, SlurmNode::held_flags), named as scontrol
// names them (slurm.h NODE_STATE_*; node_state_string()).
const std::pair<uint32_t, const char*> kHeldFlags[] = {
    {NODE_STATE_REBOOT_REQUESTED, "REBOOT_REQUESTED"},
    {NODE_STATE_REBOOT_ISSUED, "REBOOT_ISSUED"},
    {NODE_STATE_FAIL, "FAIL"},
    {NODE_STATE_POWER_DOWN, "POWER_DOWN"},
    {NODE_STATE_POWERING_DOWN, "POWERING_DOWN"},
    {NODE_STATE_POWERED_DOWN, "POWERED_DOWN"},
    {NODE_STATE_POWER_DRAIN, "POWER_DRAIN"},
};

// `out` from slurmctld's record of a node.
void Fill(const node_info_t& ni, SlurmNode* out) {
  out->name = ni.name ? ni.name : "";
  out->drain = (ni.node_state & NODE_STATE_DRAIN) != 0;
  out->down = (ni.node_state & NODE_STATE_BASE) == NODE_STATE_DOWN;
  out->reason = ni.reason ? ni.reason : "";
  out->features = ni.features ? ni.features : "";
  out->features_act = ni.features_act ? ni.features_act : "";
  out->extra = ni.extra ? ni.extra : "";
  out->held_flags.clear();
  for (const auto& [bit, flag] : kHeldFlags)
    if (ni.node_state & bit) out->held_flags.push_back(flag);
}

class Libslurm : public SlurmApi {
 public:
  ~Libslurm() override { slurm_fini(); }

  bool ListNodes(std::vector<SlurmNode>* out, std::string* err) override {
    node_info_msg_t* msg = nullptr;
    if (slurm_load_node(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
      *err = "cannot load the nodes from slurmctld: " + SlurmError();
      return false;
    }
    out->clear();
    for (uint32_t i = 0; msg && i < msg->record_count; ++i) {
      if (!msg->node_array[i].name) continue;
      out->emplace_back();
      Fill(msg->node_array[i], &out->back());
    }
    slurm_free_node_info_msg(msg);
    return true;
  }

  bool GetNode(const std::string& name, SlurmNode* out, std::string* err) override {
    node_info_msg_t* msg = nullptr;
    std::vector<char> n(name.begin(), name.end());
    n.push_back('\0');
    if (slurm_load_node_single(&msg, n.data(), SHOW_ALL) != SLURM_SUCCESS) {
      *err = "cannot load node " + name + " from slurmctld: " + SlurmError();
      return false;
    }
    bool found = false;
    for (uint32_t i = 0; msg && i < msg->record_count; ++i) {
      const node_info_t& ni = msg->node_array[i];
      if (!ni.name || name != ni.name) continue;
      found = true;
      Fill(ni, out);
    }
    slurm_free_node_info_msg(msg);
    if (!found) *err = "slurmctld has no node " + name;
    return found;
  }

  bool UpdateNode(const std::string& name, const NodeUpdate& u, std::string* err) override {
    update_node_msg_t msg;
    slurm_init_update_node_msg(&msg);
    // libslurm takes char*, and only reads them.
    std::string node = name;
    std::string reason = u.drain_reason.value_or("");
    std::string features = u.features.value_or("");
    std::string features_act = u.features_act.value_or("");
    std::string extra = u.extra.value_or("");
    msg.node_names = node.data();
    if (u.drain_reason) {
      msg.node_state = NODE_STATE_DRAIN;
      msg.reason = reason.data();
      SetReasonUid(&msg, 0);
    } else if (u.resume) {
      msg.node_state = NODE_RESUME;
    }
    if (u.features) msg.features = features.data();
    if (u.features_act) msg.features_act = features_act.data();
    if (u.extra) msg.extra = extra.data();
    if (slurm_update_node(&msg) != SLURM_SUCCESS) {
      *err = "slurm_update_node(" + name + ") failed: " + SlurmError();
      return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<SlurmApi> OpenLibslurm(std::string* err) {
  (void)err;
  slurm_init(nullptr);
  return std::make_unique<Libslurm>();
}

std::string LibslurmDefaultConf() { return RAILGUARD_SLURM_DEFAULT_CONF; }

}  // namespace railguard::health
