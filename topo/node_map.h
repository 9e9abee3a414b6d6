// SPDX-License-Identifier: GPL-2.0-or-later
// The node map file format (GUID -> "<host> [<device>]"), read by `railctl topology discover
// --node-map` to name HCAs that kept their firmware's default description.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/diag.h"

namespace railguard::topo {

// GUID -> name, as read from a node map file.
using NodeMap = std::unordered_map<uint64_t, std::string>;

// Reads a node map: one "<id> <name>" per line, where <id> is "H-<hex>", "S-<hex>", "R-<hex>"
// (hpc-toolset style: "H-003048c74e4a0000 x5570comp1") or "0x<hex>" (ibnetdiscover's
// --node-name-map style, name in double quotes). The name is "<host>" or "<host> <device>".
// '#' starts a comment. Errors ("file:line: what; expected form") go to `*errors`; returns
// true when there were none. `*out` is cleared first and holds the good lines either way.
bool ParseNodeMap(std::string_view text, const std::string& filename, NodeMap* out, Diags* errors);

// As ParseNodeMap, reading `path`. A file that cannot be read is one error.
bool LoadNodeMapFile(const std::string& path, NodeMap* out, Diags* errors);

}  // namespace railguard::topo
