#!/usr/bin/env python3
"""Writes a sysfs tree of a DGX H100-like node for railcheck's tests and benchmark.

The layout is the one of tests/data/hwloc/gen_fixtures.py, so the two stay consistent:
  - 8 compute ConnectX-7 NICs (15b3:1021) named as in etc/dev-4su.yaml's node type
    (mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11), each on its own
    PCIe switch (Broadcom 1000:c030) beside one H100 SXM GPU (10de:2330, class 0x030200):
    root port 0000:<B-3>:01.0 -> switch upstream port 0000:<B-2>:00.0 -> downstream ports
    0000:<B-1>:00.0 (NIC at 0000:<B>:00.0) and 0000:<B-1>:01.0 (GPU at 0000:<B+3>:00.0),
  - two dual-port storage / in-band ConnectX-7 (mlx5_1, mlx5_2; mlx5_7, mlx5_8) on root
    ports, port 2 Ethernet; four NVSwitches (10de:22a3, class 0x068000) and the BMC's ASPEED
    VGA (1a03:2000, class 0x030000): NVIDIA or display functions that are not GPUs.

Every file railcheck reads has the kernel's exact format: ports/1/state "4: ACTIVE",
phys_state "5: LinkUp", rate "400 Gb/sec (4X NDR)", link_layer "InfiniBand",
current_link_speed "32.0 GT/s PCIe", current_link_width "16", the aer_dev_* files as in the
node_exporter capture ("RxErr 0" ... "TOTAL_ERR_COR 0"), and the links
class/infiniband/mlx5_0 -> ../../devices/pci0000:15/.../0000:18:00.0/infiniband/mlx5_0,
<that>/device -> ../../../0000:18:00.0 and bus/pci/devices/<bdf> -> ../../../devices/....

usage: make_sysfs.py OUT [--fault KIND:RAIL]... [--counter RAIL:NAME=VALUE]... [--idle-gpus]
                     [--fw RAIL:FW_VER] [--board RAIL:BOARD_ID]
  OUT must not exist or be empty. --idle-gpus: every GPU's link (the GPU and the switch
  downstream port above it) at 2.5 GT/s PCIe, as an idle NVIDIA GPU trains it (nvidia-smi -q
  shows "PCIe Generation Current: 1" against "Max: 5"); its width stays x16. --fw, --board: the
  fw_ver / board_id of rail RAIL's NIC (default 28.39.1002, MT_0000000838; mlx5's formats,
  drivers/infiniband/hw/mlx5/main.c: "%d.%d.%04d" and the PSID). Faults (RAIL is 0-7):
    rate-down    ports/1/rate 200 Gb/sec (2X NDR): the link trained on 2 of 4 lanes
    port-down    state 1: DOWN, phys_state 3: Disabled
    polling      state 1: DOWN, phys_state 2: Polling (no cable / far end down)
    errors       symbol_error 1500, port_rcv_errors 40, link_error_recovery 3
    flap         link_downed 3
    pcie-speed   the NIC's link (NIC and its downstream port) at 16.0 GT/s PCIe
    pcie-width   the NIC's link at x8
    aer-fatal    one fatal AER error (MalfTLP) on the NIC function
    gpu-missing  GPU RAIL gone from the bus (its folder and bus/pci/devices link)
    nic-missing  the NIC's infiniband device gone (mlx5_core did not probe it)
    hang         ports/1/rate is a FIFO: reading it blocks, as a hung driver read would
    gpu-width    the GPU's link (GPU and its downstream port) at x8 of x16
    gpu-speed    the GPU's link at 16.0 GT/s: above idle (2.5 GT/s), below its 32.0 GT/s max
    aer-link     the NIC's downstream port (its link partner) logged 60 correctable errors
                 (BadTLP 40, BadDLLP 20) and the NIC 60 (RxErr 60): each end alone below
                 100/h, the link above it
    aer-link-fatal  the NIC's downstream port logged fatal errors: DLP 1 and an unnamed bit
                 ("dev_fatal_errs_bit[6] 1", as drivers/pci/pcie/aer.c aer_stats_dev_attr
                 prints bits without a name), TOTAL_ERR_FATAL 2

The aer_dev_* files are printed as drivers/pci/pcie/aer.c (aer_stats_dev_attr) prints them:
one "NAME COUNT" line per named bit of aer_correctable_error_string /
aer_uncorrectable_error_string in bit order (zeros included), a "dev_cor_errs_bit[N] COUNT"
(dev_nonfatal_errs_bit, dev_fatal_errs_bit) line for a bit without a name only when its count
is not zero, then "TOTAL_ERR_COR COUNT" (TOTAL_ERR_NONFATAL, TOTAL_ERR_FATAL).
"""

