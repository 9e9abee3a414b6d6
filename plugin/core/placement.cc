// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/placement.h"

#include <algorithm>
#include <cctype>

#include "base/names.h"
#include "base/words.h"
#include "plugin/core/job_options.h"

namespace railguard::plugin {
namespace {

constexpr uint32_t kSlurmDefaultMaxSwitchWait = 300;

// Whether `env` has an entry "NAME=value" for `name`; the first one's value goes to *value.
bool FindEnv(const std::vector<std::string>& env, std::string_view name, std::string* value) {
  for (const std::string& entry : env) {
    if (entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
        entry[name.size()] == '=') {
      *value = entry.substr(name.size() + 1);
      return true;
    }
  }
  return false;
}

uint32_t CeilDiv(uint64_t a, uint64_t b) {
  uint64_t q = (a + b - 1) / b;
  return q > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(q);
}

}  // namespace

uint32_t JobNodeCount(const JobFacts& job, const Fabric& fabric) {
  if (job.min_nodes > 0 || job.max_nodes > 0) return std::max(job.min_nodes, job.max_nodes);
  if (fabric.gpus_per_node > 0) {
    if (uint64_t gpus = GpuCount(job.tres_per_job); gpus > 0)
      return CeilDiv(gpus, fabric.gpus_per_node);
    if (uint64_t per_task = GpuCount(job.tres_per_task); per_task > 0 && job.num_tasks > 0)
      return CeilDiv(per_task * job.num_tasks, fabric.gpus_per_node);
  }
  if (job.num_tasks > 0 && job.ntasks_per_node > 0)
    return CeilDiv(job.num_tasks, job.ntasks_per_node);
  if (job.num_tasks > 0 && job.cpus_per_node > 0)
    return CeilDiv(static_cast<uint64_t>(job.num_tasks) * std::max<uint32_t>(job.cpus_per_task, 1),
                   job.cpus_per_node);
  return 0;
}

namespace {

// Splits `s` at top level (outside brackets and parentheses) on any of `ops`.
std::vector<std::string_view> SplitTopLevel(std::string_view s, std::string_view ops) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '[' || c == '(') {
      ++depth;
    } else if (c == ']' || c == ')') {
      --depth;
    } else if (depth == 0 && ops.find(c) != std::string_view::npos) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(s.substr(start));
  return parts;
}

}  // namespace

Fabric FabricOf(const topo::Topology& topo) {
  Fabric f;
  bool first = true;
  for (const topo::Domain& d : topo.domains)
    f.su_sizes.push_back(static_cast<uint32_t>(d.nodes.size()));
  f.split = topo::HasSplitSus(topo);
  for (const topo::ScalableUnit& su : topo.sus) {
    const topo::NodeType* type = topo.FindType(su.node_type);
    const uint32_t gpus = type ? static_cast<uint32_t>(type->gpus) : 0;
    if (first) {
      f.gpus_per_node = gpus;
      first = false;
    } else if (gpus != f.gpus_per_node) {
      f.gpus_per_node = 0;
    }
  }
  return f;
}

Fabric FabricOfNodes(const topo::Topology& topo, const char* const* names,
                     const char* const* features, size_t count, const std::string& feature,
                     uint32_t* healthy) {
  Fabric f;
  f.gpus_per_node = FabricOf(topo).gpus_per_node;
  f.split = topo::HasSplitSus(topo);
  f.su_sizes.assign(topo.domains.size(), 0);
  *healthy = 0;
  for (size_t i = 0; names && i < count; ++i) {
    if (!names[i]) continue;
    const topo::NodeRef* ref = topo.FindNode(names[i]);
    if (!ref || ref->domain < 0 || static_cast<size_t>(ref->domain) >= f.su_sizes.size())
      continue;
    f.su_sizes[static_cast<size_t>(ref->domain)] += 1;
    const char* list = features ? features[i] : nullptr;
    if (!feature.empty() && list && HasFeature(list, feature)) *healthy += 1;
  }
  return f;
}

uint32_t WaitBound(const PlacementConfig& config, PlacementMode mode, uint32_t nodes) {
  if (mode == PlacementMode::kOff) return 0;
  if (mode == PlacementMode::kStrict) return kStrictWait;
  const uint64_t raw = static_cast<uint64_t>(config.wait_base_seconds) +
                       static_cast<uint64_t>(config.wait_per_node_seconds) * nodes;
  return static_cast<uint32_t>(
      std::min<uint64_t>(raw, static_cast<uint64_t>(config.wait_max_seconds)));
}

