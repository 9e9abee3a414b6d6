// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/gather.h"

#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/file_util.h"
#include "base/numbers.h"
#include "healthcheck/gather_eth.h"
#include "healthcheck/read_fact.h"
#include "healthcheck/boot_id.h"

namespace railguard::health {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kNvidiaVendor = 0x10de;

Fact<std::string> ReadLinkLayer(const Sysfs& fs, const std::string& path) {
  return ReadFact<std::string>(fs, path,
                               [](const std::string& text, std::string* v, std::string* expected) {
                                 *expected = "InfiniBand or Ethernet";
                                 *v = Trimmed(text);
                                 return *v == "InfiniBand" || *v == "Ethernet";
                               });
}

// An identity text of the IB device: fw_ver, board_id (drivers/infiniband/core/sysfs.c
// fw_ver_show, at most IB_FW_VERSION_NAME_MAX 64 bytes; mlx5 board_id, MLX5_BOARD_ID_LEN 64):
// one line of 1 to 64 printable characters.
Fact<std::string> ReadNicText(const Sysfs& fs, const std::string& path, const char* example) {
  return ReadFact<std::string>(
      fs, path, [example](const std::string& text, std::string* v, std::string* expected) {
        *expected =
            std::string("one line of 1-64 printable characters such as \"") + example + "\"";
        *v = Trimmed(text);
        if (v->empty() || v->size() > 64 || v->find('\n') != std::string::npos) return false;
        for (char c : *v)
          if (c < 0x20 || c > 0x7e) return false;
        return true;
      });
}

Counter ReadCounter(const Sysfs& fs, const std::string& path) {
  Counter c;
  std::string text;
  std::string err;
  if (!fs.ReadFile(path, &text, &err)) {
    c.error = err;
    return c;
  }
  std::string expected;
  if (!ParseCounter(text, &c.value, &c.no_pma, &expected))
    c.error = path + ": got '" + Printable(Trimmed(text)) + "'; expected " + expected;
  return c;
}

// Every counter file of `dir` into `*out`; false with `*err` when the folder cannot be listed.
bool ReadCounters(const Sysfs& fs, const std::string& dir, bool skip_settings,
                  std::map<std::string, Counter>* out, std::string* err) {
  std::vector<std::string> names;
  if (!fs.ListDir(dir, &names, err)) return false;
  for (const std::string& name : names) {
    // hw_counters/lifespan is a setting (how long the driver caches the counters, in ms).
    if (skip_settings && name == "lifespan") continue;
    (*out)[name] = ReadCounter(fs, dir + "/" + name);
  }
  return true;
}

AerFact ReadAer(const Sysfs& fs, const std::string& path) {
  AerFact a;
  a.present = fs.Exists(path);
  if (a.present) a.value = ReadFact<AerValue>(fs, path, ParseAer);
  return a;
}

// The attributes of the function in `dir` (links resolved).
PciDevice ReadPciDevice(const Sysfs& fs, const std::string& dir) {
  PciDevice d;
  d.dir = dir;
  d.bdf = BaseName(dir);
  d.vendor = ReadFact<uint32_t>(fs, dir + "/vendor", ParseHexId);
  d.klass = ReadFact<uint32_t>(fs, dir + "/class", ParseHexId);
  d.has_link = fs.Exists(dir + "/current_link_speed");
  if (d.has_link) {
    d.cur_speed = ReadFact<PcieSpeedValue>(fs, dir + "/current_link_speed", ParsePcieSpeed);
    d.max_speed = ReadFact<PcieSpeedValue>(fs, dir + "/max_link_speed", ParsePcieSpeed);
    d.cur_width = ReadFact<int>(fs, dir + "/current_link_width", ParsePcieWidth);
    d.max_width = ReadFact<int>(fs, dir + "/max_link_width", ParsePcieWidth);
  }
  d.aer_correctable = ReadAer(fs, dir + "/aer_dev_correctable");
  d.aer_nonfatal = ReadAer(fs, dir + "/aer_dev_nonfatal");
  d.aer_fatal = ReadAer(fs, dir + "/aer_dev_fatal");
  return d;
}

// From the resolved folder of a PCI function up to its root port: the BDFs on the way into
// `*path`, the root complex folder name into `*host`, and each function's attributes into
// `*pci` (functions already there are not read again).
void WalkPciPath(const Sysfs& fs, const std::string& dir, std::vector<std::string>* path,
                 std::string* host, std::map<std::string, PciDevice>* pci) {
  std::string at = dir;
  while (IsBdf(BaseName(at))) {
    const std::string bdf = BaseName(at);
    path->push_back(bdf);
    if (!pci->count(bdf)) (*pci)[bdf] = ReadPciDevice(fs, at);
    at = ParentDir(at);
  }
  *host = BaseName(at);
}

void ReadPort(const Sysfs& fs, Verbs* verbs, const std::string& nic, const std::string& port_dir,
              PortFacts* p) {
  p->dir = port_dir;
  p->source = "sysfs";
  VerbsPort vp;
  std::string verr;
  if (verbs && verbs->QueryPort(nic, p->number, &vp, &verr)) {
    p->source = "verbs";
    const std::string from = "ibv_query_port(" + nic + ", " + std::to_string(p->number) + ")";
    p->state.value = PortStateValue{vp.state, vp.state_name};
    p->state.raw = std::to_string(vp.state) + ": " + vp.state_name;
    p->phys_state.value = PortStateValue{vp.phys_state, vp.phys_state_name};
    p->phys_state.raw = std::to_string(vp.phys_state) + ": " + vp.phys_state_name;
    if (vp.rate_known) {
      p->rate.value = RateValue{vp.gbps, vp.width, vp.speed};
      p->rate.raw =
          FormatNumber(vp.gbps) + " Gb/sec (" + std::to_string(vp.width) + "X " + vp.speed + ")";
    } else {
      // An encoding libibverbs' fields cannot name (XDR without active_speed_ex): the
      // kernel's rate file can.
      p->rate = ReadFact<RateValue>(fs, port_dir + "/rate", ParseRate);
    }
    p->link_layer.value = vp.link_layer;
    p->link_layer.raw = vp.link_layer;
  } else {
    p->state = ReadFact<PortStateValue>(fs, port_dir + "/state", ParsePortState);
    p->phys_state = ReadFact<PortStateValue>(fs, port_dir + "/phys_state", ParsePortState);
    p->rate = ReadFact<RateValue>(fs, port_dir + "/rate", ParseRate);
    p->link_layer = ReadLinkLayer(fs, port_dir + "/link_layer");
  }
  std::string err;
  if (!ReadCounters(fs, port_dir + "/counters", false, &p->counters, &err)) p->counters_error = err;
  if (fs.Exists(port_dir + "/hw_counters"))
    ReadCounters(fs, port_dir + "/hw_counters", true, &p->hw_counters, &err);
}

// --- the deadline: workers publish what they are reading -----------------------------------

// Shared by the caller and the workers; a worker that outlives the deadline keeps it alive.
struct Board {
  std::mutex mu;
  std::condition_variable cv;
  int pending = 0;
  std::vector<std::string> current;      // per worker: the path being (or last) read
  std::vector<bool> reading;             // per worker: inside a read of `current`
  std::vector<Clock::time_point> since;  // per worker: when that read began
  std::vector<bool> done;                // per worker
  std::vector<NicFacts> nics;            // worker k < nics.size(): rail k
  std::map<std::string, PciDevice> pci;  // merged from finished workers
  NodeFacts gpus;                        // the GPU worker's result
};

// One read of a worker, recorded in the board from before it starts until it returns: the
// deadline counts only the time a worker spends inside one read (a driver stuck in the kernel),
// not the time it waits for a CPU between reads (a busy node is slow, not broken).
class ReadScope {
 public:
  ReadScope(Board& board, size_t slot, const std::string& what) : board_(board), slot_(slot) {
    std::lock_guard<std::mutex> lock(board_.mu);
    board_.current[slot_] = what;
    board_.reading[slot_] = true;
    board_.since[slot_] = Clock::now();
  }
  ~ReadScope() {
    std::lock_guard<std::mutex> lock(board_.mu);
    board_.reading[slot_] = false;
  }
  ReadScope(const ReadScope&) = delete;
  ReadScope& operator=(const ReadScope&) = delete;

