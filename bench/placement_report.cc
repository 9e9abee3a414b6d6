// SPDX-License-Identifier: GPL-2.0-or-later
#include "bench/placement_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include "topo/hostlist.h"
#include "wire/extra_json.h"

namespace railguard::bench {
namespace {

constexpr char kJobPrefix[] = "rgb-";

std::string FileLine(const std::string& name, int line) {
  return name + ":" + std::to_string(line) + ": ";
}

// "YYYY-MM-DDTHH:MM:SS" as seconds, read as UTC.
bool ParseTime(const std::string& s, int64_t* out) {
  static const char kForm[] = "dddd-dd-ddTdd:dd:dd";
  if (s.size() != sizeof kForm - 1) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (kForm[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != kForm[i]) return false;
  }
  auto num = [&](size_t pos, size_t len) { return std::stoi(s.substr(pos, len)); };
  std::tm tm{};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(5, 2) - 1;
  tm.tm_mday = num(8, 2);
  tm.tm_hour = num(11, 2);
  tm.tm_min = num(14, 2);
  tm.tm_sec = num(17, 2);
  if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60) {
    return false;
  }
  *out = static_cast<int64_t>(timegm(&tm));
  return true;
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

// Nearest rank: the smallest value with at least p of the values at or below it.
double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string Share(int part, int whole) {
  if (whole == 0) return "-";
  return std::to_string(part) + "/" + std::to_string(whole) +
         Fmt(" (%.1f%%)", 100.0 * part / whole);
}

}  // namespace

bool ParseJobComp(std::string_view text, const std::string& name, std::vector<JobRecord>* out,
                  std::string* err) {
  out->clear();
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // KEY=VALUE tokens; a token without '=' continues the previous value (a space in it).
    std::map<std::string, std::string> kv;
    std::string last;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && line[i] == ' ') ++i;
      size_t start = i;
      while (i < line.size() && line[i] != ' ') ++i;
      if (i == start) break;
      std::string tok(line.substr(start, i - start));
      size_t eq = tok.find('=');
      if (eq == std::string::npos || eq == 0) {
        if (!last.empty()) kv[last] += " " + tok;
        continue;
      }
      last = tok.substr(0, eq);
      kv[last] = tok.substr(eq + 1);
    }
    if (kv.empty()) continue;  // blank line
    const std::string at = FileLine(name, line_no);
    for (const char* key :
         {"JobId", "Name", "JobState", "SubmitTime", "StartTime", "EndTime", "NodeList"}) {
      if (kv.find(key) == kv.end()) {
        *err = at + "no " + key + "=; expected a jobcomp/filetxt record (JobId=... Name=... " +
               "JobState=... StartTime=... EndTime=... NodeList=... SubmitTime=...)";
        return false;
      }
    }
    JobRecord r;
    r.line = line_no;
    const std::string& id = kv["JobId"];
    char* end = nullptr;
    unsigned long v = std::strtoul(id.c_str(), &end, 10);
    if (id.empty() || *end != '\0' || id[0] < '0' || id[0] > '9' || v == 0 || v > 0xfffffffful) {
      *err = at + "JobId '" + id + "'; expected a job number from 1 to 4294967295";
      return false;
    }
    r.job_id = static_cast<uint32_t>(v);
    r.name = kv["Name"];
    r.state = kv["JobState"];
    r.node_list = kv["NodeList"];
    for (const char* key : {"SubmitTime", "StartTime", "EndTime"}) {
      const std::string& value = kv[key];
      int64_t t = 0;
      if (std::string(key) == "StartTime" && value == "Unknown") {
        r.start = -1;
        continue;
      }
      if (!ParseTime(value, &t)) {
        *err = at + key + " '" + value + "'; expected a time YYYY-MM-DDTHH:MM:SS" +
               (std::string(key) == "StartTime" ? " or Unknown" : "");
        return false;
      }
      if (std::string(key) == "SubmitTime") r.submit = t;
      if (std::string(key) == "StartTime") r.start = t;
      if (std::string(key) == "EndTime") r.end = t;
    }
    out->push_back(std::move(r));
  }
  return true;
}

bool ParseRecordTime(const std::string& text, int64_t* out) { return ParseTime(text, out); }

