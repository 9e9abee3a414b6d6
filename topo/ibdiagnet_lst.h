// SPDX-License-Identifier: GPL-2.0-or-later
// ibdiagnet's link list `ibdiagnet2.lst` (the LST format of ibutils' ibdm, which opensm also
// writes as opensm-subnet.lst): one line per link seen from one end, read into an IbFabric and
// written from one.
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "topo/ib_fabric.h"

namespace railguard::topo {

// Parses an LST file held in `text`; `filename` names it in diagnostics. A line is a link seen
// from its first end, each end a node's record and port in braces, then the first end's view:
//   "{ CA Ports:02 SystemGUID:0002c90300165e63 NodeGUID:0002c90300165e60 PortGUID:
//   0002c90300165e61 VenID:000002C9 DevID:1003 Rev:00000000 {n001 HCA-1} LID:0005 PN:01 }
//   { SW Ports:24 SystemGUID:0002c90300688830 ... {MF0;leaf1:MSB7700/U1} LID:0002 PN:14 }
//   PHY=4x LOG=ACT SPD=10"
// An end's type is SW, CA, Rt or RTR, with "-SM" at the subnet manager's port; every number is
// hex, GUIDs without "0x" ("0x" is accepted), so "PN:14" is port 20 and "Ports:24" 36 ports.
// Nodes are known by their NodeGUID, as ibnetdiscover names them; a switch's PortGUID and LID
// are its port 0's. PHY is the width (1x, 2x, 4x, 8x, 12x; ?? or UNKNOWN unknown) and SPD the
// per-lane rate named as IB speeds: 2.5, 5, 10, FDR10, 14, 25, 50, 100, 200 are SDR to XDR;
// ??, UNKNOWN and EDR20 (no IB speed) are "???". Without SPD (files from before it was
// printed) the link is SDR, as ibdm reads it; KEY=VALUE words after SPD are ignored. LOG ACT,
// ARM or INI is a link; DWN, DOWN or UNKNOWN records both nodes but no link. ibdiagnet and
// opensm list each link from both ends (two lines); a link listed from one end only reads too.
// '#' comment lines are skipped, terminal capture wrappings too as ParseIbnetdiscover skips
// them, and the tools' own error lines become warnings. A node's port count is the largest
// "Ports:" of its records. Errors are appended to `*errors` as "file:line: <what>; expected
// <form>" (at most 50); returns true when there was none.
bool ParseIbdiagnetLst(std::string_view text, const std::string& filename, IbFabric* out,
                       Diags* errors);

// What ibdiagnet writes for `f`: node by node in `f`'s order, each port with a link from the
// lowest (so every link twice, once from each end), LOG=ACT, the width and rate of the view of
// the line's first end. An IbFabric keeps no system GUID, vendor, device or revision: the node
// GUID and zeros stand in. Port GUIDs and LIDs come from IbNode::addresses (a missing port GUID
// is the node GUID); a node's port count is its own or its highest linked port, the larger.
std::string WriteIbdiagnetLst(const IbFabric& f);

}  // namespace railguard::topo