 private:
  Board& board_;
  size_t slot_;
};

// Records every path in the board while reading it, so a deadline can name it.
class TrackedSysfs : public Sysfs {
 public:
  TrackedSysfs(std::shared_ptr<const Sysfs> fs, std::shared_ptr<Board> board, size_t slot)
      : fs_(std::move(fs)), board_(std::move(board)), slot_(slot) {}

  bool ReadFile(const std::string& path, std::string* out, std::string* err) const override {
    ReadScope r(*board_, slot_, path);
    return fs_->ReadFile(path, out, err);
  }
  bool ListDir(const std::string& path, std::vector<std::string>* out,
               std::string* err) const override {
    ReadScope r(*board_, slot_, path);
    return fs_->ListDir(path, out, err);
  }
  bool Resolve(const std::string& path, std::string* out, std::string* err) const override {
    ReadScope r(*board_, slot_, path);
    return fs_->Resolve(path, out, err);
  }
  bool Exists(const std::string& path) const override {
    ReadScope r(*board_, slot_, path);
    return fs_->Exists(path);
  }

 private:

  std::shared_ptr<const Sysfs> fs_;
  std::shared_ptr<Board> board_;
  size_t slot_;
};

// The ethtool ioctl with each request recorded in the board first, as TrackedSysfs does
// (a driver's statistics read can block on a firmware command).
class TrackedEthtool : public EthtoolIoctl {
 public:
  TrackedEthtool(std::shared_ptr<EthtoolIoctl> io, std::shared_ptr<Board> board, size_t slot)
      : io_(std::move(io)), board_(std::move(board)), slot_(slot) {}