import argparse
import os
import sys

COMPUTE = [
    (0x18, "mlx5_0"), (0x40, "mlx5_3"), (0x4f, "mlx5_4"), (0x5e, "mlx5_5"),
    (0x9a, "mlx5_6"), (0xc0, "mlx5_9"), (0xce, "mlx5_10"), (0xdc, "mlx5_11"),
]
STORAGE = [(0x29, "mlx5_1", "mlx5_2"), (0xaa, "mlx5_7", "mlx5_8")]
FAULTS = ["rate-down", "port-down", "polling", "errors", "flap", "pcie-speed", "pcie-width",
          "aer-fatal", "gpu-missing", "nic-missing", "hang", "gpu-width", "gpu-speed",
          "aer-link", "aer-link-fatal"]

PORT_COUNTERS = [
    "VL15_dropped", "excessive_buffer_overrun_errors", "link_downed", "link_error_recovery",
    "local_link_integrity_errors", "multicast_rcv_packets", "multicast_xmit_packets",
    "port_rcv_constraint_errors", "port_rcv_data", "port_rcv_errors", "port_rcv_packets",
    "port_rcv_remote_physical_errors", "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors", "port_xmit_data", "port_xmit_discards", "port_xmit_packets",
    "port_xmit_wait", "symbol_error", "unicast_rcv_packets", "unicast_xmit_packets",
]
HW_COUNTERS = [
    "duplicate_request", "implied_nak_seq_err", "local_ack_timeout_err", "out_of_buffer",
    "out_of_sequence", "packet_seq_err", "req_cqe_error", "req_cqe_flush_error",
    "req_remote_access_errors", "req_remote_invalid_request", "resp_cqe_error",
    "resp_local_length_error", "rnr_nak_retry_err", "rx_icrc_encapsulated",
    "rx_read_requests", "rx_write_requests",
]
# drivers/pci/pcie/aer.c: the names of the bits of the correctable and uncorrectable error
# status registers (None: a bit without a name), over the sizes of the aer_stats arrays
# (AER_MAX_TYPEOF_COR_ERRS 16, AER_MAX_TYPEOF_UNCOR_ERRS 27).
AER_CORRECTABLE = ["RxErr", None, None, None, None, None, "BadTLP", "BadDLLP", "Rollover",
                   None, None, None, "Timeout", "NonFatalErr", "CorrIntErr", "HeaderOF"]
AER_UNCORRECTABLE = ["Undefined", None, None, None, "DLP", "SDES", None, None, None, None,
                     None, None, "TLP", "FCP", "CmpltTO", "CmpltAbrt", "UnxCmplt", "RxOF",
                     "MalfTLP", "ECRC", "UnsupReq", "ACSViol", "UncorrIntErr", "BlockedTLP",
                     "AtomicOpBlocked", "TLPBlockedErr", "PoisonTLPBlocked"]

GEN5 = "32.0 GT/s PCIe"
GEN1 = "2.5 GT/s PCIe"


def bdf(bus, dev=0, func=0):
    return "0000:%02x:%02x.%x" % (bus, dev, func)


class Tree:
    def __init__(self, root):
        self.root = root

    def path(self, rel):
        return os.path.join(self.root, rel)

    def write(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def link(self, rel, target):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)


