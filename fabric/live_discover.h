// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery from the live fabric (railctl topology discover --live): the nodes libibnetdisc
// finds (a FabricSource's Discover) turned into the topo::IbFabric that ParseIbnetdiscover
// makes of ibnetdiscover's dump of the same fabric, so that the same inference runs on both.
#pragma once

#include <string>
#include <vector>

#include "fabric/sweep.h"
#include "topo/ibnet.h"

namespace railguard::fabric {

// The link token ibnetdiscover prints for an active width and speed: "4xHDR"; "??" for an
// unknown width and "???" for an unknown speed ("??x???").
std::string LinkToken(const LinkState& s);

// Builds `*out` from `nodes` (as FabricSource::Discover gives them) in the order ibnetdiscover
// prints them: every switch's record, then every CA's, then every router's, each kind in the
// order of `nodes`; a node is added at its first mention (its own record or a peer's port
// line), a link at its first end's record, whose view is token_a, the other end's token_b.
// Descriptions get ibnetdiscover's cleaning (non-printable bytes become spaces). Node and link
// lines are 0 (there is no text). A port whose peer is not among `nodes`, or two ports that
// do not name each other, is an error: false with `*err` naming both ends (what
// libibnetdisc never reports for a fabric it finished).
bool ToIbFabric(const std::vector<SweptNode>& nodes, topo::IbFabric* out, std::string* err);

// Discovers the fabric through `source` (Discover only: no PMA query) into `*out`; sets
// `*smps` to the SMPs used. false with `*err` when discovery or the conversion fails.
bool DiscoverLive(FabricSource* source, topo::IbFabric* out, int* smps, std::string* err);

}  // namespace railguard::fabric