  bool StatsCount(const std::string& ifname, uint32_t* count, std::string* err) override {
    ReadScope r(*board_, slot_, "ioctl SIOCETHTOOL ETHTOOL_GSSET_INFO " + ifname);
    return io_->StatsCount(ifname, count, err);
  }
  bool StatNames(const std::string& ifname, uint32_t room, uint32_t* len, std::string* names,
                 std::string* err) override {
    ReadScope r(*board_, slot_, "ioctl SIOCETHTOOL ETHTOOL_GSTRINGS " + ifname);
    return io_->StatNames(ifname, room, len, names, err);
  }
  bool StatValues(const std::string& ifname, uint32_t room, uint32_t* n_stats,
                  std::vector<uint64_t>* values, std::string* err) override {
    ReadScope r(*board_, slot_, "ioctl SIOCETHTOOL ETHTOOL_GSTATS " + ifname);
    return io_->StatValues(ifname, room, n_stats, values, err);
  }

 private:

  std::shared_ptr<EthtoolIoctl> io_;
  std::shared_ptr<Board> board_;
  size_t slot_;
};

// libibverbs with each port query recorded in the board, as TrackedSysfs does.
class TrackedVerbs : public Verbs {
 public:
  TrackedVerbs(std::shared_ptr<Verbs> verbs, std::shared_ptr<Board> board, size_t slot)
      : verbs_(std::move(verbs)), board_(std::move(board)), slot_(slot) {}
  bool QueryPort(const std::string& name, int port, VerbsPort* out, std::string* err) override {
    ReadScope r(*board_, slot_,
                "ibv_query_port(" + name + ", " + std::to_string(port) + ")");
    return verbs_->QueryPort(name, port, out, err);
  }

 private:
  std::shared_ptr<Verbs> verbs_;
  std::shared_ptr<Board> board_;
  size_t slot_;
};

}  // namespace

bool IsBdf(const std::string& s) {
  // DDDD:BB:DD.F
  if (s.size() != 12 || s[4] != ':' || s[7] != ':' || s[10] != '.') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  return s[11] >= '0' && s[11] <= '7';
}