def aer_text(names, array, total_name, counts, total=None):
    """An aer_dev_* file: `counts` by bit name, or by "bit[N]" for a bit without a name;
    `total` (TOTAL_ERR_*) defaults to the sum (one error per event)."""
    lines = []
    for bit, name in enumerate(names):
        if name is not None:
            lines.append("%s %d" % (name, counts.get(name, 0)))
        elif counts.get("bit[%d]" % bit, 0):
            lines.append("%s_bit[%d] %d" % (array, bit, counts["bit[%d]" % bit]))
    lines.append("%s %d" % (total_name, sum(counts.values()) if total is None else total))
    return "\n".join(lines) + "\n"


def pci_function(tree, rel, vendor, device, klass, driver, speed=GEN5, width=16, aer=None):
    """A PCI function folder at devices/<rel> with its attributes and bus/pci link."""
    aer = aer or {}
    attrs = {
        "vendor": "0x%04x\n" % vendor, "device": "0x%04x\n" % device,
        "subsystem_vendor": "0x%04x\n" % vendor, "subsystem_device": "0x0000\n",
        "class": "0x%06x\n" % klass, "revision": "0x00\n", "enable": "1\n",
        "numa_node": "0\n", "local_cpulist": "0-55,112-167\n",
        "current_link_speed": speed + "\n", "max_link_speed": GEN5 + "\n",
        "current_link_width": "%d\n" % width, "max_link_width": "16\n",
        "aer_dev_correctable": aer_text(AER_CORRECTABLE, "dev_cor_errs", "TOTAL_ERR_COR",
                                        aer.get("correctable", {})),
        "aer_dev_nonfatal": aer_text(AER_UNCORRECTABLE, "dev_nonfatal_errs",
                                     "TOTAL_ERR_NONFATAL", aer.get("nonfatal", {})),
        "aer_dev_fatal": aer_text(AER_UNCORRECTABLE, "dev_fatal_errs", "TOTAL_ERR_FATAL",
                                  aer.get("fatal", {})),
    }
    name = os.path.basename(rel)
    attrs["uevent"] = "DRIVER=%s\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SLOT_NAME=%s\n" % (
        driver, klass, vendor, device, name)
    for k, v in attrs.items():
        tree.write("devices/%s/%s" % (rel, k), v)
    depth = rel.count("/") + 1
    tree.link("devices/%s/driver" % rel, "../" * (depth + 1) + "bus/pci/drivers/" + driver)
    os.makedirs(tree.path("bus/pci/drivers/" + driver), exist_ok=True)
    tree.link("bus/pci/devices/" + name, "../../../devices/" + rel)


def host_bridge(tree, name):
    tree.write("devices/%s/uevent" % name, "")


def ib_device(tree, pci_rel, name, node, rail, link_layer="InfiniBand", counters=None,
              rate="400 Gb/sec (4X NDR)", state="4: ACTIVE", phys="5: LinkUp", hang=False,
              fw="28.39.1002", board="MT_0000000838"):
    dev = "devices/%s/infiniband/%s" % (pci_rel, name)
    tree.link(dev + "/device", "../../../" + os.path.basename(pci_rel))
    guid = "e8eb:d303:00%02x:%04x" % (rail & 0xff, 0x2a2c + rail)
    for k, v in {"node_type": "1: CA\n", "node_guid": guid + "\n", "sys_image_guid": guid + "\n",
                 "fw_ver": fw + "\n", "hca_type": "MT4129\n", "board_id": board + "\n",
                 "node_desc": "%s %s\n" % (node, name)}.items():
        tree.write(dev + "/" + k, v)
    port = dev + "/ports/1"
    tree.write(port + "/state", state + "\n")
    tree.write(port + "/phys_state", phys + "\n")
    tree.write(port + "/link_layer", link_layer + "\n")
    if hang:
        os.makedirs(tree.path(port), exist_ok=True)
        os.mkfifo(tree.path(port + "/rate"))
    else:
        tree.write(port + "/rate", rate + "\n")
    tree.write(port + "/lid", "0x%x\n" % (0x10 + rail))
    tree.write(port + "/lid_mask_count", "0\n")
    tree.write(port + "/sm_lid", "0x1\n")
    tree.write(port + "/sm_sl", "0\n")
    tree.write(port + "/cap_mask", "0xa751e848\n")
    values = {n: 0 for n in PORT_COUNTERS}
    # Traffic counters: plausible, different per rail.
    values.update({"port_rcv_data": 91827364 * (rail + 1), "port_xmit_data": 81726354 * (rail + 1),
                   "port_rcv_packets": 5123456 + rail, "port_xmit_packets": 5234567 + rail,
                   "unicast_rcv_packets": 5100000 + rail, "unicast_xmit_packets": 5200000 + rail,
                   "multicast_rcv_packets": 93, "multicast_xmit_packets": 16,
                   "port_xmit_wait": 1234 * (rail + 1)})
    values.update(counters or {})
    for n, v in values.items():
        tree.write("%s/counters/%s" % (port, n), "%d\n" % v)
    for n in HW_COUNTERS:
        tree.write("%s/hw_counters/%s" % (port, n), "0\n")
    tree.write(port + "/hw_counters/lifespan", "12\n")
    tree.link("class/infiniband/" + name, "../../" + dev)


