#!/usr/bin/env python3
"""Writes the hwloc XML fixtures used by tests/topo/hwloc_rails_test.cc.

Every fixture comes from one DGX H100-shaped layout, so they stay consistent:
  - 2 packages (4 cores x 2 PUs each here; a real 8480C has 56 cores, trimmed to keep the
    files small: the CPU side plays no part in rail order),
  - 8 H100 SXM GPUs (10de:2330, class 0x0302), each beside one ConnectX-7 (15b3:1021,
    class 0x0207) behind its own PCIe switch (1000:c030); GPU k sits at NIC bus + 3,
  - compute NIC names and bus numbers as in the DGX H100 user guide's port table
    (ibp24s0 = mlx5_0 = bus 0x18 for GPU 0, ..., ibp220s0 = mlx5_11 = bus 0xdc for GPU 7),
  - two dual-port ConnectX-7 storage / in-band cards on root ports (mlx5_1, mlx5_2 at
    0000:29:00.x; mlx5_7, mlx5_8 at 0000:aa:00.x), port 1 InfiniBand, port 2 Ethernet,
  - four NVSwitches (10de:22a3, class 0x0680) and the BMC's ASPEED VGA (1a03:2000 with a
    "card0" DRM device): NVIDIA or display functions that are not GPUs.

Usage: gen_fixtures.py [--verify]   (writes next to this script; --verify loads each XML
file with `lstopo --input FILE --of xml -` and fails if hwloc rejects it)
"""

import copy
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CORES_PER_PACKAGE = 4
PUS = 2 * 2 * CORES_PER_PACKAGE  # packages x threads x cores

# (NIC bus, NIC name) per GPU, in GPU order; the GPU sits at NIC bus + 3 on the same switch.
COMPUTE = [
    (0x18, "mlx5_0"), (0x40, "mlx5_3"), (0x4f, "mlx5_4"), (0x5e, "mlx5_5"),
    (0x9a, "mlx5_6"), (0xc0, "mlx5_9"), (0xce, "mlx5_10"), (0xdc, "mlx5_11"),
]
STORAGE = [(0x29, "mlx5_1", "mlx5_2"), (0xaa, "mlx5_7", "mlx5_8")]  # (bus, port 1, port 2)

GEN5_X16 = "63.015385"  # GB/s, as hwloc reports a 32 GT/s x16 link


# --- layout: plain data that the variants edit ---------------------------------------------

def gpu(bus, pci_type=True, nvml=True):
    return {"kind": "gpu", "bus": bus, "pci_type": pci_type, "nvml": nvml}


def nic(bus, name, func=0, ethernet=False, card=False):
    """card: one function of a multi-port card, whose netdev names carry the function."""
    return {"kind": "nic", "bus": bus, "func": func, "name": name, "ethernet": ethernet,
            "card": card}


def dgx_layout():
    """Per package, a list of I/O trees: ("switch", root bus, endpoints) puts each endpoint on
    its own downstream port of one PCIe switch; ("card", root bus, functions) puts the
    functions of one card directly on a root port."""
    packages = [[], []]
    for bus, name in COMPUTE:
        packages[0 if bus < 0x80 else 1].append(
            ["switch", bus - 4, [nic(bus, name), gpu(bus + 3)]])
    for bus, port1, port2 in STORAGE:
        packages[0 if bus < 0x80 else 1].append(
            ["card", bus - 1, [nic(bus, port1, func=0, card=True),
                               nic(bus, port2, func=1, ethernet=True, card=True)]])
    packages[0].insert(0, ["nvswitches", 0x04, [0x05, 0x06, 0x07, 0x08]])
    packages[0].insert(0, ["bmc", 0x00, [0x03]])
    return packages


def find_switch(packages, nic_name):
    for trees in packages:
        for tree in trees:
            if tree[0] == "switch" and any(e.get("name") == nic_name for e in tree[2]):
                return trees, tree
    raise KeyError(nic_name)