NicFacts GatherNic(const Sysfs& fs, Verbs* verbs, const std::string& root, int rail,
                   const std::string& name, std::map<std::string, PciDevice>* pci,
                   EthtoolIoctl* ethtool) {
  NicFacts n;
  n.rail = rail;
  n.name = name;
  const std::string dev = JoinPath(root, "class/infiniband/" + name);
  if (!fs.Exists(dev)) {
    n.missing = dev + " does not exist";
    return n;
  }
  n.present = true;
  n.fw_ver = ReadNicText(fs, dev + "/fw_ver", "28.39.1002");
  n.board_id_present = fs.Exists(dev + "/board_id");
  if (n.board_id_present) n.board_id = ReadNicText(fs, dev + "/board_id", "MT_0000000838");
  std::vector<std::string> ports;
  std::string err;
  if (!fs.ListDir(dev + "/ports", &ports, &err)) {
    n.port_error = err;
  } else {
    int lowest = 0;
    for (const std::string& p : ports) {
      long v = 0;
      if (ParseLong(p, 1, 255, &v) && (lowest == 0 || v < lowest)) lowest = static_cast<int>(v);
    }
    if (lowest == 0) {
      n.port_error = dev + "/ports has no port folder; expected one such as ports/1";
    } else {
      n.port.number = lowest;
      ReadPort(fs, verbs, name, dev + "/ports/" + std::to_string(lowest), &n.port);
      // RoCE: the IB counters mean little there; the netdev has the physical layer.
      if (n.port.link_layer.ok() && *n.port.link_layer.value == "Ethernet")
        n.eth = GatherEth(fs, ethtool, root, dev, lowest);
    }
  }
  std::string real;
  if (!fs.Resolve(dev + "/device", &real, &err)) {
    n.pci_error = err;
  } else if (!IsBdf(BaseName(real))) {
    n.pci_error = dev + "/device leads to " + real +
                  "; expected a PCI function such as "
                  "../../../0000:18:00.0";
  } else {
    n.pci = BaseName(real);
    WalkPciPath(fs, real, &n.pci_path, &n.host_bridge, pci);
  }
  return n;
}

void GatherGpus(const Sysfs& fs, const std::string& root, const std::vector<std::string>& gpu_pci,
                NodeFacts* out) {
  const std::string devices = JoinPath(root, "bus/pci/devices");
  std::vector<std::string> candidates;
  if (!gpu_pci.empty()) {
    out->gpu_source = "gpu_pci";
    candidates = gpu_pci;
  } else {
    out->gpu_source = "scan";
    std::vector<std::string> all;
    std::string err;
    if (!fs.ListDir(devices, &all, &err)) {
      out->gpu_error = err;
      return;
    }
    for (const std::string& bdf : all) {
      if (!IsBdf(bdf)) continue;
      std::string text;
      std::string expected;
      uint32_t vendor = 0;
      uint32_t klass = 0;
      if (!fs.ReadFile(devices + "/" + bdf + "/vendor", &text, &err) ||
          !ParseHexId(text, &vendor, &expected) || vendor != kNvidiaVendor)
        continue;
      if (!fs.ReadFile(devices + "/" + bdf + "/class", &text, &err) ||
          !ParseHexId(text, &klass, &expected))
        continue;
      // 0x0300xx VGA, 0x0302xx 3D controller (H100 SXM); NVSwitches are 0x0680xx.
      if ((klass >> 8) == 0x0300 || (klass >> 8) == 0x0302) candidates.push_back(bdf);
    }
  }
  for (size_t k = 0; k < candidates.size(); ++k) {
    GpuFacts g;
    g.index = static_cast<int>(k);
    g.bdf = candidates[k];
    const std::string link = devices + "/" + g.bdf;
    std::string real;
    std::string err;
    if (!fs.Exists(link)) {
      g.missing = link + " does not exist";
    } else if (!fs.Resolve(link, &real, &err)) {
      g.missing = err;
    } else {
      g.present = true;
      WalkPciPath(fs, real, &g.pci_path, &g.host_bridge, &out->pci);
    }
    out->gpus.push_back(std::move(g));
  }
}