def build(out, faults, counters, node, idle_gpus=False, fw=None, board=None):
    fw = fw or {}
    board = board or {}
    tree = Tree(out)
    by_rail = {}
    for kind, rail in faults:
        by_rail.setdefault(rail, set()).add(kind)
    os.makedirs(tree.path("class/infiniband"), exist_ok=True)
    # BMC display and NVSwitches first: they sort before the GPUs on the bus.
    host_bridge(tree, "pci0000:00")
    pci_function(tree, "pci0000:00/0000:00:1c.0", 0x8086, 0x1bbc, 0x060400, "pcieport")
    pci_function(tree, "pci0000:00/0000:00:1c.0/0000:03:00.0", 0x1a03, 0x2000, 0x030000, "ast",
                 speed="5.0 GT/s PCIe", width=1)
    host_bridge(tree, "pci0000:04")
    for i in range(4):
        rp = "pci0000:04/%s" % bdf(0x04, i + 1)
        pci_function(tree, rp, 0x8086, 0x352a, 0x060400, "pcieport")
        pci_function(tree, "%s/%s" % (rp, bdf(0x05 + i)), 0x10de, 0x22a3, 0x068000, "nvidia")
    for rail, (bus, name) in enumerate(COMPUTE):
        kinds = by_rail.get(rail, set())
        host = "pci0000:%02x" % (bus - 3)
        host_bridge(tree, host)
        rp = "%s/%s" % (host, bdf(bus - 3, 1))
        up = "%s/%s" % (rp, bdf(bus - 2))
        dp_nic = "%s/%s" % (up, bdf(bus - 1, 0))
        dp_gpu = "%s/%s" % (up, bdf(bus - 1, 1))
        pci_function(tree, rp, 0x8086, 0x352a, 0x060400, "pcieport")
        pci_function(tree, up, 0x1000, 0xc030, 0x060400, "pcieport")
        speed = "16.0 GT/s PCIe" if "pcie-speed" in kinds else GEN5
        width = 8 if "pcie-width" in kinds else 16
        dp_aer = {}
        nic_aer = {}
        if "aer-link" in kinds:
            dp_aer["correctable"] = {"BadTLP": 40, "BadDLLP": 20}
            nic_aer["correctable"] = {"RxErr": 60}
        if "aer-link-fatal" in kinds:
            dp_aer["fatal"] = {"DLP": 1, "bit[6]": 1}
        if "aer-fatal" in kinds:
            nic_aer["fatal"] = {"MalfTLP": 1}
        pci_function(tree, dp_nic, 0x1000, 0xc030, 0x060400, "pcieport", speed=speed, width=width,
                     aer=dp_aer)
        gpu_speed = GEN1 if idle_gpus else GEN5
        if "gpu-speed" in kinds:
            gpu_speed = "16.0 GT/s PCIe"
        gpu_width = 8 if "gpu-width" in kinds else 16
        pci_function(tree, dp_gpu, 0x1000, 0xc030, 0x060400, "pcieport", speed=gpu_speed,
                     width=gpu_width)
        nic = "%s/%s" % (dp_nic, bdf(bus))
        pci_function(tree, nic, 0x15b3, 0x1021, 0x020700, "mlx5_core", speed=speed, width=width,
                     aer=nic_aer)
        if "gpu-missing" not in kinds:
            pci_function(tree, "%s/%s" % (dp_gpu, bdf(bus + 3)), 0x10de, 0x2330, 0x030200,
                         "nvidia", speed=gpu_speed, width=gpu_width)
        if "nic-missing" in kinds:
            continue
        c = {}
        if "errors" in kinds:
            c.update({"symbol_error": 1500, "port_rcv_errors": 40, "link_error_recovery": 3})
        if "flap" in kinds:
            c["link_downed"] = 3
        c.update(counters.get(rail, {}))
        state, phys, rate = "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)"
        if "port-down" in kinds:
            state, phys, rate = "1: DOWN", "3: Disabled", "10 Gb/sec (4X SDR)"
        if "polling" in kinds:
            state, phys, rate = "1: DOWN", "2: Polling", "10 Gb/sec (4X SDR)"
        if "rate-down" in kinds:
            rate = "200 Gb/sec (2X NDR)"
        ib_device(tree, nic, name, node, rail, counters=c, rate=rate, state=state, phys=phys,
                  hang="hang" in kinds, fw=fw.get(rail, "28.39.1002"),
                  board=board.get(rail, "MT_0000000838"))
    for bus, port1, port2 in STORAGE:
        host = "pci0000:%02x" % (bus - 1)
        host_bridge(tree, host)
        rp = "%s/%s" % (host, bdf(bus - 1, 1))
        pci_function(tree, rp, 0x8086, 0x352a, 0x060400, "pcieport")
        for func, name, ll in ((0, port1, "InfiniBand"), (1, port2, "Ethernet")):
            f = "%s/%s" % (rp, bdf(bus, 0, func))
            pci_function(tree, f, 0x15b3, 0x1021, 0x020700, "mlx5_core")
            ib_device(tree, f, name, node, 8 + func, link_layer=ll)


