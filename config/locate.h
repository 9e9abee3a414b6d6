// SPDX-License-Identifier: GPL-2.0-or-later
// The one rule that finds railguard.yaml, for every user: both slurmctld plugins, the SPANK
// plugin, railcheck and railctl (documented in railguard.yaml(5), FILES); and the rule by
// which libslurm finds slurm.conf, which railcheck and railctl follow before they open it.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace railguard {

// The name of the railguard config file.
inline constexpr char kConfigFileName[] = "railguard.yaml";

// The slurm.conf Slurm reads when $SLURM_CONF is not set (Debian's and upstream's default).
inline constexpr char kDefaultSlurmConf[] = "/etc/slurm/slurm.conf";

// The node's own railguard.yaml, for nodes with no railguard.yaml beside their slurm.conf.
// Under configless Slurm (SlurmctldParameters=enable_configless, slurmd --conf-server) a node
// has no /etc/slurm: slurmd fetches slurm.conf and the files Slurm knows from slurmctld into
// <SlurmdSpoolDir>/conf-cache, and no Slurm release (22.05 to 26.05) ships railguard.yaml.
inline constexpr char kNodeLocalConfig[] = "/etc/railguard/railguard.yaml";

// The link a configless slurmd makes to its conf-cache: libslurm reads this slurm.conf when
// $SLURM_CONF is not set and the default slurm.conf does not exist.
inline constexpr char kConfiglessSlurmConf[] = "/run/slurm/conf/slurm.conf";

// True when `path` exists: what the rules ask of a place before they take it.
using PathExists = std::function<bool(const std::string& path)>;

// stat(2) succeeds on `path` (a file that exists but cannot be read is taken, and its load
// says why it failed).
bool PathExistsOnDisk(const std::string& path);

// railguard.yaml in the folder of `slurm_conf`; just "railguard.yaml" (relative to the
// working directory, as Slurm does it) when `slurm_conf` has no '/'.
std::string ConfigBeside(const std::string& slurm_conf);

// One place the rule looked at, and why there.
struct ConfigPlace {
  std::string path;
  std::string why;  // e.g. "beside $SLURM_CONF /etc/slurm-test/slurm.conf"
};

// What the rule found.
struct ConfigSearch {
  // The file to read. When nothing was found: the first place looked at (its load then
  // names the usual place), and `found` is false.
  std::string path;
  bool found = false;               // given explicitly, or it exists
  std::vector<ConfigPlace> looked;  // in order; empty when the path was given
};

// The rule. `explicit_path` (railcheck/railctl --config, SPANK config=) wins when it is not
// empty, whether it exists or not. Else the first of these that exists:
//   1. railguard.yaml in the folder of the slurm.conf in use: `slurm_conf_env` (the value of
//      $SLURM_CONF; nullptr or "" = not set), else `default_slurm_conf` (the slurmctld plugins
//      pass the default Slurm was built with; railcheck and railctl their libslurm's);
//   2. `node_local` (kNodeLocalConfig but in tests).
// `exists` is asked about each place in turn.
ConfigSearch FindConfig(const std::string& explicit_path, const char* slurm_conf_env,
                        const std::string& default_slurm_conf = kDefaultSlurmConf,
                        const std::string& node_local = kNodeLocalConfig,
                        const PathExists& exists = PathExistsOnDisk);

// The error of a search that found nothing: every place looked at, and what to do.
std::string ConfigNotFound(const ConfigSearch& search);

// FindConfig(...).path: what the plugins load.
std::string LocateConfig(const std::string& explicit_path, const char* slurm_conf_env,
                         const std::string& default_slurm_conf = kDefaultSlurmConf);

// LocateConfig with this process's $SLURM_CONF.
std::string LocateConfig(const std::string& explicit_path);

// The slurm.conf libslurm reads (Slurm 22.05 to 26.05: read_config.c,
// _establish_config_source), and why that one.
struct SlurmConfSearch {
  std::string path;    // "" when there is none
  std::string origin;  // "$SLURM_CONF", "the default", "a configless slurmd's cache"
  std::string looked;  // when `path` is "": where it was looked for, as a sentence part
};

// `slurm_conf_env` when set and not empty; else `default_slurm_conf` when it exists; else
// kConfiglessSlurmConf when it exists; else none (libslurm would then ask DNS SRV records).
SlurmConfSearch FindSlurmConf(const char* slurm_conf_env, const std::string& default_slurm_conf,
                              const PathExists& exists = PathExistsOnDisk);

}  // namespace railguard