bool Evaluate(const std::vector<StreamJob>& stream, const std::vector<JobRecord>& records,
              const std::string& records_name, const topo::Topology& topo,
              const std::string& policy, PolicyResult* out, std::string* err, const Fault* fault,
              const int64_t* due_origin) {
  *out = PolicyResult();
  out->policy = policy;
  out->fault = fault != nullptr;
  const std::set<std::string> degraded =
      fault ? std::set<std::string>(fault->nodes.begin(), fault->nodes.end())
            : std::set<std::string>();
  size_t largest_su = 0;
  for (const topo::ScalableUnit& su : topo.sus) largest_su = std::max(largest_su, su.nodes.size());

  std::vector<const JobRecord*> by_seq(stream.size() + 1, nullptr);
  for (const JobRecord& r : records) {
    const std::string& n = r.name;
    const size_t plen = sizeof kJobPrefix - 1;
    size_t seq = 0;
    bool ours = n.size() > plen && n.compare(0, plen, kJobPrefix) == 0 && n.size() - plen <= 9;
    for (size_t i = plen; ours && i < n.size(); ++i) {
      if (n[i] < '0' || n[i] > '9') ours = false;
      seq = seq * 10 + static_cast<size_t>(n[i] - '0');
    }
    if (!ours || seq == 0 || seq > stream.size()) {
      ++out->foreign_records;
      continue;
    }
    by_seq[seq] = &r;
  }

  std::vector<double> waits, waits_multi, holds_over_run;
  std::vector<double> sus_multi;
  int64_t first_submit = 0, last_end = 0;
  bool any = false;
  for (const StreamJob& j : stream) {
    const JobRecord* r = by_seq[static_cast<size_t>(j.seq)];
    if (!r) {
      ++out->missing;
      continue;
    }
    ++out->jobs;
    if (r->state != "COMPLETED") ++out->not_completed;
    // Due: origin + submit_at rounded up to a whole second (as --begin was given).
    const int64_t due =
        due_origin ? *due_origin + static_cast<int64_t>(std::ceil(j.submit_at)) : r->submit;
    if (!any || due < first_submit) first_submit = due;
    if (!any || r->end > last_end) last_end = r->end;
    any = true;
    if (r->start < 0 || r->node_list.empty() || r->node_list == "(null)") {
      ++out->never_started;
      continue;
    }
    const double wait = static_cast<double>(std::max<int64_t>(0, r->start - due));
    waits.push_back(wait);
    if (r->state == "COMPLETED") {
      holds_over_run.push_back(static_cast<double>(r->end - r->start) - j.duration);
    }
    std::vector<std::string> hosts;
    std::string herr;
    if (!ExpandHostlist(r->node_list, &hosts, &herr)) {
      *err = FileLine(records_name, r->line) + "NodeList '" + r->node_list + "': " + herr;
      return false;
    }
    if (fault && r->start >= fault->time) {
      ++out->started_after_fault;
      const bool hit = std::any_of(hosts.begin(), hosts.end(),
                                   [&](const std::string& h) { return degraded.count(h) > 0; });
      if (hit) {
        ++(j.nodes < 2 ? out->single_on_degraded : out->multi_on_degraded);
        out->on_degraded.push_back(r->name + " (" + std::to_string(j.nodes) + " node" +
                                   (j.nodes == 1 ? "" : "s") + ", +" +
                                   std::to_string(r->start - fault->time) + " s): " + r->node_list);
      }
    }
    if (j.nodes < 2) continue;
    waits_multi.push_back(wait);
    ++out->multi_node;
    std::set<int> sus;
    for (const std::string& h : hosts) {
      const topo::NodeRef* ref = topo.FindNode(h);
      if (!ref) {
        *err = FileLine(records_name, r->line) + "job " + r->name + " ran on node '" + h +
               "', which the layout does not list; expected nodes of the benchmark's layout";
        return false;
      }
      sus.insert(ref->su);
    }
    sus_multi.push_back(static_cast<double>(sus.size()));
    if (j.nodes <= largest_su) {
      ++out->multi_fit_one_su;
      if (sus.size() == 1) {
        ++out->multi_fit_got_one_su;
      } else {
        out->split.push_back(r->name + " (" + std::to_string(j.nodes) + " nodes): " + r->node_list);
      }
    }
  }
  out->mean_sus_multi = Mean(sus_multi);
  out->mean_wait = Mean(waits);
  out->p95_wait = Percentile(waits, 0.95);
  out->mean_wait_multi = Mean(waits_multi);
  out->p95_wait_multi = Percentile(waits_multi, 0.95);
  out->makespan = any ? static_cast<double>(last_end - first_submit) : 0;
  out->mean_hold_over_run = Mean(holds_over_run);
  return true;
}

