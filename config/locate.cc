// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/locate.h"

#include <cstdlib>

#include "config/config.h"

namespace railguard {

std::string ConfigBeside(const std::string& slurm_conf) {
  return DirName(slurm_conf) + kConfigFileName;
}

std::string LocateConfig(const std::string& explicit_path, const char* slurm_conf_env,
                         const std::string& default_slurm_conf) {
  if (!explicit_path.empty()) return explicit_path;
  if (slurm_conf_env && *slurm_conf_env) return ConfigBeside(slurm_conf_env);
  return ConfigBeside(default_slurm_conf);
}

std::string LocateConfig(const std::string& explicit_path) {
  return LocateConfig(explicit_path, std::getenv("SLURM_CONF"));
}

}  // namespace railguard