def parse_fault(text):
    kind, _, rail = text.partition(":")
    if kind not in FAULTS or not rail.isdigit() or not 0 <= int(rail) < len(COMPUTE):
        raise argparse.ArgumentTypeError(
            "expected KIND:RAIL with KIND one of %s and RAIL 0-7, got '%s'" %
            (", ".join(FAULTS), text))
    return kind, int(rail)


def parse_counter(text):
    try:
        rail, rest = text.split(":", 1)
        name, value = rest.split("=", 1)
        if name not in PORT_COUNTERS:
            raise ValueError
        return int(rail), name, int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            "expected RAIL:NAME=VALUE with a port counter NAME, got '%s'" % text)


def parse_rail_text(text):
    rail, sep, value = text.partition(":")
    if not sep or not rail.isdigit() or not 0 <= int(rail) < len(COMPUTE) or not value or \
            len(value) > 64 or not value.isprintable():
        raise argparse.ArgumentTypeError(
            "expected RAIL:TEXT with RAIL 0-7 and 1-64 printable characters, got '%s'" % text)
    return int(rail), value


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--fault", action="append", default=[], type=parse_fault)
    ap.add_argument("--counter", action="append", default=[], type=parse_counter)
    ap.add_argument("--node", default="n001", help="the host name in node_desc")
    ap.add_argument("--idle-gpus", action="store_true",
                    help="every GPU's link at 2.5 GT/s PCIe (idle power saving)")
    ap.add_argument("--fw", action="append", default=[], type=parse_rail_text,
                    help="RAIL:FW_VER, the fw_ver of rail RAIL's NIC")
    ap.add_argument("--board", action="append", default=[], type=parse_rail_text,
                    help="RAIL:BOARD_ID, the board_id of rail RAIL's NIC")
    args = ap.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        sys.exit("make_sysfs.py: %s is not empty" % args.out)
    counters = {}
    for rail, name, value in args.counter:
        counters.setdefault(rail, {})[name] = value
    build(args.out, args.fault, counters, args.node, idle_gpus=args.idle_gpus,
          fw=dict(args.fw), board=dict(args.board))


if __name__ == "__main__":
    main()
