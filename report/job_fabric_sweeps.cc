// SPDX-License-Identifier: GPL-2.0-or-later
#include "report/job_fabric_sweeps.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "base/file_util.h"

namespace railguard::report {
namespace {

std::string EndName(const wire::SweepEnd& e) { return e.name + " port " + std::to_string(e.port); }

}  // namespace

void AddJobSweeps(const std::vector<wire::SweepDocument>& sweeps, JobFabric* f) {
  const std::set<std::string> nodes(f->nodes.begin(), f->nodes.end());
  std::set<std::string> leaves;
  for (const JobFabricRow& r : f->rows)
    if (!r.leaf.empty()) leaves.insert(r.leaf);
  struct Seen {
    int sweeps = 0;
    double last = 0;
    const wire::SweepLink* link = nullptr;
    const wire::SweepFinding* finding = nullptr;
  };
  // By (link kind, a, a port, b, b port, finding kind), in the order first seen.
  std::map<std::tuple<std::string, std::string, int, std::string, int, std::string>, size_t> index;
  std::vector<Seen> seen;
  int read = 0;
  std::vector<const wire::SweepDocument*> in_window;
  // A sweep that began a little before the job's first Prolog reading and still ran then
  // counts: at a job's start the Prologs and a sweep run side by side (its wall time bounds
  // the end of its counter phase from above).
  for (const wire::SweepDocument& d : sweeps)
    if (d.summary.time + std::max(0.0, d.summary.seconds) >= f->start &&
        d.summary.time <= f->end + kSweepAfterJobSeconds)
      in_window.push_back(&d);
  std::sort(in_window.begin(), in_window.end(),
            [](const wire::SweepDocument* a, const wire::SweepDocument* b) {
              return a->summary.time < b->summary.time;
            });
  for (const wire::SweepDocument* d : in_window) {
    ++read;
    // The spines the job's leaves reach in this sweep: their core links are the job's too.
    std::set<std::string> spines;
    for (const wire::SweepLink& l : d->links)
      if (l.kind == "uplink" && leaves.count(l.a.name)) spines.insert(l.b.name);
    for (const wire::SweepLink& l : d->links) {
      const bool ours = (l.kind == "host" && nodes.count(l.host)) ||
                        (l.kind == "uplink" && leaves.count(l.a.name)) ||
                        (l.kind == "core" && spines.count(l.a.name));
      if (!ours) continue;
      for (const wire::SweepFinding& x : l.findings) {
        const auto key = std::make_tuple(l.kind, l.a.name, l.a.port, l.b.name, l.b.port, x.kind);
        auto [it, fresh] = index.emplace(key, seen.size());
        if (fresh) seen.push_back({});
        Seen& s = seen[it->second];
        ++s.sweeps;
        s.last = d->summary.time;
        s.link = &l;
        s.finding = &x;
      }
    }
  }
  for (const Seen& s : seen) {
    JobFabricFinding fd;
    fd.kind = "fabric";
    fd.node = s.link->kind == "host" ? s.link->host : std::string();
    fd.nic = s.link->hca;
    const std::string& kind = s.link->kind;
    fd.leaf = kind == "host" ? s.link->b.name : kind == "uplink" ? s.link->a.name : std::string();
    fd.rail = -1;
    const std::string& rail = s.link->rail;
    if (rail.size() > 4 && rail.compare(0, 4, "rail") == 0)
      fd.rail = std::atoi(rail.c_str() + 4);
    fd.message = s.finding->kind + " on " +
                 (kind == "host"     ? "host link "
                  : kind == "uplink" ? "uplink "
                                     : "core link ") +
                 EndName(s.link->a) + " - " + EndName(s.link->b) + " (" + s.finding->side +
                 " side) in " + std::to_string(s.sweeps) + " of " + std::to_string(read) +
                 " sweep(s) during the job: " + s.finding->message;
    f->findings.push_back(std::move(fd));
  }
  f->notes.push_back(read == 0 ? std::string("no fabric sweep ran during the job")
                               : std::to_string(read) + " fabric sweep(s) during the job: " +
                                     (seen.empty() ? std::string("nothing found on its links")
                                                   : std::to_string(seen.size()) +
                                                         " finding(s) on its links"));
}

bool ReadSweepsForJob(const std::string& dir, double start, double end,
                      std::vector<wire::SweepDocument>* out, Diags* errors) {
  std::vector<std::string> names;
  if (!ListFolder(dir, 100000, &names)) {
    errors->push_back({dir, 0, 0, std::string("cannot read: ") + std::strerror(errno) +
                                      "; expected a folder of sweep JSON files"});
    return false;
  }
  int sweeps = 0;
  for (const std::string& name : names) {
    if (name.size() <= 5 || name.compare(name.size() - 5, 5, ".json") != 0 || ++sweeps > 10000)
      continue;
    const std::string path = dir + "/" + name;
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    // To the nanosecond: a sweep written in the second the job began (a job's start is a
    // Prolog's reading, with its fraction) is not before it.
    const double mtime = static_cast<double>(st.st_mtim.tv_sec) + st.st_mtim.tv_nsec / 1e9;
    if (mtime < start || mtime > end + 2 * kSweepAfterJobSeconds) continue;
    wire::SweepDocument doc;
    if (wire::LoadSweepDocument(path, wire::SweepParts::kAll, &doc, errors))
      out->push_back(std::move(doc));
  }
  return true;
}

}  // namespace railguard::report
