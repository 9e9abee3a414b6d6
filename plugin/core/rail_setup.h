// A railguard config together with the rail topology it names, loaded and validated as one;
// and the holder that keeps the last good pair when a reload fails.
#pragma once

#include <memory>
#include <string>

#include "topo/config.h"
#include "base/diag.h"
#include "topo/model.h"

namespace railguard::plugin {

// Files larger than this are refused before parsing: plugins run inside Slurm's daemons and
// must bound the work a wrong path (a log file, a device) can cause.
constexpr long kMaxSetupFileBytes = 16L << 20;

// Both files, validated. Immutable once built; shared by pointer.
struct RailSetup {
  Config config;
  topo::Topology topology;
};

// Loads the railguard config at `config_path` and the topology it names. Returns nullptr when
// either has a problem; every problem is then in `*diags` (file:line:column: message).
std::shared_ptr<const RailSetup> LoadRailSetup(const std::string& config_path, Diags* diags);

// Holds the setup in force. Not thread-safe: callers serialize.
class RailState {
 public:
  // Loads `config_path` (see LoadRailSetup). On success the new setup is current and true is
  // returned. On failure the previous setup, if any, stays current and false is returned.
  bool Reload(const std::string& config_path, Diags* diags);

  // The setup in force, or nullptr if no load ever succeeded.
  std::shared_ptr<const RailSetup> current() const { return current_; }

  // Forgets the setup in force.
  void Clear() { current_.reset(); }

 private:
  std::shared_ptr<const RailSetup> current_;
};

}  // namespace railguard::plugin
