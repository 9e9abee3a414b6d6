// SPDX-License-Identifier: GPL-2.0-or-later
// Discovery, phase 1 (inference), last step: which one-hop domains (the groups of leaves that
// share their hosts) are one scalable unit, by the names of their leaves.
#include <cctype>
#include <map>
#include <set>

#include "topo/discover_infer.h"
#include "topo/hostlist.h"

namespace railguard::topo {
namespace {

// A leaf name cut into runs of digits and runs of other characters: "su1-r0-a" ->
// "su", "1", "-r", "0", "-a".
struct NameTokens {
  std::vector<std::string> tokens;
  std::string shape;  // per token 'd' (digits) or 'a' (other)
};

NameTokens Tokenize(const std::string& name) {
  NameTokens t;
  for (size_t i = 0; i < name.size();) {
    const bool digit = name[i] >= '0' && name[i] <= '9';
    size_t e = i;
    while (e < name.size() && (name[e] >= '0' && name[e] <= '9') == digit) ++e;
    t.tokens.push_back(name.substr(i, e - i));
    t.shape += digit ? 'd' : 'a';
    i = e;
  }
  return t;
}

// The evidence leaf names give: per domain, the SU key its leaves' names carry, or "" when
// they carry none (unnamed leaves, names of another pattern).
struct NameEvidence {
  std::vector<std::string> key;  // per domain
  std::string example;           // a leaf name of the pattern, for findings
  int position = -1;             // token index of the key; -1 when names give no key
  // The names mark the key as the SU's: the text before it ends in "su" ("su1-r0-a",
  // "B300-SU2-L07"), or it follows a run that numbers the rails (the same values in every
  // domain, different within one: "DGX-LEAF-<rail>-<su>-a"). Else it may as well be a pod's
  // or a row's, and domains that share it are not grouped.
  bool marked = false;
};

// Leaf names give a domain's SU when all named leaves of most domains follow one pattern (the
// same runs of digits and non-digits) and some run of digits is the same on every leaf of
// each domain: the first such run that differs between domains ("su<1>-r0-a", "su<1>-r0-b",
// "su<2>-r0-a") is the SU key; when none differs, every domain has the same key. Runs that
// differ within a domain number rails or leaves; they only tell whether the key is marked.
NameEvidence KeysFromLeafNames(const Inference& in) {
  const size_t n = in.su_hosts.size();
  NameEvidence ev;
  ev.key.assign(n, "");
  std::vector<std::vector<NameTokens>> names(n);
  std::map<std::string, int> shapes;
  std::vector<std::string> domain_shape(n);
  for (size_t d = 0; d < n; ++d) {
    bool ok = true;
    for (int sw : in.su_leaf[d]) {
      if (sw < 0) continue;
      if (in.sws[sw].yaml_name.empty()) ok = false;
      else names[d].push_back(Tokenize(in.sws[sw].yaml_name));
    }
    for (const NameTokens& t : names[d]) ok = ok && t.shape == names[d][0].shape;
    if (!ok || names[d].empty()) continue;
    domain_shape[d] = names[d][0].shape;
    ++shapes[domain_shape[d]];
  }
  std::string shape;
  int best = 0;
  for (size_t d = 0; d < n; ++d)
    if (!domain_shape[d].empty() && shapes[domain_shape[d]] > best) {
      shape = domain_shape[d];
      best = shapes[shape];
    }
  if (shape.empty()) return ev;
  std::vector<int> members;
  for (size_t d = 0; d < n; ++d)
    if (domain_shape[d] == shape) members.push_back(static_cast<int>(d));
  int constant_digits = -1;  // the first run of digits that is the same on every leaf
  for (size_t p = 0; p < shape.size() && ev.position < 0; ++p) {
    if (shape[p] != 'd') continue;
    bool constant = true;
    std::set<std::string> values;
    for (int d : members) {
      for (const NameTokens& t : names[d])
        constant = constant && t.tokens[p] == names[d][0].tokens[p];
      values.insert(names[d][0].tokens[p]);
    }
    if (!constant) continue;
    if (constant_digits < 0) constant_digits = static_cast<int>(p);
    if (values.size() > 1) ev.position = static_cast<int>(p);
  }
  if (ev.position < 0) ev.position = constant_digits;
  if (ev.position < 0) return ev;
  for (int sw : in.su_leaf[members[0]])
    if (sw >= 0 && ev.example.empty()) ev.example = in.sws[sw].yaml_name;
  if (ev.position > 0) {
    std::string before = names[members[0]][0].tokens[ev.position - 1];
    for (char& c : before) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    ev.marked = before.size() >= 2 && before.compare(before.size() - 2, 2, "su") == 0;
  }
  for (int p = 0; p < ev.position && !ev.marked; ++p) {
    if (shape[p] != 'd') continue;
    // A rail run: the same set of values in every domain, more than one within a domain.
    std::set<std::string> first;
    for (const NameTokens& t : names[members[0]]) first.insert(t.tokens[p]);
    bool rail_run = first.size() > 1;
    for (int d : members) {
      std::set<std::string> v;
      for (const NameTokens& t : names[d]) v.insert(t.tokens[p]);
      rail_run = rail_run && v == first;
    }
    ev.marked = rail_run;
  }
  for (int d : members) {
    // The key is the name up to and with the key run ("su1"), so that it reads in findings.
    std::string key;
    for (int p = 0; p <= ev.position; ++p) key += names[d][0].tokens[p];
    ev.key[d] = key;
  }
  return ev;
}

// Domain `d` as findings name it before SU names are final: its hosts ("n[017-032]").
std::string HostsOf(const Inference& in, int d) {
  std::vector<std::string> hosts;
  for (int h : in.su_hosts[d]) hosts.push_back(in.hosts[h]);
  return CompressHostlistSorted(hosts);
}

}  // namespace

void GroupDomains(Inference* in) {
  const int n = static_cast<int>(in->su_hosts.size());
  const int n_rails = static_cast<int>(in->rails.size());
  const NameEvidence ev = KeysFromLeafNames(*in);
  // Domains that share a key, in domain order.
  std::map<std::string, std::vector<int>> by_key;
  for (int d = 0; d < n; ++d)
    if (!ev.key[d].empty()) by_key[ev.key[d]].push_back(d);
  std::vector<int> joins(n, -1);  // per domain: the first domain of its SU
  for (int d = 0; d < n; ++d) joins[d] = d;
  bool merged = false;
  for (const auto& [key, ds] : by_key) {
    if (ds.size() < 2) continue;
    // Names alone do not make one SU of domains that could not be one: every domain of an SU
    // has a leaf on every rail and its hosts are of one node type.
    std::string why;
    for (int d : ds) {
      for (int r = 0; r < n_rails && why.empty(); ++r)
        if (in->su_leaf[d][r] < 0)
          why = "the leaves of " + HostsOf(*in, d) + " have no leaf for rail " + std::to_string(r);
      if (why.empty() && in->su_type[d] != in->su_type[ds[0]])
        why = "the hosts of " + HostsOf(*in, d) + " name their NICs unlike those of " +
              HostsOf(*in, ds[0]);
    }
    std::string list;
    for (int d : ds) list += (list.empty() ? "" : ", ") + HostsOf(*in, d);
    if (!ev.marked) {
      in->notes.push_back(
          {"su-grouping", in->su_leaf[ds[0]][0],
           "leaf names ('" + ev.example + "', ...) give the one-hop domains " + list +
               " one key (" + key + "), but nothing marks it as the SU's (no \"su\" before "
               "it, no rail number ahead of it), so it may be a pod's or a row's; kept as "
               "separate SUs; expected leaf names that carry the SU as su<N> or after the rail "
               "(...-LEAF-<rail>-<su>-...), or merge them in the YAML by hand (one SU whose "
               "leaves list their nodes)"});
      continue;
    }
    if (!why.empty()) {
      in->notes.push_back(
          {"su-grouping", in->su_leaf[ds[0]][0],
           "leaf names (" + key + "...) put the one-hop domains " + list +
               " in one scalable unit, but " + why +
               "; kept as separate SUs; expected every domain of an SU with a leaf per rail and "
               "one node type (mend the cabling or the leaf names to decide it)"});
      continue;
    }
    for (int d : ds) joins[d] = ds[0];
    merged = true;
  }
  // A domain whose leaf names follow no pattern in a fabric whose names group domains.
  if (merged) {
    for (int d = 0; d < n; ++d) {
      if (!ev.key[d].empty()) continue;
      int sw = -1;
      for (int s : in->su_leaf[d]) sw = sw < 0 ? s : sw;
      const std::string name = sw >= 0 && !in->sws[sw].yaml_name.empty()
                                   ? "'" + in->sws[sw].yaml_name + "'"
                                   : "none";
      in->notes.push_back(
          {"su-grouping", sw, "the leaves of the one-hop domain " + HostsOf(*in, d) + " have names (" + name +
                   ") that do not follow the pattern of the other leaves ('" + ev.example +
                   "'), so they cannot say which scalable unit it is part of; kept as an SU of "
                   "its own; expected leaf names that carry the SU in the same place"});
    }
  }
  // SUs in the order of their first domain (so of their first host); domains within an SU
  // in domain order, named <su>-d1, <su>-d2, ... as the model names them.
  in->su_group.assign(n, -1);
  in->su_name.assign(n, "");
  std::vector<int> group_size;
  std::vector<int> nth(n, 0);
  for (int d = 0; d < n; ++d) {
    if (joins[d] == d) {
      in->su_group[d] = static_cast<int>(group_size.size());
      group_size.push_back(0);
    } else {
      in->su_group[d] = in->su_group[joins[d]];
    }
    nth[d] = ++group_size[in->su_group[d]];
  }
  in->group_count = static_cast<int>(group_size.size());
  for (int d = 0; d < n; ++d) {
    const int g = in->su_group[d];
    in->su_name[d] = "su" + std::to_string(g + 1) +
                     (group_size[g] > 1 ? "-d" + std::to_string(nth[d]) : std::string());
    for (int r = 0; r < n_rails; ++r) {
      const int sw = in->su_leaf[d][r];
      if (sw >= 0 && in->sws[sw].yaml_name.empty())
        in->sws[sw].display = in->su_name[d] + "-rail" + std::to_string(r);
    }
  }
}

}  // namespace railguard::topo
