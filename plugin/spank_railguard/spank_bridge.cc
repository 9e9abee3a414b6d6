// SPDX-License-Identifier: GPL-2.0-or-later
// The railguard SPANK plugin's work: option checks in the commands, the job-control
// environment for job_submit/rail, and NCCL_IB_HCA in each task. See spank_bridge.h.
#include "plugin/spank_railguard/spank_bridge.h"

#include <cstring>
#include <memory>
#include <string>

#include "config/load.h"
#include "config/locate.h"
#include "plugin/common/bridge.h"
#include "plugin/core/job_options.h"
#include "plugin/core/nccl.h"
#include "plugin/core/nccl_cache.h"

namespace {

using railguard::RailSetup;
using railguard::plugin::CatchAll;

enum OptionId { kOptPlacement = 1, kOptMaxSus = 2, kOptHetjob = 3 };

// Holds the NCCL_IB_HCA value railguard set, so that a nested step can tell it from the
// user's own.
constexpr char kMarkerEnv[] = "RAILGUARD_NCCL_IB_HCA";

// What this process learned; one SPANK stack per process, so plain globals suffice.
struct State {
  std::string conf_path;                   // config= argument of plugstack.conf
  std::string cache_dir = railguard::plugin::kDefaultNcclCacheDir;  // cache=, "" = none
  std::string placement;                   // --rail-placement, "" = not given
  std::string max_sus;                     // --rail-max-sus, "" = not given
  std::string hetjob;                      // --rail-hetjob, "" = not given
  // slurmstepd only: the located railguard.yaml, and either the NCCL_IB_HCA cache text
  // (nccl_cache.h) found fresh or the setup loaded when it was not.
  std::string located;
  std::string cache_text;
  std::shared_ptr<const RailSetup> setup;
};

State& Get() {
  static State state;
  return state;
}

extern "C" int OptionCallback(int val, const char* optarg, int /*remote*/) {
  return CatchAll(-1, [&] {
    const std::string value = optarg ? optarg : "";
    std::string err;
    if (val == kOptPlacement) {
      railguard::PlacementMode mode;
      if (!railguard::plugin::ParsePlacementOption(value, &mode, &err)) {
        slurm_error("railguard: %s", err.c_str());
        return -1;
      }
      Get().placement = value;
    } else if (val == kOptMaxSus) {
      int n = 0;
      if (!railguard::plugin::ParseMaxSusOption(value, &n, &err)) {
        slurm_error("railguard: %s", err.c_str());
        return -1;
      }
      Get().max_sus = value;
    } else if (val == kOptHetjob) {
      bool together = false;
      if (!railguard::plugin::ParseHetjobOption(value, &together, &err)) {
        slurm_error("railguard: %s", err.c_str());
        return -1;
      }
      Get().hetjob = value;
    }
    return 0;
  });
}

// Registered once per process; Slurm keeps pointers to these.
struct spank_option option_table[] = {
    {const_cast<char*>("rail-placement"), const_cast<char*>("strict|prefer|off"),
     const_cast<char*>("railguard: keep the job in the fewest scalable units (strict), "
                       "prefer that for a short while (prefer), or leave it alone (off)"),
     1, kOptPlacement, OptionCallback},
    {const_cast<char*>("rail-max-sus"), const_cast<char*>("N"),
     const_cast<char*>("railguard: most scalable units the job may span (1 to 4096)"), 1,
     kOptMaxSus, OptionCallback},
    {const_cast<char*>("rail-hetjob"), const_cast<char*>("together|apart"),
     const_cast<char*>("railguard: a heterogeneous job's components all in one scalable unit "
                       "(together) or each confined on its own (apart, the default)"),
     1, kOptHetjob, OptionCallback},
};

// slurmstepd, once per step: the cache file when it is fresh; else railguard.yaml and its
// topology, and then a new cache file for the steps that follow. The identities are taken
// before each file is read, so that a file changed during the load leaves a cache that the
// next step finds stale.
void LoadTopology(State& s) {
  using railguard::FileIdentity;
  using railguard::IdentityOf;
  namespace rp = railguard::plugin;
  s.located = railguard::LocateConfig(s.conf_path);
  std::string cache_file, why;
  if (!s.cache_dir.empty()) {
    cache_file = rp::NcclCachePath(s.cache_dir, s.located);
    std::string text, unused;
    if (rp::ReadNcclCache(s.cache_dir, cache_file, &text, &why)) {
      if (rp::LookupNcclCache(text, s.located, "", IdentityOf, &unused) !=
          rp::NcclCacheAnswer::kStale) {
        s.cache_text = std::move(text);
        return;
      }
    } else if (!why.empty()) {
      slurm_verbose("railguard: spank: %s", why.c_str());
    }
  }
  railguard::Diags diags;
  auto setup = std::make_shared<RailSetup>();
  const FileIdentity config_id = IdentityOf(s.located);
  FileIdentity topology_id;
  if (railguard::LoadSetupConfig(s.located, &setup->config, &diags)) {
    topology_id = IdentityOf(setup->config.topology_path);
    if (railguard::LoadSetupTopology(setup->config.topology_path, &setup->topology, &diags)) {
      s.setup = std::move(setup);
    }
  }
  if (!s.setup) {
    // slurmstepd: the step goes on without NCCL_IB_HCA; say why once per step.
    for (const railguard::Diag& d : diags) {
      slurm_error("railguard: spank: %s", d.ToString().c_str());
    }
    return;
  }
  if (cache_file.empty()) return;
  const std::string text = rp::FormatNcclCache(s.located, config_id, s.setup->config.topology_path,
                                               topology_id, s.setup->topology);
  if (!text.empty() && !rp::WriteNcclCache(s.cache_dir, cache_file, text, &why)) {
    slurm_verbose("railguard: spank: NCCL_IB_HCA cache not kept: %s", why.c_str());
  }
}

}  // namespace

