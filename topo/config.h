// The railguard configuration file (railguard.yaml, beside slurm.conf): which rail topology
// the cluster has and how jobs are placed on it. Plugins and tools load it through here.
#pragma once

#include <string>
#include <string_view>

#include "topo/diag.h"

namespace railguard {

// How a multi-node job is kept inside scalable units (SUs).
enum class PlacementMode {
  kStrict,  // fewest SUs that hold the job; Slurm waits the full bound for them
  kPrefer,  // the same SUs, but Slurm waits a quarter of the bound before spreading
  kOff,     // the job is left as submitted
};

// "strict", "prefer" or "off".
const char* PlacementModeName(PlacementMode mode);

// Parses "strict", "prefer" or "off" (exact, lower case). Returns false for anything else;
// `*out` is then unchanged.
bool ParsePlacementMode(std::string_view text, PlacementMode* out);

// The `placement:` section. Every field has its default here and nowhere else.
struct PlacementConfig {
  PlacementMode default_mode = PlacementMode::kPrefer;  // when the job names no mode
  std::string healthy_feature = "rail_healthy";         // node feature the health checks maintain
  // How long Slurm may hold a job for its SUs (wait4switch): base + per_node * nodes, at most
  // max. The defaults give 2 nodes 70 s, 8 nodes 100 s, 32 nodes 220 s, 48 and more 300 s,
  // and never exceed Slurm's own default max_switch_wait (300 s).
  int wait_base_seconds = 60;
  int wait_per_node_seconds = 5;
  int wait_max_seconds = 300;
  // Most SUs one job may span unless it says otherwise (--rail-max-sus); 0 = no limit.
  int max_sus_default = 0;
};

// Ranges the loader accepts, for messages and for the SPANK option check.
constexpr int kMaxWaitBaseSeconds = 86400;
constexpr int kMaxWaitPerNodeSeconds = 3600;
constexpr int kMaxWaitMaxSeconds = 604800;
constexpr int kMaxSusLimit = 4096;

// A loaded railguard.yaml.
struct Config {
  std::string path;           // the file it came from, as given
  std::string topology_path;  // the rail topology YAML; relative values resolved against
                              // the folder of `path`
  PlacementConfig placement;
};

// Parses and validates a railguard config held in `text`; `filename` names it in diagnostics
// and is the base for a relative `topology:` path. Every problem found is appended to
// `*diags` as file:line:column plus what was expected. Returns true when there was none;
// `*out` is then complete. On false, `*out` must not be used.
bool LoadConfigString(const std::string& text, const std::string& filename, Config* out,
                      Diags* diags);

// As LoadConfigString, reading `path`. A file that cannot be read is one diagnostic.
bool LoadConfigFile(const std::string& path, Config* out, Diags* diags);

// The folder part of `path` with its trailing '/', or "" when `path` has no '/'.
std::string DirName(const std::string& path);

}  // namespace railguard
