// SPDX-License-Identifier: GPL-2.0-or-later
// Fabric simulator: the ibnetdiscover output a rail-optimized fabric built from a topology
// would print, with cabling faults injected on request. Feeds discovery tests and demos.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "topo/model.h"

namespace railguard::topo {

// The largest uplink, core, port or fault count the simulator takes.
constexpr int kMaxSimCount = 4096;

// The NodeDescription a ConnectX-7 keeps until rdma-ndd (or the admin) names it.
extern const char kDefaultHcaDescription[];
// The NodeDescription of a switch's SHARP aggregation node.
extern const char kSharpDescription[];

// Cabling faults. Rails are 0-based indexes; nodes and SUs are names from the topology.
struct SimFaults {
  struct Swap {  // the node's cables of two rails are swapped at the leaves
    std::string node;
    int rail_a = 0;
    int rail_b = 0;
  };
  struct NodeRail {  // one HCA of a node
    std::string node;
    int rail = 0;
  };
  struct SuRail {  // the leaves of one (SU, rail)
    std::string su;
    int rail = 0;
  };
  struct UplinkCut {  // `count` uplinks of one leaf are gone
    std::string su;
    int rail = 0;
    int count = 0;
  };
  struct CrossSu {  // one HCA is cabled to another SU's leaf of its rail (first free port)
    std::string node;
    int rail = 0;
    std::string su;
  };
  struct Slow {  // one HCA's link trains at `token` (e.g. "4xHDR") instead
    std::string node;
    int rail = 0;
    std::string token;
  };
  struct HostName {  // every HCA of `node` is described "<name> <nic>" ("localhost mlx5_0")
    std::string node;
    std::string name;
  };
  struct Move {  // one HCA is cabled to another port of its own leaf
    std::string node;
    int rail = 0;
    int port = 0;
  };
  struct ServiceGroup {  // a management leaf group: `hcas` leaves "<prefix>-leaf1".., each
                         // cabled once to every spine; hosts "<prefix>01".. with HCA k
                         // "<host> mlx5_<k>" on leaf k+1, port = host number
    std::string prefix;
    int hosts = 0;
    int hcas = 0;
  };
  struct Appliance {  // a non-compute host with one HCA "<host> mlx5_<k>" per listed rail,
                      // each on the SU's leaf of that rail, first free port after its hosts
    std::string host;
    std::string su;
    std::vector<int> rails;
  };
  std::vector<Swap> swaps;
  std::vector<NodeRail> drops;  // the HCA's cable is missing
  std::vector<CrossSu> cross_su;
  std::vector<SuRail> dropped_leaves;  // the leaf is missing, with all its cables
  std::vector<NodeRail> unnamed;       // the HCA keeps kDefaultHcaDescription
  std::vector<std::string> ufm_hosts;  // extra CAs "<host> mlx5_0" on the first spine
  int sharp_nodes = 0;                 // SHARP aggregation nodes on the first N leaves
  std::vector<UplinkCut> uplink_cuts;
  std::vector<Slow> slow_links;
  std::vector<HostName> host_names;   // host names left at a default, or shared by hosts
  std::vector<std::string> empty;     // nodes whose slot is empty: none of their HCAs exists
  std::vector<Appliance> appliances;  // UFM, storage, ... cabled to compute leaves
  std::vector<ServiceGroup> service_groups;  // login, controller, storage hosts on their leaves
  std::vector<Move> moves;
};

struct SimOptions {
  int uplinks = 1;  // cables from every leaf to every spine (of its plane, see rail_planes)
  // Spines in one plane per rail, as large rail-optimized fabrics build them: spine i serves
  // rail i % rails only, and each leaf is cabled to the spines of its rail's plane. REQUIRES
  // (else SimulateFabric fails): the spine count is a non-zero multiple of the rail count.
  bool rail_planes = false;
  // Core switches "core1".."coreN" above the spines (a third tier, so that rail planes are
  // one subnet): every spine cabled once to every core, on ports after its leaf ports. The
  // topology's own `cores` are used instead when it lists some (then this must be 0).
  int cores = 0;
  SimFaults faults;
};

// Gives every leaf and spine without a GUID the deterministic one SimulateFabric uses:
// 0xfc6a1c0300000000 | k << 24 | s << 8 | r for the k-th leaf (from 0) of rail r in the s-th SU
// (from 1; an SU of one leaf per rail has k = 0 only), and
// 0xfc6a1c03ff000000 | i for the i-th spine (from 1) and 0xfc6a1c03fc000000 | i for the i-th
// core switch (SimOptions::cores, or the topology's cores). Service group g (from 1) gets
// leaves 0xfc6a1c03fb000000 | g << 8 | k and hosts 0x0c42a103fb000000 | g << 16 | h << 8 | k.
// HCAs get 0x0c42a10300000000 | n << 8 | r
// (n-th node from 1, rail r), UFM hosts 0x0c42a103ff000000 | i << 8, SHARP nodes
// 0x0c42a103fe000000 | i, appliances 0x0c42a103fd000000 | i << 8 | k (k-th HCA).
void AssignSwitchGuids(Topology* topo);

// Writes to `*out` the ibnetdiscover output (default format) of the fabric `topo` describes:
// the leaves of each SU (several per rail when they have `nodes:`: one-hop domains), host i of
// a leaf's nodes (of the SU's when it has none) on its port i+1, each host's HCA of rail r on
// the leaf of its one-hop domain for r, the HCAs described
// "<node> <nic>" after the node type's NIC names, leaves and spines described
// "MF0;<name>:<model>/U1" after LeafName() and the spine names, every leaf cabled to every spine
// (of its rail's plane with `opts.rail_planes`) `opts.uplinks` times, link tokens after each rail's LinkSpec ("4xNDR"), and `opts.faults`
// applied. Switches without a port count get max(64, ports needed).
// REQUIRES: `topo` loaded and validated. Returns false with `*err` set when a fault names an
// unknown node, SU or rail, or when a switch has too few ports or two nodes share a GUID.
bool SimulateFabric(const Topology& topo, const SimOptions& opts, std::string* out,
                    std::string* err);

// Parses one fault flag's value against `topo` and appends it to `*faults`. `flag` is one of
// swap (NODE:RAILa:RAILb), drop (NODE:RAIL), drop-leaf (SU:RAIL), unnamed (NODE:RAIL),
// cross-su (NODE:RAIL:SU), ufm (HOST), sharp (N), drop-uplinks (SU:RAIL:N),
// slow (NODE:RAIL:WIDTHxSPEED), host-name (NODE:NAME; NAME may be "(none)"), empty (NODE),
// appliance (HOST:SU:RAIL[,RAIL...]), move (NODE:RAIL:PORT, a port no host of the leaf
// uses), service (PREFIX:HOSTS:HCAS, 1 to 254 hosts with 1 to 4
// HCAs). A RAIL is a
// rail index, a rail name or one of the node type's NIC names. Returns false with `*err`
// saying what is wrong and the expected form.
bool AddSimFault(const Topology& topo, const std::string& flag, const std::string& value,
                 SimFaults* faults, std::string* err);

}  // namespace railguard::topo
