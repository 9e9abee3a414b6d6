// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 2 (audit): the cabling of a fabric checked against what inference made of
// it (topo/discover_infer.h), one Finding per anomaly (the kinds are listed in
// topo/discover.h).
#pragma once

#include <string>
#include <vector>

#include "topo/discover.h"
#include "topo/discover_infer.h"
#include "topo/ibnet.h"

namespace railguard::topo {

// Every finding about `fabric`, given what inference made of it: grouped by kind in the order
// topo/discover.h lists them, then by host (Slurm order, findings about no host last), device,
// switch and port; findings equal in all of those keep the order they were found in.
std::vector<Finding> Audit(const IbFabric& fabric, const Inference& in);

}  // namespace railguard::topo
