// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/slurm_source.h"

#include <pwd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "source_version.h"  // report/slurm_<series>/: what differs between Slurm releases

namespace railguard::report {
namespace {

// libslurm reports its errors in errno (slurm_get_errno(), gone since 23.02, only read it).
std::string SlurmError() { return slurm_strerror(errno); }

std::string Str(const char* s) { return s ? s : ""; }

std::string UserName(uint32_t uid) {
  if (uid == NO_VAL) return "";
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return pw.pw_name;
  return std::to_string(uid);
}

std::string NodeStateName(uint32_t state) {
  switch (state & NODE_STATE_BASE) {
    case NODE_STATE_DOWN:
      return "down";
    case NODE_STATE_IDLE:
      return "idle";
    case NODE_STATE_ALLOCATED:
      return "allocated";
    case NODE_STATE_ERROR:
      return "error";
    case NODE_STATE_MIXED:
      return "mixed";
    case NODE_STATE_FUTURE:
      return "future";
    default:
      return "unknown";
  }
}

std::vector<std::string> NodeFlags(uint32_t state) {
  struct Flag {
    uint32_t bit;
    const char* name;
  };
  static const Flag kFlags[] = {
      {NODE_STATE_DRAIN, "drain"},
      {NODE_STATE_NO_RESPOND, "not_responding"},
      {NODE_STATE_COMPLETING, "completing"},
      {NODE_STATE_MAINT, "maint"},
      {NODE_STATE_RES, "reserved"},
      {NODE_STATE_FAIL, "fail"},
      {NODE_STATE_POWERED_DOWN, "powered_down"},
      {NODE_STATE_POWERING_DOWN, "powering_down"},
      {NODE_STATE_POWERING_UP, "powering_up"},
      {NODE_STATE_REBOOT_REQUESTED, "reboot_requested"},
      {NODE_STATE_REBOOT_ISSUED, "reboot_issued"},
      {NODE_STATE_PLANNED, "planned"},
      {NODE_STATE_CLOUD, "cloud"},
  };
  std::vector<std::string> out;
  for (const Flag& f : kFlags)
    if (state & f.bit) out.push_back(f.name);
  for (const ReleaseNodeFlag& f : kReleaseNodeFlags)
    if (state & f.bit) out.push_back(f.name);
  return out;
}

// Lower-case job state, or "" for jobs that hold no nodes now.
std::string JobStateName(uint32_t state) {
  if (state & JOB_COMPLETING) return "completing";
  switch (state & JOB_STATE_BASE) {
    case JOB_RUNNING:
      return "running";
    case JOB_SUSPENDED:
      return "suspended";
    default:
      return "";
  }
}

// True when a slurm_load_* call returned SLURM_SUCCESS; else false with
// "cannot load <what> from slurmctld: <Slurm's error>".
bool Loaded(int rc, const char* what, std::string* err) {
  if (rc == SLURM_SUCCESS) return true;
  *err = std::string("cannot load ") + what + " from slurmctld: " + SlurmError();
  return false;
}

class SlurmSource : public ClusterSource {
 public:
  ~SlurmSource() override { slurm_fini(); }

  bool ReadNodes(std::vector<NodeSnapshot>* out, std::string* err) override {
    node_info_msg_t* msg = nullptr;
    if (!Loaded(slurm_load_node(0, &msg, SHOW_ALL), "nodes", err)) return false;
    for (uint32_t i = 0; msg && i < msg->record_count; ++i) {
      const node_info_t& ni = msg->node_array[i];
      if (!ni.name) continue;
      NodeSnapshot n;
      n.name = ni.name;
      n.state = NodeStateName(ni.node_state);
      n.flags = NodeFlags(ni.node_state);
      n.reason = Str(ni.reason);
      if (!n.reason.empty()) {
        n.reason_time = static_cast<double>(ni.reason_time);
        n.reason_user = UserName(ni.reason_uid);
      }
      n.features = Str(ni.features);
      n.features_act = Str(ni.features_act);
      n.extra = Str(ni.extra);
      out->push_back(std::move(n));
    }
    slurm_free_node_info_msg(msg);
    return true;
  }

  bool ReadJobs(std::vector<JobSnapshot>* out, std::string* err) override {
    job_info_msg_t* msg = nullptr;
    if (!Loaded(slurm_load_jobs(0, &msg, SHOW_ALL), "jobs", err)) return false;
    for (uint32_t i = 0; msg && i < msg->record_count; ++i) {
      const slurm_job_info_t& ji = msg->job_array[i];
      const std::string state = JobStateName(ji.job_state);
      if (state.empty() || !ji.nodes || !*ji.nodes) continue;
      JobSnapshot j;
      j.id = SlurmJobId(ji);
      j.name = Str(ji.name);
      j.user = ji.user_name ? std::string(ji.user_name) : UserName(ji.user_id);
      j.state = state;
      j.nodes = ji.nodes;
      j.node_count = ji.num_nodes;
      j.start_time = static_cast<double>(ji.start_time);
      j.partition = Str(ji.partition);
      out->push_back(std::move(j));
    }
    slurm_free_job_info_msg(msg);
    return true;
  }

  std::string ClusterName() override {
    slurm_conf_t* conf = nullptr;
    if (slurm_load_ctl_conf(0, &conf) != SLURM_SUCCESS || !conf) return "";
    std::string name = Str(conf->cluster_name);
    FreeCtlConf(conf);
    return name;
  }

  double Now() override {
    struct timeval tv;
    gettimeofday(&tv, nullptr);
    return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6;
  }
};

}  // namespace

std::unique_ptr<ClusterSource> OpenSlurmSource(const std::string& slurm_conf,
                                               const std::string& origin, std::string* err) {
  if (access(slurm_conf.c_str(), R_OK) != 0) {
    *err = "cannot read slurm.conf at " + slurm_conf + " (" + origin +
           "); or report from a saved snapshot with --snapshot FILE";
    return nullptr;
  }
  slurm_init(slurm_conf.c_str());
  return std::make_unique<SlurmSource>();
}

}  // namespace railguard::report