# --- XML rendering ------------------------------------------------------------------------

class Writer:
    def __init__(self):
        self.lines = []
        self.gp_index = 0

    def open(self, depth, attrs, infos=(), leaf=False):
        self.gp_index += 1
        # Where hwloc's own export puts gp_index: after the sets, or right after the type.
        fields = [("type", attrs[0])] + list(attrs[1:])
        at = max([i + 1 for i, (k, _) in enumerate(fields) if k.endswith("nodeset")] or [1])
        fields.insert(at, ("gp_index", str(self.gp_index)))
        text = " ".join('%s="%s"' % kv for kv in fields)
        pad = "  " * depth
        if leaf and not infos:
            self.lines.append("%s<object %s/>" % (pad, text))
            return
        self.lines.append("%s<object %s>" % (pad, text))
        for name, value in infos:
            self.lines.append('%s  <info name="%s" value="%s"/>' % (pad, name, value))
        if leaf:
            self.close(depth)

    def close(self, depth):
        self.lines.append("%s</object>" % ("  " * depth))


def busid(bus, dev=0, func=0):
    return "0000:%02x:%02x.%x" % (bus, dev, func)


def pci_attrs(bus, dev, func, cls, vendor, device, subvendor, subdevice, rev):
    return [("pci_busid", busid(bus, dev, func)),
            ("pci_type", "%04x [%04x:%04x] [%04x:%04x] %02x" % (
                cls, vendor, device, subvendor, subdevice, rev)),
            ("pci_link_speed", GEN5_X16)]


def bridge(w, depth, level, secondary, subordinate, bus=None, dev=0, vendor=0x8086,
           device=0x352a):
    if bus is None:  # host bridge
        w.open(depth, ["Bridge", ("bridge_type", "0-1"), ("depth", "0"),
                       ("bridge_pci", "0000:[%02x-%02x]" % (secondary, subordinate))])
        return
    w.open(depth, ["Bridge", ("bridge_type", "1-1"), ("depth", str(level)),
                   ("bridge_pci", "0000:[%02x-%02x]" % (secondary, subordinate))] +
           pci_attrs(bus, dev, 0, 0x0604, vendor, device, 0, 0, 0))


def write_gpu(w, depth, endpoint, index):
    if endpoint["pci_type"]:
        attrs = pci_attrs(endpoint["bus"], 0, 0, 0x0302, 0x10de, 0x2330, 0x10de, 0x16c1, 0xa1)
    else:  # class and ids unknown, written the way hwloc exports them
        attrs = pci_attrs(endpoint["bus"], 0, 0, 0, 0, 0, 0, 0, 0)
    w.open(depth, ["PCIDev"] + attrs, [("PCIVendor", "NVIDIA Corporation"),
                                        ("PCIDevice", "GH100 [H100 SXM5 80GB]")])
    model = ("GPUVendor", "NVIDIA Corporation"), ("GPUModel", "NVIDIA H100 80GB HBM3")
    w.open(depth + 1, ["OSDev", ("name", "cuda%d" % index), ("subtype", "CUDA"),
                       ("osdev_type", "5")],
           [("CoProcType", "CUDA"), ("Backend", "CUDA")] + list(model), leaf=True)
    if endpoint["nvml"]:
        w.open(depth + 1, ["OSDev", ("name", "nvml%d" % index), ("osdev_type", "1")],
               [("Backend", "NVML")] + list(model), leaf=True)
    w.close(depth)


