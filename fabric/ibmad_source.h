// SPDX-License-Identifier: GPL-2.0-or-later
// The real FabricSource: discovery through libibnetdisc (the library behind ibnetdiscover),
// PMA queries through libibmad, over the local HCA port libibumad opens (or ibsim's, under
// LD_PRELOAD=libumad2sim.so).
#pragma once

#include <memory>
#include <string>

#include "fabric/sweep.h"

namespace railguard::fabric {

struct IbmadOptions {
  std::string ca;    // HCA name ("mlx5_0"); empty: libibumad's default
  int ca_port = 0;   // 0: libibumad's default
  int max_smps = 4;  // discovery SMPs in flight (ibnd_config.max_smps)
  int smp_timeout_ms = 500;
};

// A FabricSource over libibnetdisc + libibmad. Never null.
std::unique_ptr<FabricSource> MakeIbmadSource(const IbmadOptions& opts);

// Lanes of a PortInfo LinkWidth bit mask's widest width (1X=1, 4X=2, 8X=4, 12X=8, 2X=16), or 0.
int WidestLanes(unsigned mask);
// The fastest InfiniBand speed name in a PortInfo LinkSpeed mask (1 SDR, 2 DDR, 4 QDR) and
// LinkSpeedExt mask (1 FDR, 2 EDR, 4 HDR, 8 NDR; it wins when non-zero), or "".
std::string FastestSpeed(unsigned mask, unsigned ext_mask);

}  // namespace railguard::fabric
