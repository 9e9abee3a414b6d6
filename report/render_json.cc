// RenderJson: the report as JSON, schema "railguard-report" (report/SCHEMA.md).
#include "report/json_writer.h"
#include "report/render.h"
#include "topo/hostlist.h"

namespace railguard::report {
namespace {

void TimeOrNull(JsonWriter& w, double t) {
  if (t > 0) {
    w.Double(t);
  } else {
    w.Null();
  }
}

// `value` when `has`, else null.
void OptString(JsonWriter& w, bool has, const std::string& value) {
  if (has) {
    w.String(value);
  } else {
    w.Null();
  }
}

void OptInt(JsonWriter& w, bool has, long long value) {
  if (has) {
    w.Int(value);
  } else {
    w.Null();
  }
}

void Pair(JsonWriter& w, const std::array<int, 2>& a) {
  w.BeginObject().Key("24h").Int(a[k24h]).Key("7d").Int(a[k7d]).EndObject();
}

void NodeNames(JsonWriter& w, const Report& r, const std::vector<int>& idx) {
  w.BeginArray();
  for (int i : idx) w.String(r.nodes[static_cast<size_t>(i)].name);
  w.EndArray();
}

void Summary(JsonWriter& w, const Report& r) {
  w.Key("summary").BeginObject();
  w.Key("nodes").Uint(r.nodes.size());
  w.Key("sus").Uint(r.sus.size());
  w.Key("rails").Uint(r.rail_names.size());
  w.Key("health").BeginObject();
  w.Key("healthy").Int(r.healthy);
  w.Key("degraded").Int(r.degraded);
  w.Key("rail_down").Int(r.down_rails_nodes);
  w.Key("no_report").Int(r.no_report);
  w.Key("stale").Int(r.stale);
  w.EndObject();
  w.Key("drained").Int(r.drained);
  w.Key("restricted").Int(r.restricted);
  w.Key("down").Int(r.down);
  w.Key("idle").Int(r.idle);
  w.Key("free").Int(r.free);
  w.Key("largest_job").BeginObject().Key("nodes").Int(r.largest_job).Key("su");
  if (r.largest_job_su >= 0) {
    w.String(r.sus[static_cast<size_t>(r.largest_job_su)].name);
  } else {
    w.Null();
  }
  w.EndObject();
  w.Key("healthy_feature").String(r.healthy_feature);
  w.Key("healthy_feature_in_use").Bool(r.feature_in_use);
  w.EndObject();
}

void Suspects(JsonWriter& w, const Report& r) {
  w.Key("suspects").BeginArray();
  for (const Suspect& s : r.suspects) {
    std::vector<std::string> names;
    for (int i : s.nodes) names.push_back(r.nodes[static_cast<size_t>(i)].name);
    w.BeginObject();
    w.Key("rank").Int(s.rank);
    w.Key("kind").String(s.kind);
    w.Key("component").String(s.component);
    w.Key("title").String(s.title);
    w.Key("confidence").String(s.confidence);
    w.Key("su");
    OptString(w, s.su >= 0, s.su >= 0 ? r.sus[static_cast<size_t>(s.su)].name : "");
    w.Key("rail");
    OptInt(w, s.rail >= 0, s.rail);
    w.Key("node");
    OptString(w, s.node >= 0, s.node >= 0 ? r.nodes[static_cast<size_t>(s.node)].name : "");
    w.Key("nic");
    OptString(w, !s.nic.empty(), s.nic);
    w.Key("leaf");
    OptString(w, !s.leaf.empty(), s.leaf);
    w.Key("port");
    OptInt(w, s.port > 0, s.port);
    w.Key("affected_nodes").Uint(s.nodes.size());
    w.Key("down").Int(s.down);
    w.Key("nodes").String(CompressHostlistSorted(names));
    w.Key("evidence").StringArray(s.evidence);
    w.EndObject();
  }
  w.EndArray();
}

void Matrix(JsonWriter& w, const Report& r) {
  w.Key("matrix").BeginArray();
  for (const SuRow& su : r.sus) {
    w.BeginObject().Key("su").String(su.name).Key("nodes").Uint(su.nodes.size());
    w.Key("cells").BeginArray();
    for (size_t k = 0; k < su.cells.size(); ++k) {
      const Cell& c = su.cells[k];
      w.BeginObject();
      w.Key("rail").Uint(k);
      w.Key("leaf").String(su.leaves[k]);
      w.Key("nic").String(su.nics[k]);
      w.Key("status").String(RailStateName(c.Worst()));
      w.Key("ok").Int(c.ok);
      w.Key("degraded").Int(c.degraded);
      w.Key("down").Int(c.down);
      w.Key("unknown").Int(c.unknown);
      w.Key("bad_nodes");
      NodeNames(w, r, c.bad);
      w.EndObject();
    }
    w.EndArray().EndObject();
  }
  w.EndArray();
}

void Capacity(JsonWriter& w, const Report& r) {
  w.Key("capacity").BeginArray();
  for (const SuRow& su : r.sus) {
    w.BeginObject();
    w.Key("su").String(su.name);
    w.Key("nodes").Uint(su.nodes.size());
    w.Key("idle").Int(su.idle);
    w.Key("free").Int(su.free);
    w.Key("drained").Int(su.drained);
    w.Key("restricted").Int(su.restricted);
    w.Key("down").Int(su.down);
    w.Key("bad_rail").Int(su.unhealthy);
    w.Key("no_report").Int(su.no_report);
    w.Key("largest_job").Int(su.largest_job);
    w.EndObject();
  }
  w.EndArray();
}

void Node(JsonWriter& w, const Report& r, const NodeRow& n) {
  w.BeginObject();
  w.Key("name").String(n.name);
  w.Key("su").String(r.sus[static_cast<size_t>(n.su)].name);
  w.Key("position").Int(n.position);
  w.Key("in_slurm").Bool(n.in_slurm);
  w.Key("state");
  OptString(w, n.in_slurm, n.state);
  w.Key("flags").StringArray(n.flags);
  w.Key("drained").Bool(n.drained);
  w.Key("drained_by");
  OptString(w, n.drained, n.drained_by);
  w.Key("reason").String(n.reason);
  w.Key("reason_time");
  TimeOrNull(w, n.reason_time);
  w.Key("reason_user").String(n.reason_user);
  w.Key("restricted").Bool(n.restricted);
  w.Key("restricted_since");
  TimeOrNull(w, n.restricted ? n.restricted_since : 0);
  w.Key("down").Bool(n.down);
  w.Key("idle").Bool(n.idle);
  w.Key("free").Bool(n.free);
  w.Key("attention").Bool(n.attention);
  w.Key("health").BeginObject();
  w.Key("source").String(HealthSourceName(n.source));
  w.Key("time");
  TimeOrNull(w, n.health_time);
  w.Key("verdict");
  OptString(w, !n.verdict.empty(), n.verdict);
  w.Key("stale").Bool(n.stale);
  w.EndObject();
  w.Key("rails").BeginArray();
  for (RailState s : n.rails) w.String(RailStateName(s));
  w.EndArray();
  w.Key("failed").BeginArray();
  for (size_t k = 0; k < n.rail_checks.size(); ++k)
    for (const std::string& c : n.rail_checks[k]) w.String("rail" + std::to_string(k) + ":" + c);
  for (const std::string& c : n.node_checks) w.String("node:" + c);
  w.EndArray();
  w.Key("leaf_ports").BeginArray();
  for (int p : n.leaf_ports) OptInt(w, p > 0, p);
  w.EndArray();
  w.Key("jobs").BeginArray();
  for (uint32_t id : n.jobs) w.Uint(id);
  w.EndArray();
  w.Key("history").BeginObject();
  w.Key("drains");
  Pair(w, n.drains);
  w.Key("restricts");
  Pair(w, n.restricts);
  w.Key("rails").BeginArray();
  for (size_t k = 0; k < n.history.size(); ++k) {
    const RailHistory& h = n.history[k];
    if (!h.any()) continue;
    w.BeginObject();
    w.Key("rail").Uint(k);
    w.Key("flaps");
    Pair(w, h.flaps);
    w.Key("degradations");
    Pair(w, h.degradations);
    w.Key("recoveries");
    Pair(w, h.recoveries);
    w.Key("last_event");
    TimeOrNull(w, h.last_event);
    w.Key("counter_rates").BeginArray();
    for (const CounterRate& c : h.rates)
      w.BeginObject()
          .Key("counter")
          .String(c.name)
          .Key("per_hour")
          .Double(c.per_hour)
          .Key("delta")
          .Uint(c.delta)
          .Key("seconds")
          .Double(c.seconds)
          .EndObject();
    w.EndArray();
    w.Key("counter_rates_time");
    TimeOrNull(w, h.rates_time);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  w.Key("events").BeginArray();
  for (const NodeEvent& e : n.events) {
    w.BeginObject().Key("time").Double(e.time).Key("event").String(e.kind).Key("rail");
    OptInt(w, e.rail >= 0, e.rail);
    w.Key("checks").String(e.checks).Key("detail").String(e.detail).EndObject();
  }
  w.EndArray();
  w.EndObject();
}

void Jobs(JsonWriter& w, const Report& r) {
  w.Key("jobs_on_degraded_paths").BeginArray();
  for (const JobRow& j : r.degraded_jobs) {
    w.BeginObject();
    w.Key("id").Uint(j.id);
    w.Key("name").String(j.name);
    w.Key("user").String(j.user);
    w.Key("partition").String(j.partition);
    w.Key("nodes").String(j.nodes);
    w.Key("node_count").Int(j.node_count);
    w.Key("sus").StringArray(j.sus);
    w.Key("start_time");
    TimeOrNull(w, j.start_time);
    w.Key("degraded_nodes").BeginArray();
    for (int i : j.bad_nodes) {
      const NodeRow& n = r.nodes[static_cast<size_t>(i)];
      w.BeginObject().Key("node").String(n.name).Key("rails").BeginArray();
      for (size_t k = 0; k < n.rails.size(); ++k)
        if (n.rails[k] == RailState::kDegraded || n.rails[k] == RailState::kDown)
          w.BeginObject()
              .Key("rail")
              .Uint(k)
              .Key("state")
              .String(RailStateName(n.rails[k]))
              .EndObject();
      w.EndArray().EndObject();
    }
    w.EndArray();
    w.EndObject();
  }
  w.EndArray();
}

void History(JsonWriter& w, const Report& r) {
  w.Key("history").BeginObject();
  w.Key("read").Bool(r.history_read);
  w.Key("files").StringArray(r.history_files);
  w.Key("windows_seconds")
      .BeginObject()
      .Key("24h")
      .Double(kWindowSeconds[k24h])
      .Key("7d")
      .Double(kWindowSeconds[k7d])
      .EndObject();
  w.Key("events_7d").Int(r.history_events);
  w.Key("repeat_offender_threshold").Int(kRepeatOffenderEvents);
  w.Key("repeat_offenders").BeginArray();
  for (const Offender& o : r.offenders) {
    w.BeginObject();
    w.Key("node").String(r.nodes[static_cast<size_t>(o.node)].name);
    w.Key("events_7d").Int(o.events);
    w.Key("flaps_7d").Int(o.flaps);
    w.Key("degradations_7d").Int(o.degradations);
    w.Key("drains_7d").Int(o.drains);
    w.Key("rails").IntArray(o.rails);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace

std::string RenderJson(const Report& r) {
  std::string out;
  out.reserve(4096 + r.nodes.size() * 600);
  JsonWriter w(&out);
  w.BeginObject();
  w.Key("schema").String("railguard-report");
  w.Key("version").Int(kReportSchemaVersion);
  w.Key("cluster").String(r.cluster);
  w.Key("slurm_cluster").String(r.slurm_cluster);
  w.Key("time").Double(r.time);
  w.Key("source").String(r.source);
  w.Key("rails").BeginArray();
  for (size_t k = 0; k < r.rail_names.size(); ++k)
    w.BeginObject()
        .Key("index")
        .Uint(k)
        .Key("name")
        .String(r.rail_names[k])
        .Key("nic")
        .String(r.rail_nics[k])
        .EndObject();
  w.EndArray();
  Summary(w, r);
  Suspects(w, r);
  Matrix(w, r);
  Capacity(w, r);
  w.Key("nodes").BeginArray();
  for (const NodeRow& n : r.nodes) Node(w, r, n);
  w.EndArray();
  Jobs(w, r);
  History(w, r);
  w.Key("nodes_not_in_topology").StringArray(r.extra_nodes);
  w.Key("notes").StringArray(r.notes);
  w.Key("problems").BeginArray();
  for (const Diag& d : r.problems) {
    w.BeginObject().Key("file").String(d.file).Key("line");
    OptInt(w, d.line > 0, d.line);
    w.Key("message").String(d.message).Key("text").String(d.ToString()).EndObject();
  }
  w.EndArray();
  w.EndObject();
  out += "\n";
  return out;
}

}  // namespace railguard::report