def write_nic(w, depth, endpoint):
    bus, func = endpoint["bus"], endpoint["func"]
    cls = 0x0200 if endpoint["ethernet"] else 0x0207
    w.open(depth, ["PCIDev"] + pci_attrs(bus, 0, func, cls, 0x15b3, 0x1021, 0x15b3, 0x0023, 0),
           [("PCIVendor", "Mellanox Technologies"),
            ("PCIDevice", "MT2910 Family [ConnectX-7]")])
    serial = int(endpoint["name"].split("_")[1])
    guid = "a088:c203:00%02x:%02x%02x" % (bus, serial, func)
    suffix = "f%d" % func if endpoint["card"] else ""
    if endpoint["ethernet"]:
        netdev = "enp%ds0%snp%d" % (bus, suffix, func)
        address = "58:a2:e1:%02x:%02x:%02x" % (bus, serial, func)
    else:
        netdev = "ibp%ds0%s" % (bus, suffix)
        address = "00:00:10:49:fe:80:00:00:00:00:00:00:" + ":".join(
            guid.replace(":", "")[i:i + 2] for i in range(0, 16, 2))
    w.open(depth + 1, ["OSDev", ("name", netdev), ("osdev_type", "2")],
           [("Address", address), ("Port", "1")], leaf=True)
    w.open(depth + 1, ["OSDev", ("name", endpoint["name"]), ("osdev_type", "3")],
           [("NodeGUID", guid), ("SysImageGUID", guid), ("Port1State", "4"),
            ("Port1LID", "0x%x" % (0x100 + bus)), ("Port1LMC", "0"),
            ("Port1GID0", "fe80:0000:0000:0000:" + guid)], leaf=True)
    w.close(depth)


def write_tree(w, depth, tree, gpu_index):
    kind, root = tree[0], tree[1]
    if kind == "bmc":
        vga_bus = tree[2][0]
        bridge(w, depth, 0, root, vga_bus)
        bridge(w, depth + 1, 1, vga_bus - 1, vga_bus, bus=root, dev=0x1c, device=0x1bbc)
        bridge(w, depth + 2, 2, vga_bus, vga_bus, bus=vga_bus - 1, vendor=0x1a03,
               device=0x1150)
        w.open(depth + 3, ["PCIDev"] + pci_attrs(vga_bus, 0, 0, 0x0300, 0x1a03, 0x2000,
                                                 0x1a03, 0x2000, 0x52),
               [("PCIVendor", "ASPEED Technology, Inc."),
                ("PCIDevice", "ASPEED Graphics Family")])
        w.open(depth + 4, ["OSDev", ("name", "card0"), ("osdev_type", "1")], leaf=True)
        for d in (depth + 3, depth + 2, depth + 1, depth):
            w.close(d)
        return
    if kind == "nvswitches":
        buses = tree[2]
        bridge(w, depth, 0, root, max(buses))
        for port, bus in enumerate(buses, start=1):
            bridge(w, depth + 1, 1, bus, bus, bus=root, dev=port)
            w.open(depth + 2, ["PCIDev"] + pci_attrs(bus, 0, 0, 0x0680, 0x10de, 0x22a3,
                                                     0x10de, 0x1796, 0xa1),
                   [("PCIVendor", "NVIDIA Corporation"), ("PCIDevice", "GH100 [H100 NVSwitch]")],
                   leaf=True)
            w.close(depth + 1)
        w.close(depth)
        return
    endpoints = tree[2]
    last = max(e["bus"] for e in endpoints)
    bridge(w, depth, 0, root, last)
    if kind == "card":
        bridge(w, depth + 1, 1, root + 1, last, bus=root, dev=1)
        for e in endpoints:
            write_nic(w, depth + 2, e)
        w.close(depth + 1)
        w.close(depth)
        return
    # A switch: root port -> upstream port -> one downstream port per endpoint.
    bridge(w, depth + 1, 1, root + 1, last, bus=root, dev=1)
    bridge(w, depth + 2, 2, root + 2, last, bus=root + 1, vendor=0x1000, device=0xc030)
    for port, e in enumerate(endpoints):
        bridge(w, depth + 3, 3, e["bus"], e["bus"], bus=root + 2, dev=port, vendor=0x1000,
               device=0xc030)
        if e["kind"] == "gpu":
            write_gpu(w, depth + 4, e, gpu_index[e["bus"]])
        else:
            write_nic(w, depth + 4, e)
        w.close(depth + 3)
    for d in (depth + 2, depth + 1, depth):
        w.close(d)