std::string FormatTable(const std::vector<PolicyResult>& results) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  auto row = [&](const std::string& title, auto cell) {
    std::vector<std::string> cells;
    for (const PolicyResult& r : results) cells.push_back(cell(r));
    rows.emplace_back(title, std::move(cells));
  };
  row("jobs (with a completion record)", [](const PolicyResult& r) {
    return std::to_string(r.jobs) + (r.missing ? " (" + std::to_string(r.missing) + " lost)" : "");
  });
  row("jobs not COMPLETED", [](const PolicyResult& r) { return std::to_string(r.not_completed); });
  row("multi-node jobs", [](const PolicyResult& r) { return std::to_string(r.multi_node); });
  row("multi-node jobs fitting one SU",
      [](const PolicyResult& r) { return std::to_string(r.multi_fit_one_su); });
  row("  of those, placed in one SU",
      [](const PolicyResult& r) { return Share(r.multi_fit_got_one_su, r.multi_fit_one_su); });
  row("mean SUs per multi-node job", [](const PolicyResult& r) {
    return r.multi_node ? Fmt("%.2f", r.mean_sus_multi) : std::string("-");
  });
  row("mean wait, all jobs (s)", [](const PolicyResult& r) { return Fmt("%.1f", r.mean_wait); });
  row("p95 wait, all jobs (s)", [](const PolicyResult& r) { return Fmt("%.0f", r.p95_wait); });
  row("mean wait, multi-node jobs (s)",
      [](const PolicyResult& r) { return Fmt("%.1f", r.mean_wait_multi); });
  row("p95 wait, multi-node jobs (s)",
      [](const PolicyResult& r) { return Fmt("%.0f", r.p95_wait_multi); });
  row("makespan (s)", [](const PolicyResult& r) { return Fmt("%.0f", r.makespan); });
  row("held beyond run time, mean (s)",
      [](const PolicyResult& r) { return Fmt("%.2f", r.mean_hold_over_run); });
  if (std::any_of(results.begin(), results.end(), [](const PolicyResult& r) { return r.fault; })) {
    auto count = [](bool fault, int n) { return fault ? std::to_string(n) : std::string("-"); };
    row("jobs started after the fault",
        [&](const PolicyResult& r) { return count(r.fault, r.started_after_fault); });
    row("  multi-node, on a degraded node",
        [&](const PolicyResult& r) { return count(r.fault, r.multi_on_degraded); });
    row("  single-node, on a degraded node",
        [&](const PolicyResult& r) { return count(r.fault, r.single_on_degraded); });
  }

  size_t title_w = 6;
  for (const auto& r : rows) title_w = std::max(title_w, r.first.size());
  std::vector<size_t> w;
  for (const PolicyResult& r : results) w.push_back(std::max<size_t>(r.policy.size(), 10));
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.second.size(); ++c) w[c] = std::max(w[c], r.second[c].size());
  }
  auto line = [&](const std::string& title, const std::vector<std::string>& cells) {
    std::string s = title + std::string(title_w - title.size(), ' ');
    for (size_t c = 0; c < cells.size(); ++c) {
      s += "  " + std::string(w[c] - cells[c].size(), ' ') + cells[c];
    }
    return s + "\n";
  };
  std::vector<std::string> heads;
  for (const PolicyResult& r : results) heads.push_back(r.policy);
  std::string out = line("metric", heads);
  for (const auto& r : rows) out += line(r.first, r.second);
  return out;
}