uint32_t SusNeeded(const std::vector<uint32_t>& su_sizes, uint32_t nodes) {
  std::vector<uint32_t> sizes = su_sizes;
  std::sort(sizes.rbegin(), sizes.rend());
  uint64_t have = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    have += sizes[i];
    if (have >= nodes) return static_cast<uint32_t>(i + 1);
  }
  return 0;
}

uint32_t ParseMaxSwitchWait(std::string_view sched_params) {
  static constexpr std::string_view kKey = "max_switch_wait=";
  const std::string lower = AsciiLower(sched_params);
  const size_t at = lower.find(kKey);
  if (at == std::string::npos) return kSlurmDefaultMaxSwitchWait;
  // atoi(): optional sign, then digits; anything else ends the number.
  size_t i = at + kKey.size();
  bool negative = false;
  if (i < lower.size() && (lower[i] == '-' || lower[i] == '+')) negative = lower[i++] == '-';
  uint64_t n = 0;
  for (; i < lower.size() && std::isdigit(static_cast<unsigned char>(lower[i])); ++i)
    n = std::min<uint64_t>(n * 10 + (lower[i] - '0'), UINT32_MAX);
  if (negative && n > 0) return kSlurmDefaultMaxSwitchWait;
  return static_cast<uint32_t>(n);
}

std::string SwitchWaitMessage(PlacementMode mode, uint32_t wait, bool topology_rail, bool* error) {
  *error = false;
  if (mode != PlacementMode::kStrict || wait >= kNeverExpiresWait) return "";
  const std::string need =
      "SchedulerParameters=max_switch_wait=" + std::to_string(kNeverExpiresWait) +
      " (a year) or more in slurm.conf";
  if (!topology_rail) {
    *error = true;
    return "strict placement needs " + need + "; with " + std::to_string(wait) +
           " s, a job that has waited that long for its scalable units is placed anywhere";
  }
  return "with max_switch_wait=" + std::to_string(wait) +
         " s a multi-node job larger than one domain that has waited that long may get more "
         "domains than the fewest (topology/rail still gives a job that fits one domain one, "
         "whatever it waited); strict placement of larger jobs needs " +
         need;
}

