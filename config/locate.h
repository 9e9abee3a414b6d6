// SPDX-License-Identifier: GPL-2.0-or-later
// The one rule that finds railguard.yaml, for every user: both slurmctld plugins, the SPANK
// plugin, railcheck and railctl (documented in railguard.yaml(5), FILES).
#pragma once

#include <string>

namespace railguard {

// The name of the railguard config file.
inline constexpr char kConfigFileName[] = "railguard.yaml";

// The slurm.conf Slurm reads when $SLURM_CONF is not set (Debian's and upstream's default).
inline constexpr char kDefaultSlurmConf[] = "/etc/slurm/slurm.conf";

// railguard.yaml in the folder of `slurm_conf`; just "railguard.yaml" (relative to the
// working directory, as Slurm does it) when `slurm_conf` has no '/'.
std::string ConfigBeside(const std::string& slurm_conf);

// The rule. `explicit_path` (railcheck/railctl --config, SPANK config=) wins when it is not
// empty; else railguard.yaml in the folder of the slurm.conf in use: `slurm_conf_env` (the
// value of $SLURM_CONF; nullptr or "" = not set), else `default_slurm_conf` (the slurmctld
// plugins pass the default Slurm was built with; everyone else kDefaultSlurmConf).
std::string LocateConfig(const std::string& explicit_path, const char* slurm_conf_env,
                         const std::string& default_slurm_conf = kDefaultSlurmConf);

// LocateConfig with this process's $SLURM_CONF.
std::string LocateConfig(const std::string& explicit_path);

}  // namespace railguard
