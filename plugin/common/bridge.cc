// SPDX-License-Identifier: GPL-2.0-or-later
// The shared part of the plugin bridges. See bridge.h for the contract of each function.
#include "plugin/common/bridge.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "config/locate.h"

namespace railguard::plugin {

void Log(rg_log_fn log, int level, const std::string& msg) {
  if (log) log(level, msg.c_str());
}

char* Dup(const std::string& s) {
  char* p = static_cast<char*>(std::malloc(s.size() + 1));
  if (!p) throw std::bad_alloc();
  std::memcpy(p, s.c_str(), s.size() + 1);
  return p;
}

int ReloadLogged(SetupHolder& state, const std::string& conf_path, rg_log_fn log,
                 const std::function<std::string(const RailSetup&)>& describe) {
  Diags diags;
  if (state.Reload(conf_path, &diags)) {
    const RailSetup& s = *state.current();
    Log(log, RG_LOG_INFO,
        "loaded " + conf_path + " and " + s.config.topology_path + ": " + describe(s));
    return RG_LOAD_OK;
  }
  for (const Diag& d : diags) Log(log, RG_LOG_ERROR, d.ToString());
  return state.current() ? RG_LOAD_KEPT : RG_LOAD_NONE;
}

}  // namespace railguard::plugin

extern "C" char* rg_config_path(const char* slurm_default_conf) {
  try {
    return railguard::plugin::Dup(railguard::LocateConfig(
        "", std::getenv("SLURM_CONF"),
        slurm_default_conf ? slurm_default_conf : railguard::kDefaultSlurmConf));
  } catch (...) {
    return nullptr;
  }
}
