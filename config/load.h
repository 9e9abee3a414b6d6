// SPDX-License-Identifier: GPL-2.0-or-later
// Loading railguard.yaml and the rail topology it names, for all five users (topology/rail,
// job_submit/rail, the SPANK plugin, railcheck, railctl); and the holder that keeps the last
// good pair when a reload fails. Where the file is: config/locate.h.
#pragma once

#include <memory>
#include <string>

#include "base/diag.h"
#include "config/config.h"
#include "topo/model.h"

namespace railguard {

// Parses and validates a railguard config held in `text`; `filename` names it in diagnostics
// and is the base for a relative `topology:` path. With `checks`, the keys of health.actions
// must be checks of it, and the checks it does not name get their default action; without
// it (callers that run no checks), health.actions must still map names to drain, restrict,
// warn or off, but the names are not checked (HealthConfig::actions says what is kept).
// Every problem found is appended to `*diags` as file:line:column plus what was expected.
// Returns true when there was none; `*out` is then complete. On false, `*out` must not be
// used.
bool LoadConfigString(const std::string& text, const std::string& filename, Config* out,
                      Diags* diags, const CheckCatalog* checks = nullptr);

// As LoadConfigString, reading `path`. A file that cannot be read is one diagnostic.
bool LoadConfigFile(const std::string& path, Config* out, Diags* diags,
                    const CheckCatalog* checks = nullptr);

// Files larger than this are refused before parsing: plugins run inside Slurm's daemons and
// must bound the work a wrong path (a log file, a device) can cause.
constexpr long kMaxSetupFileBytes = 16L << 20;

// As LoadConfigFile, but first refuses (one diagnostic) a `path` that is not a regular file
// of at most kMaxSetupFileBytes.
bool LoadSetupConfig(const std::string& path, Config* out, Diags* diags,
                     const CheckCatalog* checks = nullptr);

// The rail topology at `path`, with the file checks of LoadSetupConfig.
bool LoadSetupTopology(const std::string& path, topo::Topology* out, Diags* diags);

// Both files, validated. Immutable once built; shared by pointer.
struct RailSetup {
  Config config;
  topo::Topology topology;
};

// Loads the railguard config at `config_path` (LoadSetupConfig, with `checks`) and the
// topology it names (LoadSetupTopology). Returns nullptr when either has a problem; every
// problem is then in `*diags` (file:line:column: message).
std::shared_ptr<const RailSetup> LoadRailSetup(const std::string& config_path, Diags* diags,
                                               const CheckCatalog* checks = nullptr);

// Holds the setup in force (the Slurm plugins, which run no checks: no catalog). Not
// thread-safe: callers serialize.
class SetupHolder {
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

}  // namespace railguard
