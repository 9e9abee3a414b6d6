// SPDX-License-Identifier: GPL-2.0-or-later
// A fabric audited against the plan it was cabled from: the rail topology YAML (its leaves by
// name, and by GUID where the YAML gives one) against a capture in any format
// (topo/capture.h) or the live fabric. Discovery (topo/discover.h) infers a plan from the
// capture and checks the capture against itself; this checks it against the admin's.
#pragma once

#include <vector>

#include "topo/discover.h"
#include "topo/ib_fabric.h"
#include "topo/model.h"

namespace railguard::topo {

// Every difference between `plan` and `fabric`, as Findings (node, hca, switch_name, guid and
// port where they apply) grouped by kind in this order, then in the plan's node order:
//   missing-switch  a leaf of the plan is not in the fabric (matched by GUID when the plan
//                   gives one, else by the name in the switch's NodeDescription, "su1-rail3"
//                   or "MF0;su1-rail3:MQM9700/U1"); its nodes' rails are not judged further
//   missing-hca     a node's NIC of a rail ("<node> <nic>" as its NodeDescription) is not in
//                   the fabric
//   missing-link    that NIC is there but has no link to a switch
//   swapped         two NICs each cabled to the leaf the other should be on: one finding for
//                   the pair, both ends named
//   wrong-leaf      a NIC cabled to another switch than its rail's leaf (both named, with
//                   the port it is on)
//   moved           a NIC on its rail's leaf but not on the port the plan gives it (a leaf's
//                   first_port: its i-th node in host order on first_port + i); two NICs on
//                   each other's ports are one finding
//   wrong-speed     a NIC's link trains below its rail's link (width or speed)
//   extra           a CA cabled to a leaf of the plan that the plan does not put there (a
//                   host not in the plan, or a NIC of another rail not reported above)
// Ports are judged only on leaves whose plan gives `first_port`; elsewhere a cable on another
// port of the right leaf is not a difference. Empty when the fabric is cabled as planned.
std::vector<Finding> AuditAgainstPlan(const Topology& plan, const IbFabric& fabric);

}  // namespace railguard::topo