std::string Verdict(const PolicyResult& baseline, const PolicyResult& railguard, bool* pass) {
  const bool all_one_su =
      railguard.multi_fit_got_one_su == railguard.multi_fit_one_su && railguard.missing == 0;
  const double limit = baseline.p95_wait * 1.10;
  const bool wait_ok = railguard.p95_wait <= limit + 1.0;
  const bool fault_ok = !railguard.fault || railguard.multi_on_degraded == 0;
  *pass = all_one_su && wait_ok && fault_ok;
  std::string s =
      std::string("verdict: ") + (*pass ? "PASS" : "FAIL") + ": " + railguard.policy + " placed " +
      std::to_string(railguard.multi_fit_got_one_su) + " of " +
      std::to_string(railguard.multi_fit_one_su) + " multi-node jobs that fit one SU in one SU" +
      (all_one_su
           ? ""
           : " (target: all" + std::string(railguard.missing ? ", and no job lost" : "") + ")") +
      " (" + baseline.policy + ": " + std::to_string(baseline.multi_fit_got_one_su) +
      "); p95 wait " + Fmt("%.0f", railguard.p95_wait) + " s vs " + Fmt("%.0f", baseline.p95_wait) +
      " s";
  if (baseline.p95_wait > 0) {
    s += Fmt(" (%+.1f%%", 100.0 * (railguard.p95_wait - baseline.p95_wait) / baseline.p95_wait) +
         ", limit +10%";
  } else {
    s += " (limit +10%";
  }
  s += std::string(", plus 1 s for Slurm's whole-second times): ") + (wait_ok ? "ok" : "too slow");
  if (railguard.fault) {
    s += "; after the fault " + std::to_string(railguard.multi_on_degraded) +
         " multi-node jobs started on a degraded node" + (fault_ok ? "" : " (target: none)");
  }
  return s;
}

bool ParseFault(std::string_view text, const std::string& name, const topo::Topology& topo,
                Fault* out, std::string* err) {
  *out = Fault();
  const char kForm[] = "; expected one line '<YYYY-MM-DDTHH:MM:SS> <hostlist>'";
  int line_no = 0;
  bool have = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string line(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string at = FileLine(name, line_no);
    if (have) {
      *err = at + "a second fault" + kForm;
      return false;
    }
    const size_t sp = line.find(' ');
    if (sp == std::string::npos) {
      *err = at + "'" + line + "' has no node list" + kForm;
      return false;
    }
    const std::string time = line.substr(0, sp);
    out->node_list = line.substr(line.find_first_not_of(' ', sp));
    if (!ParseTime(time, &out->time)) {
      *err = at + "time '" + time + "'" + kForm;
      return false;
    }
    std::string herr;
    if (!ExpandHostlist(out->node_list, &out->nodes, &herr) || out->nodes.empty()) {
      *err = at + "node list '" + out->node_list + "': " + (herr.empty() ? "empty" : herr) + kForm;
      return false;
    }
    for (const std::string& h : out->nodes) {
      if (!topo.FindNode(h)) {
        *err = at + "node '" + h + "' is not in the layout; expected nodes of the benchmark's " +
               "layout";
        return false;
      }
    }
    have = true;
  }
  if (!have) {
    *err = name + ": no fault" + kForm;
    return false;
  }
  return true;
}

std::string DegradedExtra(int rails, int degraded_rail, double now) {
  wire::RailcheckExtra e;
  e.time = now;
  e.verdict = "restrict";
  e.rails.assign(static_cast<size_t>(rails), wire::RailState::kOk);
  e.rails[static_cast<size_t>(degraded_rail)] = wire::RailState::kDegraded;
  wire::FailedCheck f;
  f.rail = degraded_rail;
  f.check = "port.rate";
  e.failed.push_back(f);
  return wire::WriteExtra(e, "").value_or("");
}

uint32_t SwitchCount(uint32_t nodes, uint32_t su_nodes) {
  if (nodes < 2) return 0;
  return nodes / su_nodes + (nodes % su_nodes ? 1 : 0);
}

std::string SwitchesOption(uint32_t nodes, uint32_t su_nodes, uint32_t wait_seconds) {
  const uint32_t count = SwitchCount(nodes, su_nodes);
  if (count == 0) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "--switches=%u@%u:%02u", count, wait_seconds / 60,
                wait_seconds % 60);
  return buf;
}

}  // namespace railguard::bench
