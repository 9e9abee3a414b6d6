// SPDX-License-Identifier: GPL-2.0-or-later
// JSON renderings of the topology model shared by railctl's subcommands.
#pragma once

#include <nlohmann/json.hpp>

#include "base/diag.h"
#include "topo/model.h"

namespace railguard::cli {

// [{index, name, hca, link ("4xNDR"), rate_gbps, width, speed, sysfs_rate}]; hca is the rail's
// NIC in the first node type, "" when there is none.
nlohmann::json RailsJson(const topo::Topology& t);

// [{name, nodes (compressed hostlist), node_count, node_type, leaves: [{rail, name, guid,
// ports, nodes (the leaf's nodes; all the SU's when its YAML has no `nodes:`)}]}]
nlohmann::json ScalableUnitsJson(const topo::Topology& t);

// The one-hop domains: [{name, su, nodes, node_count, leaves: [leaf name per rail]}].
nlohmann::json DomainsJson(const topo::Topology& t);

// [{name, guid, ports}]
nlohmann::json SpinesJson(const topo::Topology& t);
// [{name, guid, ports}] of the core switches (a third tier); [] in a two-tier fabric.
nlohmann::json CoresJson(const topo::Topology& t);

// [{file, line, column, message}]
nlohmann::json DiagsJson(const Diags& diags);

}  // namespace railguard::cli