NodeFacts Gather(const GatherSpec& spec, std::shared_ptr<const Sysfs> fs,
                 std::shared_ptr<Verbs> verbs) {
  const auto start = Clock::now();
  const size_t n_nics = spec.nics.size();
  auto board = std::make_shared<Board>();
  board->pending = static_cast<int>(n_nics + 1);
  board->current.assign(n_nics + 1, std::string());
  board->reading.assign(n_nics + 1, false);
  board->since.assign(n_nics + 1, start);
  board->done.assign(n_nics + 1, false);
  board->nics.resize(n_nics);

  auto launch = [&](size_t slot, auto work) {
    auto tracked = std::make_shared<TrackedSysfs>(fs, board, slot);
    try {
      std::thread([board, tracked, slot, work]() {
        work(*tracked);
        std::lock_guard<std::mutex> lock(board->mu);
        board->done[slot] = true;
        --board->pending;
        board->cv.notify_all();
      }).detach();
    } catch (const std::exception&) {
      // No thread to be had: read in this thread instead, without the deadline.
      work(*tracked);
      std::lock_guard<std::mutex> lock(board->mu);
      board->done[slot] = true;
      --board->pending;
    }
  };
  const std::string root = spec.sysfs_root;
  for (size_t k = 0; k < n_nics; ++k) {
    const std::string name = spec.nics[k];
    std::shared_ptr<EthtoolIoctl> eth =
        spec.ethtool ? std::make_shared<TrackedEthtool>(spec.ethtool, board, k) : nullptr;
    std::shared_ptr<Verbs> tv = verbs ? std::make_shared<TrackedVerbs>(verbs, board, k) : nullptr;
    launch(k, [board, tv, eth, root, k, name](const Sysfs& tfs) {
      std::map<std::string, PciDevice> pci;
      NicFacts nic = GatherNic(tfs, tv.get(), root, static_cast<int>(k), name, &pci, eth.get());
      std::lock_guard<std::mutex> lock(board->mu);
      board->nics[k] = std::move(nic);
      for (auto& kv : pci) board->pci.emplace(kv.first, std::move(kv.second));
    });
  }
  const std::vector<std::string> gpu_pci = spec.gpu_pci;
  const std::string boot_id_file = spec.boot_id_file;
  launch(n_nics, [board, root, gpu_pci, boot_id_file, gpus = spec.gpus](const Sysfs& tfs) {
    if (!gpus) return;
    NodeFacts g;
    if (!boot_id_file.empty()) g.boot_id = ReadFact<std::string>(tfs, boot_id_file, ParseBootId);
    GatherGpus(tfs, root, gpu_pci, &g);
    std::lock_guard<std::mutex> lock(board->mu);
    for (auto& kv : g.pci) board->pci.emplace(kv.first, std::move(kv.second));
    g.pci.clear();
    board->gpus = std::move(g);
  });

  NodeFacts out;
  out.node = spec.node;
  out.sysfs_root = spec.sysfs_root;
  const auto limit = std::chrono::milliseconds(spec.read_timeout_ms);
  const Clock::time_point give_up =
      start + (spec.total_timeout_ms > 0 ? std::chrono::milliseconds(spec.total_timeout_ms)
                                         : std::chrono::milliseconds(spec.read_timeout_ms));
  std::unique_lock<std::mutex> lock(board->mu);
  // Wait until every worker is done or stuck (in one read for read_timeout_ms), or give_up.
  for (;;) {
    if (board->pending == 0) break;
    const Clock::time_point now = Clock::now();
    if (now >= give_up) break;
    bool moving = false;
    Clock::time_point wake = std::min(give_up, now + limit);
    for (size_t k = 0; k <= n_nics; ++k) {
      if (board->done[k]) continue;
      if (!board->reading[k]) {
        moving = true;
      } else if (now - board->since[k] < limit) {
        moving = true;
        wake = std::min(wake, board->since[k] + limit);
      }
    }
    if (!moving) break;
    board->cv.wait_until(lock, wake);
  }
  for (size_t k = 0; k < n_nics; ++k) {
    if (board->done[k]) {
      out.nics.push_back(board->nics[k]);
      if (out.nics.back().port.source == "verbs") out.verbs_used = true;
    } else {
      NicFacts n;
      n.rail = static_cast<int>(k);
      n.name = spec.nics[k];
      n.complete = false;
      out.nics.push_back(std::move(n));
      out.timeouts.push_back(GatherTimeout{static_cast<int>(k),
                                           "rail" + std::to_string(k) + " " + spec.nics[k],
                                           board->current[k], spec.read_timeout_ms});
    }
  }
  if (board->done[n_nics]) {
    out.gpu_source = board->gpus.gpu_source;
    out.gpu_error = board->gpus.gpu_error;
    out.gpus = board->gpus.gpus;
    out.boot_id = board->gpus.boot_id;
  } else {
    out.gpus_complete = false;
    out.timeouts.push_back(GatherTimeout{-1, "gpus", board->current[n_nics], spec.read_timeout_ms});
  }
  out.pci = board->pci;
  lock.unlock();
  out.gather_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

}  // namespace railguard::health
