// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/locate.h"

#include <sys/stat.h>

#include <cstdlib>

#include "config/config.h"

namespace railguard {

bool PathExistsOnDisk(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

std::string ConfigBeside(const std::string& slurm_conf) {
  return DirName(slurm_conf) + kConfigFileName;
}

ConfigSearch FindConfig(const std::string& explicit_path, const char* slurm_conf_env,
                        const std::string& default_slurm_conf, const std::string& node_local,
                        const PathExists& exists) {
  ConfigSearch s;
  if (!explicit_path.empty()) {
    s.path = explicit_path;
    s.found = true;
    return s;
  }
  if (slurm_conf_env && *slurm_conf_env)
    s.looked.push_back({ConfigBeside(slurm_conf_env),
                        std::string("beside $SLURM_CONF ") + slurm_conf_env});
  else
    s.looked.push_back(
        {ConfigBeside(default_slurm_conf), "beside the default slurm.conf " + default_slurm_conf});
  s.looked.push_back({node_local, "the node's own, for configless Slurm"});
  for (const ConfigPlace& p : s.looked) {
    if (exists(p.path)) {
      s.path = p.path;
      s.found = true;
      return s;
    }
  }
  s.path = s.looked.front().path;
  return s;
}

std::string ConfigNotFound(const ConfigSearch& search) {
  std::string places;
  for (size_t i = 0; i < search.looked.size(); ++i) {
    const ConfigPlace& p = search.looked[i];
    places += (i == 0 ? "" : i + 1 == search.looked.size() ? " and " : ", ") + p.path + " (" +
              p.why + ")";
  }
  return "no railguard.yaml found: looked for " + places +
         "; give --config FILE, or install it in one of those places (railguard.yaml(5), "
         "FILES)";
}

std::string LocateConfig(const std::string& explicit_path, const char* slurm_conf_env,
                         const std::string& default_slurm_conf) {
  return FindConfig(explicit_path, slurm_conf_env, default_slurm_conf).path;
}

std::string LocateConfig(const std::string& explicit_path) {
  return LocateConfig(explicit_path, std::getenv("SLURM_CONF"));
}

SlurmConfSearch FindSlurmConf(const char* slurm_conf_env, const std::string& default_slurm_conf,
                              const PathExists& exists) {
  if (slurm_conf_env && *slurm_conf_env) return {slurm_conf_env, "$SLURM_CONF", ""};
  if (exists(default_slurm_conf)) return {default_slurm_conf, "the default", ""};
  if (exists(kConfiglessSlurmConf))
    return {kConfiglessSlurmConf, "a configless slurmd's cache", ""};
  return {"", "",
          "$SLURM_CONF is not set, and neither " + default_slurm_conf + " (the default) nor " +
              kConfiglessSlurmConf + " (a configless slurmd's cache) exists"};
}

}  // namespace railguard
