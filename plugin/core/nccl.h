// SPDX-License-Identifier: GPL-2.0-or-later
// NCCL_IB_HCA for a node of a rail-optimized fabric: its rail NICs in rail order, so that
// NCCL's ring and tree channels line up rail k with rail k on every node.
#pragma once

#include <optional>
#include <string>

#include "topo/model.h"

namespace railguard::plugin {

// The NCCL_IB_HCA value for `node`: "=" followed by the NICs of its node type in rail order,
// comma-separated ("=mlx5_0,mlx5_3,..."). The leading '=' makes NCCL match names exactly;
// without it "mlx5_1" would also select mlx5_10 and mlx5_11. nullopt when the topology does
// not list the node. REQUIRES: `topo` loaded and validated.
std::optional<std::string> NcclIbHca(const topo::Topology& topo, const std::string& node);

}  // namespace railguard::plugin