def cpuset(bits):
    return "0x%08x" % bits


def render(packages):
    gpu_buses = sorted(e["bus"] for trees in packages for t in trees
                       if t[0] == "switch" for e in t[2] if e["kind"] == "gpu")
    gpu_index = {bus: i for i, bus in enumerate(gpu_buses)}
    w = Writer()
    w.lines += ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">', '<topology version="2.0">']
    all_pus = (1 << PUS) - 1
    w.open(1, ["Machine", ("os_index", "0"), ("cpuset", cpuset(all_pus)),
               ("complete_cpuset", cpuset(all_pus)), ("allowed_cpuset", cpuset(all_pus)),
               ("nodeset", cpuset(3)), ("complete_nodeset", cpuset(3)),
               ("allowed_nodeset", cpuset(3))],
           [("DMIProductName", "DGXH100"), ("DMIBoardVendor", "NVIDIA"), ("Backend", "Linux"),
            ("OSName", "Linux"), ("Architecture", "x86_64"), ("HostName", "dgx-fixture"),
            ("hwlocVersion", "2.9.0")])
    half = PUS // 2
    for p, trees in enumerate(packages):
        cores = [p * CORES_PER_PACKAGE + c for c in range(CORES_PER_PACKAGE)]
        bits = sum((1 << c) | (1 << (c + half)) for c in cores)
        sets = [("cpuset", cpuset(bits)), ("complete_cpuset", cpuset(bits)),
                ("nodeset", cpuset(1 << p)), ("complete_nodeset", cpuset(1 << p))]
        w.open(2, ["Package", ("os_index", str(p))] + sets,
               [("CPUVendor", "GenuineIntel"), ("CPUModel", "Intel(R) Xeon(R) Platinum 8480CL")])
        w.open(3, ["NUMANode", ("os_index", str(p))] + sets +
               [("local_memory", "1081241755648")], leaf=True)
        w.open(3, ["L3Cache", ("os_index", str(p))] + sets +
               [("cache_size", "110100480"), ("depth", "3"), ("cache_linesize", "64"),
                ("cache_associativity", "15"), ("cache_type", "0")])
        for c in cores:
            core_bits = (1 << c) | (1 << (c + half))
            core_sets = [("cpuset", cpuset(core_bits)), ("complete_cpuset", cpuset(core_bits)),
                         ("nodeset", cpuset(1 << p)), ("complete_nodeset", cpuset(1 << p))]
            w.open(4, ["L2Cache", ("os_index", str(c))] + core_sets +
                   [("cache_size", "2097152"), ("depth", "2"), ("cache_linesize", "64"),
                    ("cache_associativity", "16"), ("cache_type", "0")])
            w.open(5, ["L1Cache", ("os_index", str(c))] + core_sets +
                   [("cache_size", "49152"), ("depth", "1"), ("cache_linesize", "64"),
                    ("cache_associativity", "12"), ("cache_type", "1")])
            w.open(6, ["Core", ("os_index", str(c))] + core_sets)
            for pu in (c, c + half):
                pu_bits = 1 << pu
                w.open(7, ["PU", ("os_index", str(pu)), ("cpuset", cpuset(pu_bits)),
                           ("complete_cpuset", cpuset(pu_bits)), ("nodeset", cpuset(1 << p)),
                           ("complete_nodeset", cpuset(1 << p))], leaf=True)
            for d in (6, 5, 4):
                w.close(d)
        w.close(3)
        for tree in trees:
            write_tree(w, 3, tree, gpu_index)
        w.close(2)
    w.close(1)
    w.lines.append("</topology>")
    return "\n".join(w.lines) + "\n"


