/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's log for the railguard plugins that use Slurm's internals. See slurm_log.h. */

// slurm_xlator.h renames Slurm symbols to their exported names: it must come first.
// clang-format off
#include "src/common/slurm_xlator.h"

#include "src/common/log.h"

#include "plugin/common/bridge.h"
#include "plugin/common/slurm_log.h"
// clang-format on

void rg_slurm_log(const char *prefix, int level, const char *msg) {
  switch (level) {
    case RG_LOG_ERROR:
      error("%s %s", prefix, msg);
      break;
    case RG_LOG_INFO:
      info("%s %s", prefix, msg);
      break;
    case RG_LOG_VERBOSE:
      verbose("%s %s", prefix, msg);
      break;
    default:
      debug("%s %s", prefix, msg);
      break;
  }
}
