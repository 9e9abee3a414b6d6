// SPDX-License-Identifier: GPL-2.0-or-later
// Reading a fabric baseline back from sweep JSON.
#include "fabric/baseline.h"

#include "wire/sweep_json.h"

namespace railguard::fabric {

const std::array<uint64_t, kCounterCount>* SweepBaseline::Find(uint64_t guid, int port) const {
  auto it = ports.find({guid, port});
  return it == ports.end() ? nullptr : &it->second;
}

namespace {

// The counters of every end `d` has them for, and its time.
void Take(const wire::SweepDocument& d, SweepBaseline* out) {
  out->time = d.summary.time;
  for (const wire::SweepLink& l : d.links)
    for (const wire::SweepEnd* e : {&l.a, &l.b})
      if (e->counters_read) out->ports[{e->guid, e->port}] = e->counters;
}

}  // namespace

bool ParseSweepBaseline(std::string_view text, const std::string& filename, SweepBaseline* out,
                        Diags* errors) {
  wire::SweepDocument d;
  if (!wire::ParseSweepDocument(text, filename, wire::SweepParts::kCounters, &d, errors))
    return false;
  Take(d, out);
  return true;
}

bool LoadSweepBaseline(const std::string& path, SweepBaseline* out, Diags* errors) {
  wire::SweepDocument d;
  if (!wire::LoadSweepDocument(path, wire::SweepParts::kCounters, &d, errors)) return false;
  Take(d, out);
  return true;
}

}  // namespace railguard::fabric