# --- the fixtures --------------------------------------------------------------------------

def dgx_h100():
    return dgx_layout()


def dgx_h100_roce():
    """Compute NICs in Ethernet mode (RoCE). The GPU functions have unknown (all-zero) class
    and ids, so only their cuda OS devices say they are GPUs."""
    packages = dgx_layout()
    for trees in packages:
        for tree in trees:
            if tree[0] != "switch":
                continue
            for e in tree[2]:
                if e["kind"] == "nic":
                    e["ethernet"] = True
                else:
                    e["pci_type"] = False
                    e["nvml"] = False
    return packages


def gpu_without_nic():
    """mlx5_9 dropped off the bus: GPU 5 (0000:c3:00.0) is alone behind its switch."""
    packages = dgx_layout()
    _, tree = find_switch(packages, "mlx5_9")
    tree[2] = [e for e in tree[2] if e["kind"] != "nic"]
    return packages


def ambiguous_pairing():
    """GPUs 0 and 1 share one switch with mlx5_0 and mlx5_3, each on its own downstream port:
    both NICs are equally near both GPUs."""
    packages = dgx_layout()
    trees, tree1 = find_switch(packages, "mlx5_3")
    trees.remove(tree1)
    _, tree0 = find_switch(packages, "mlx5_0")
    tree0[2] = [nic(0x18, "mlx5_0"), nic(0x19, "mlx5_3"), gpu(0x1b), gpu(0x1c)]
    return packages


def shared_nic():
    """GPU 1 moved under GPU 0's switch (0000:1c:00.0): both GPUs are nearest to mlx5_0, and
    mlx5_3 is left alone behind the old switch."""
    packages = dgx_layout()
    _, tree1 = find_switch(packages, "mlx5_3")
    tree1[2] = [e for e in tree1[2] if e["kind"] != "gpu"]
    _, tree0 = find_switch(packages, "mlx5_0")
    tree0[2].append(gpu(0x1c))
    return packages


def no_gpus():
    """The same board without GPUs or NVSwitches, as on a CPU-only service node."""
    packages = dgx_layout()
    for trees in packages:
        for tree in list(trees):
            if tree[0] == "nvswitches":
                trees.remove(tree)
            elif tree[0] == "switch":
                tree[2] = [e for e in tree[2] if e["kind"] != "gpu"]
    return packages


def no_io():
    """The board as 'lstopo --no-io --of xml' exports it: CPUs and memory only."""
    return [[], []]


# A common mistake: handing over `nvidia-smi topo -m` output instead of an hwloc export.
NOT_XML = """\
\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity
GPU0\t X \tNV18\tPIX\tSYS\t0-55,112-167\t0
GPU1\tNV18\t X \tSYS\tPIX\t0-55,112-167\t0
NIC0\tPIX\tSYS\t X \tSYS
NIC1\tSYS\tPIX\tSYS\t X

NIC Legend:

  NIC0: mlx5_0
  NIC1: mlx5_3
"""

FIXTURES = {
    "dgx-h100.xml": dgx_h100,
    "dgx-h100-roce.xml": dgx_h100_roce,
    "gpu-without-nic.xml": gpu_without_nic,
    "ambiguous-pairing.xml": ambiguous_pairing,
    "shared-nic.xml": shared_nic,
    "no-gpus.xml": no_gpus,
    "no-io.xml": no_io,
}


def main(argv):
    verify = "--verify" in argv[1:]
    for name, make in FIXTURES.items():
        path = os.path.join(HERE, name)
        with open(path, "w") as f:
            f.write(render(copy.deepcopy(make())))
        if verify:
            subprocess.run(["lstopo", "--input", path, "--of", "xml", "-"], check=True,
                           stdout=subprocess.DEVNULL)
    with open(os.path.join(HERE, "not-xml.xml"), "w") as f:
        f.write(NOT_XML)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