uint64_t GpuCount(std::string_view tres) {
  uint64_t total = 0;
  size_t start = 0;
  while (start <= tres.size()) {
    size_t end = tres.find(',', start);
    if (end == std::string_view::npos) end = tres.size();
    std::string_view entry = tres.substr(start, end - start);
    start = end + 1;
    std::string_view rest;
    if (entry.rfind("gres:gpu", 0) == 0 || entry.rfind("gres/gpu", 0) == 0) {
      rest = entry.substr(8);
    } else {
      continue;
    }
    if (rest.empty()) {  // "gres:gpu": one
      total += 1;
      continue;
    }
    if (rest[0] != ':') continue;  // "gres:gpufoo" is another GRES
    const std::string_view count = rest.substr(rest.rfind(':') + 1);
    uint64_t n = 0;
    bool digits = !count.empty() && count.size() <= 9;
    for (char c : count) {
      if (!std::isdigit(static_cast<unsigned char>(c))) digits = false;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (!digits) {
      // "gres:gpu:h100" has a type and no count: one GPU. Any other shape is unreadable.
      if (rest.find(':', 1) == std::string_view::npos) {
        total += 1;
        continue;
      }
      return 0;
    }
    total += n;
  }
  return total;
}

Constraint RequireFeature(std::string_view user, std::string_view feature) {
  Constraint c;
  const std::string f(feature);
  if (user.empty()) {
    c.features = f;
    return c;
  }
  const std::string u(user);
  const bool brackets = u.find('[') != std::string::npos;
  const bool parens = u.find('(') != std::string::npos;
  const bool top_or = SplitTopLevel(u, "|").size() > 1;
  const bool any_or = u.find('|') != std::string::npos;
  const auto too_complex = [&](const std::string& why) {
    c.kind = Constraint::kTooComplex;
    c.features = u;
    c.why = why;
    return c;
  };
  if (u.find('*') != std::string::npos)
    return too_complex("Slurm does not apply the other terms of a --constraint with counts ('" +
                       u + "') to every node, so " + f +
                       " would not keep degraded nodes out; submit without '*N' counts (one "
                       "job per node group) or ask your admin");
  if (brackets && top_or)
    return too_complex("'" + u + "' has a '|' outside its brackets, which Slurm cannot combine "
                       "with " + f +
                       "; write the alternatives inside the brackets, e.g. '[a|b|c]'");
  if (!any_or && !brackets && !parens) {
    // AND-only ("a&b", "a,b"): already required if it is one of the terms.
    for (std::string_view term : SplitTopLevel(u, "&,")) {
      if (term == feature) {
        c.kind = Constraint::kAlreadyThere;
        c.features = u;
        return c;
      }
    }
    c.features = u + "&" + f;
  } else if (brackets) {
    c.features = f + "&" + u;
  } else if (!parens) {
    c.features = "(" + u + ")&" + f;
  } else {
    c.features = u + "&" + f;  // left to right: (whole expression) & f
  }
  return c;
}

namespace {

// The decision that refuses a job for `why` (one line, "railguard: " added).
Decision Refuse(Decision::Refusal kind, const std::string& why) {
  Decision d;
  d.refuse = kind;
  d.message = "railguard: " + why;
  return d;
}

// DecidePlacement without the hold's lead-in: `*hold_out` gets it (unchanged = not held).
Decision DecideHeldOrNot(const JobFacts& job, const PlacementConfig& config,
                         const Fabric& fabric, std::string* hold_out) {
  Decision d;
  std::string err;
  std::string value;

  PlacementMode mode = config.default_mode;
  const bool explicit_mode = FindEnv(job.spank_env, kPlacementEnv, &value);
  if (explicit_mode && !ParsePlacementOption(value, &mode, &err))
    return Refuse(Decision::kBadOption, err);
  int limit = config.max_sus_default;
  const bool explicit_limit = FindEnv(job.spank_env, kMaxSusEnv, &value);
  if (explicit_limit) {
    if (!ParseMaxSusOption(value, &limit, &err)) return Refuse(Decision::kBadOption, err);
    if (config.max_sus_default > 0 && limit > config.max_sus_default)
      return Refuse(Decision::kBadOption,
                    "--rail-max-sus=" + std::to_string(limit) + " is above the site limit of " +
                        std::to_string(config.max_sus_default) +
                        " scalable units (max_sus_default); it can lower that limit, not raise it");
  }
  const std::string mode_name = PlacementModeName(mode);

  const uint32_t nodes = JobNodeCount(job, fabric);
  d.nodes = nodes;
  if (nodes <= 1) return d;  // single node (or unknown): packing is Slurm's business
  uint64_t total = 0;
  for (uint32_t s : fabric.su_sizes) total += s;
  if (total == 0) return d;  // a partition without rail nodes (CPU-only): not ours

  const std::string where = job.partition.empty() ? "its partition" : "partition " + job.partition;
  const std::string job_nodes = std::to_string(nodes) + " nodes";
  std::string health_note;
  const std::string& feature = config.healthy_feature;
  if (job.observe_health) {
    health_note = "node health observed only (health.mode: observe)";
  } else if (!feature.empty()) {
    const Constraint constraint = RequireFeature(job.features, feature);
    if (constraint.kind == Constraint::kTooComplex)
      return Refuse(Decision::kBadConstraint, constraint.why);
    if (!job.feature_exists && constraint.kind == Constraint::kAlreadyThere)
      return Refuse(Decision::kBadConstraint,
                    "no node has feature " + feature +
                        " yet (railcheck has not found any healthy), and Slurm refuses a "
                        "--constraint that names it; leave " + feature +
                        " out: railguard adds it to every multi-node job");
    if (job.healthy_nodes < nodes) {
      const std::string few = "only " + std::to_string(job.healthy_nodes) + " nodes of " +
                              where + " are healthy (feature " + feature + ") now";
      if (!job.may_hold)
        return Refuse(Decision::kTooFewHealthy,
                      few + ", and the job would need " + job_nodes +
                          "; railcheck keeps degraded nodes out of multi-node jobs");
      d.hold = true;
      d.hold_nodes = nodes;
      // No node has the feature (a new cluster, or every node lost it): Slurm would refuse
      // the constraint, so the keeper adds it when it releases the job.
      d.defer_feature =
          !job.feature_exists && constraint.kind == Constraint::kAdded && !job.topology_places;
      *hold_out = "held: " + few + " and this job needs " + job_nodes +
                  "; it waits, and railguard releases it when " + std::to_string(nodes) +
                  " are healthy (squeue shows the count)" +
                  (d.defer_feature ? " and adds the feature to its constraint" : "") + "; then ";
    }
    if (constraint.kind == Constraint::kAdded && !d.defer_feature && !job.topology_places) {
      d.set_features = true;
      d.features = constraint.features;
    }
    health_note = job.topology_places ? "healthy nodes only (topology/rail leaves nodes without " +
                                            feature + " out)"
                                      : "healthy nodes only (feature " + feature + ")";
  } else {
    health_note = "node health not required (healthy_feature is empty)";
  }

  const std::string head = "railguard: " + mode_name + " placement: ";
  if (mode == PlacementMode::kOff) {
    d.message = "railguard: --rail-placement=off: no scalable-unit bound; " + health_note;
    if (!explicit_mode) d.message = "railguard: placement off: " + health_note;
    return d;
  }
  if (job.nodelist_count >= nodes) {
    d.message = head + "the job names all its nodes (--nodelist), so no scalable-unit bound; " +
                health_note;
    return d;
  }
  if (job.has_switches && mode == PlacementMode::kPrefer) {
    d.message = head + "your --switches is kept; " + health_note;
    return d;
  }
  const uint32_t needed = SusNeeded(fabric.su_sizes, nodes);
  if (needed == 0) {
    d.message = "railguard: " + job_nodes + " is more than the " + std::to_string(total) +
                " rail-topology nodes of " + where + "; placement left to Slurm; " + health_note;
    return d;
  }
  const std::string sus = fabric.split ? Plural(needed, "one-hop domain", "one-hop domains")
                                       : Plural(needed, "scalable unit", "scalable units");
  if (limit > 0 && needed > static_cast<uint32_t>(limit)) {
    const std::string source =
        explicit_limit ? "--rail-max-sus=" + std::to_string(limit)
                       : "the site limit of " + std::to_string(limit) + " (max_sus_default)";
    if (mode == PlacementMode::kStrict)
      return Refuse(Decision::kTooManySus,
                    job_nodes + " need " + sus + " of " + where + ", more than " + source +
                        " allows; ask for fewer nodes or use --rail-placement=prefer");
    d.message = head + job_nodes + " need " + sus + ", more than " + source +
                " allows, so they may spread; " + health_note;
    return d;
  }

  if (job.topology_places && needed == 1) {
    const std::string note = mode == PlacementMode::kStrict ? "" : " (prefer: as strict there)";
    d.message = head + job_nodes + " in " + sus +
                ": topology/rail keeps a job that fits one in one, however long it queues" + note +
                "; " + health_note;
    return d;
  }
  const uint32_t bound = WaitBound(config, mode, nodes);
  const uint32_t wait = std::min(bound, job.max_switch_wait);
  d.set_switches = true;
  d.req_switch = needed;
  d.wait4switch = wait;
  const std::string it = needed == 1 ? "it" : "them";
  if (mode == PlacementMode::kStrict) {
    const std::string replaced =
        job.has_switches ? " (your --switches=" + std::to_string(job.user_switches) +
                               " is replaced)"
                         : "";
    const std::string hold =
        job.max_switch_wait >= kNeverExpiresWait
            ? "Slurm holds the job for " + it + " however long it queues"
            : "Slurm holds the job for " + it + " only " + std::to_string(wait) +
                  " s (SchedulerParameters max_switch_wait) from its first evaluation, then "
                  "places it anywhere";
    d.message = head + job_nodes + " in " + sus + replaced + "; " + hold + "; " + health_note;
  } else {
    const std::string cap = bound > wait ? ", the max_switch_wait limit" : "";
    d.message = head + job_nodes + " in " + sus + " if Slurm finds " + it + " within " +
                std::to_string(wait) + " s" + cap +
                " of its first evaluation of the job (a requeued job or array task keeps that "
                "clock), else spread; " + health_note;
  }
  return d;
}

}  // namespace

Decision DecidePlacement(const JobFacts& job, const PlacementConfig& config, const Fabric& fabric) {
  std::string hold_note;
  Decision d = DecideHeldOrNot(job, config, fabric, &hold_note);
  const std::string lead = "railguard: ";
  if (d.refuse != Decision::kAccept || !d.hold) return d;
  std::string rest = d.message.compare(0, lead.size(), lead) == 0 ? d.message.substr(lead.size())
                                                                  : d.message;
  d.message = lead + hold_note + rest;
  return d;
}

}  // namespace railguard::plugin
