/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the three railguard plugin bridges (topology_rail/topo_bridge, job_submit_rail/
 * js_bridge, spank_railguard/spank_bridge) share: the log callback and its levels, load
 * results, where railguard.yaml is; below, for their C++ side, string copies and the guard
 * every entry body runs in. None of these throws. */
#ifndef RAILGUARD_PLUGIN_COMMON_BRIDGE_H_
#define RAILGUARD_PLUGIN_COMMON_BRIDGE_H_

#ifdef __cplusplus
extern "C" {
#endif

/* Log levels of rg_log_fn. */
enum { RG_LOG_ERROR = 0, RG_LOG_INFO = 1, RG_LOG_VERBOSE = 2, RG_LOG_DEBUG = 3 };

/* Receives one log line (without prefix); the C side passes it to Slurm's log. */
typedef void (*rg_log_fn)(int level, const char *msg);

/* Results of the bridges' load functions. */
enum { RG_LOAD_OK = 0, RG_LOAD_KEPT = 1, RG_LOAD_NONE = -1 };

/* railguard.yaml by the rule of config/locate.h, for a plugin that is given no path: in the
 * folder of $SLURM_CONF, else in that of `slurm_default_conf` (the slurm.conf Slurm was
 * built to read; NULL means /etc/slurm/slurm.conf). malloc'd: release it with free().
 * NULL only when out of memory. */
char *rg_config_path(const char *slurm_default_conf);

#ifdef __cplusplus
}  // extern "C"

#include <functional>
#include <string>

#include "config/load.h"

namespace railguard::plugin {

// Passes `msg` to `log`; nothing when `log` is null.
void Log(rg_log_fn log, int level, const std::string& msg);

// A malloc'd copy of `s`, so that the C side never sees C++ allocations. Throws bad_alloc.
char* Dup(const std::string& s);

// Runs `body` and returns what it returns; any exception becomes `on_error`. The body of
// every C entry point runs in it (or in a try/catch of its own that logs).
template <typename F>
int CatchAll(int on_error, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    return on_error;
  }
}

// Runs `body` and returns what it returns. On an exception logs `what` at RG_LOG_ERROR (when
// `log` is set) and returns `on_error()`, which undoes what the body left half done; it must
// not throw. The entry points that log their internal errors run in it.
template <typename F, typename E>
int CatchLogged(rg_log_fn log, const char* what, E&& on_error, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    if (log) log(RG_LOG_ERROR, what);
    return on_error();
  }
}

// Reloads `state` from `conf_path`. Loaded: logs "loaded <conf_path> and <topology>: " plus
// `describe(setup)` at RG_LOG_INFO and returns RG_LOAD_OK. Not: logs every problem at
// RG_LOG_ERROR and returns RG_LOAD_KEPT (an earlier setup stays in force) or RG_LOAD_NONE.
// May throw (bad_alloc); the caller's entry body catches.
int ReloadLogged(SetupHolder& state, const std::string& conf_path, rg_log_fn log,
                 const std::function<std::string(const RailSetup&)>& describe);

}  // namespace railguard::plugin
#endif /* __cplusplus */

#endif /* RAILGUARD_PLUGIN_COMMON_BRIDGE_H_ */
