// SPDX-License-Identifier: GPL-2.0-or-later
// The output of `iblinkinfo` (infiniband-diags), by node (the default) or one line per port
// (-l), read into an IbFabric and written from one.
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "topo/ib_fabric.h"

namespace railguard::topo {

// The two layouts iblinkinfo prints.
enum class IblinkinfoLayout {
  kNodes,  // default: a "Switch: 0x<guid> <desc>:" or "CA: <desc>:" header, then its ports
  kLines,  // -l: every port on one line, its node's port GUID and description first
};

// Parses iblinkinfo output held in `text` (either layout, told apart by its first port
// line); `filename` names it in diagnostics. A port line reads
//   "      0x0002c90300001234     12    1[  ] ==( 4X       106.25 Gbps Active/  LinkUp)==>
//         3   17[  ] \"sw1\" ( )"
// (a CA's port GUID, or none under a switch's header, LID, port[ext], the link's width,
// per-lane rate and state, then the peer's LID, port and description); -l puts the port GUID
// and the quoted description first and the peer's port GUID before its LID. Down ports and
// "Port not available" have no link. The per-lane rate becomes the IB speed name of the link
// token ("4X 106.25 Gbps" is "4xNDR"; 2.5, 5.0, 10.0, 10.0 (FDR10), 14.0625, 25.78125, 53.125,
// 106.25 and 212.5 Gbps are SDR to XDR; "undefined" is "???").
// The default layout names a peer by its LID alone: every peer must have lines of its own
// (not --switches-only, --cas-only or a partial scan) and LIDs must be unique, or the line
// is an error that says so. -l names peers by port GUID: a GUID on several lines is a
// switch, and a peer with no lines of its own is taken for a CA (--switches-only -l).
// Nodes are known by port GUIDs as in ParseIbnetPorts: a switch by its ports' GUID, a CA or
// router by its lowest port's GUID (under one header, or in -l on consecutive lines with one
// description and GUIDs as far apart as their port numbers). A node's port count is the
// highest port it lists. Terminal capture wrappings are skipped as ParseIbnetdiscover skips
// them, and the tools' own error lines become warnings. Errors are appended to `*errors` as
// "file:line: <what>; expected <form>" (at most 50); returns true when there was none.
bool ParseIblinkinfo(std::string_view text, const std::string& filename, IbFabric* out,
                     Diags* errors);

// What iblinkinfo prints for `f` in `layout`: nodes in `f`'s order, a switch's every port
// (unlinked ones Down/Polling) and a CA's or router's linked ones, links Active/LinkUp at
// their token's width and rate, LIDs and port GUIDs from IbNode::addresses (a missing port
// GUID is the node GUID).
std::string WriteIblinkinfo(const IbFabric& f, IblinkinfoLayout layout);

}  // namespace railguard::topo
