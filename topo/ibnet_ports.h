// SPDX-License-Identifier: GPL-2.0-or-later
// The ports report of `ibnetdiscover -p` (infiniband-diags): one line per port, read into an
// IbFabric and written from one.
#pragma once

#include <string>
#include <string_view>

#include "base/diag.h"
#include "topo/ib_fabric.h"

namespace railguard::topo {

// Parses a ports report held in `text`; `filename` names it in diagnostics. Each line is
// a port with a link (type SW, CA or RT, LID, port, port GUID, width and speed, then the same
// of the peer and both node descriptions),
//   "SW     2 19 0x0008f10500200b50 4x QDR - CA     1  1 0x0002c90300001235 ( 'sw1' - 'n1' )",
// or a port without one,
//   "SW     2 20 0x0008f10500200b50 4x SDR                                    'sw1'".
// The report names ports by port GUID, not node GUID: a switch is known by its ports' GUID
// (which is its node GUID on the switches we know of); a CA's or router's ports listed one
// after another, from the highest port down, with one description and GUIDs as far apart as
// their port numbers, are one node whose GUID is taken to be its lowest port's (the node GUID
// itself on ConnectX-4 and later, one below it on older HCAs). A node's port count is the
// highest port it lists. Terminal capture wrappings are skipped as ParseIbnetdiscover skips
// them, and the tools' own error lines become warnings. Errors are appended to `*errors` as
// "file:line: <what>; expected <form>" (at most 50); returns true when there was none.
bool ParseIbnetPorts(std::string_view text, const std::string& filename, IbFabric* out,
                     Diags* errors);

// The ports report of `f` as ibnetdiscover -p prints it: node by node in `f`'s order, ports
// from the highest down, a switch's every port and a CA's or router's linked ones, LIDs and
// port GUIDs from IbNode::addresses (a missing port GUID is the node GUID).
std::string WriteIbnetPorts(const IbFabric& f);

}  // namespace railguard::topo