extern "C" int rg_spank_init(spank_t sp, int ac, char** av) {
  return CatchAll(-1, [&] {
    State& s = Get();
    for (int i = 0; i < ac; ++i) {
      const std::string arg = av[i];
      if (arg.rfind("config=", 0) == 0 && arg.size() > 7) {
        s.conf_path = arg.substr(7);
      } else if (arg.rfind("cache=", 0) == 0 && arg.size() > 6 && arg[6] == '/') {
        s.cache_dir = arg.substr(6);
      } else if (arg == "cache=none") {
        s.cache_dir.clear();
      } else {
        slurm_error(
            "railguard: spank: unknown plugstack.conf argument '%s'; expected "
            "config=PATH, cache=/ABSOLUTE/FOLDER or cache=none",
            arg.c_str());
      }
    }
    const spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR || ctx == S_CTX_REMOTE) {
      for (struct spank_option& opt : option_table) {
        spank_err_t rc = spank_option_register(sp, &opt);
        if (rc != ESPANK_SUCCESS) {
          slurm_error("railguard: spank: cannot register --%s: %s", opt.name, spank_strerror(rc));
        }
      }
    }
    if (ctx == S_CTX_REMOTE && !s.conf_path.empty()) LoadTopology(s);
    return 0;
  });
}

extern "C" int rg_spank_init_post_opt(spank_t sp, int /*ac*/, char** /*av*/) {
  return CatchAll(-1, [&] {
    const spank_context_t ctx = spank_context();
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR) return 0;
    const State& s = Get();
    const std::pair<const char*, const std::string*> vars[] = {
        {railguard::plugin::kPlacementEnv, &s.placement},
        {railguard::plugin::kMaxSusEnv, &s.max_sus},
        {railguard::plugin::kHetjobEnv, &s.hetjob}};
    for (const auto& [name, value] : vars) {
      if (value->empty()) continue;
      spank_err_t rc = spank_job_control_setenv(sp, name, value->c_str(), 1);
      if (rc != ESPANK_SUCCESS) {
        slurm_error("railguard: cannot pass %s to the job: %s", name, spank_strerror(rc));
        return -1;
      }
    }
    return 0;
  });
}

extern "C" int rg_spank_task_init(spank_t sp, int /*ac*/, char** /*av*/) {
  return CatchAll(-1, [&] {
    const State& s = Get();
    if (!spank_remote(sp) || (!s.setup && s.cache_text.empty())) return 0;
    char node[256];
    char have[1024];
    char ours[1024];
    if (spank_getenv(sp, "SLURMD_NODENAME", node, sizeof(node)) != ESPANK_SUCCESS) return 0;
    // A value the job brought along is the user's, unless it is the one railguard set in an
    // enclosing step (a batch script's srun): that one is redone for this node.
    if (spank_getenv(sp, "NCCL_IB_HCA", have, sizeof(have)) == ESPANK_SUCCESS &&
        !(spank_getenv(sp, kMarkerEnv, ours, sizeof(ours)) == ESPANK_SUCCESS &&
          std::strcmp(have, ours) == 0)) {
      slurm_verbose("railguard: spank: NCCL_IB_HCA=%s set by the job; left as is", have);
      return 0;
    }
    std::optional<std::string> hca;
    if (s.setup) {
      hca = railguard::plugin::NcclIbHca(s.setup->topology, node);
    } else {
      std::string value;
      if (railguard::plugin::LookupNcclCache(s.cache_text, s.located, node, nullptr, &value) ==
          railguard::plugin::NcclCacheAnswer::kListed) {
        hca = std::move(value);
      }
    }
    if (!hca) {
      slurm_verbose("railguard: spank: node %s is not in the topology of %s; NCCL_IB_HCA not set",
                    node, s.located.c_str());
      return 0;
    }
    for (const char* name : {"NCCL_IB_HCA", kMarkerEnv}) {
      spank_err_t rc = spank_setenv(sp, name, hca->c_str(), 1);
      if (rc != ESPANK_SUCCESS) {
        slurm_error("railguard: spank: cannot set %s: %s", name, spank_strerror(rc));
        return 0;
      }
    }
    return 0;
  });
}

extern "C" int rg_spank_exit(spank_t /*sp*/, int /*ac*/, char** /*av*/) {
  return CatchAll(-1, [] {
    Get().setup.reset();
    Get().cache_text.clear();
    return 0;
  });
}
