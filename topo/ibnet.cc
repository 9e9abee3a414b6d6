// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/ibnet.h"

#include "base/text_file.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace railguard::topo {
namespace {

constexpr int kMaxErrors = 50;
constexpr long kMaxPort = 65535;

// The forms each kind of line must take, quoted in error messages.
const char kSwitchHeaderForm[] =
    "Switch <ports> \"S-<guid>\" # \"<description>\" enhanced port 0 lid <lid> lmc <lmc>";
const char kCaHeaderForm[] = "Ca <ports> \"H-<guid>\" # \"<description>\"";
const char kRtHeaderForm[] = "Rt <ports> \"R-<guid>\" # \"<description>\"";
const char kSwitchPortForm[] =
    "[<port>] \"<S|H|R>-<guid>\"[<port>] # \"<description>\" lid <lid> <width>x<speed>";
const char kCaPortForm[] =
    "[<port>](<port guid>) \"<S|H|R>-<guid>\"[<port>] # lid <lid> lmc <lmc> \"<description>\" "
    "lid <lid> <width>x<speed>";
const char kAnyLineForm[] =
    "a vendid=, devid=, sysimgguid=, switchguid=, caguid= or rtguid= line, a Switch, Ca or Rt "
    "header, a [port] line, a comment or a blank line";

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// A read position in one line; every Read* leaves the position unchanged on failure.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  bool AtEnd() const { return i_ >= s_.size(); }
  std::string_view Rest() const { return s_.substr(i_); }
  void SkipSpace() {
    while (i_ < s_.size() && IsSpace(s_[i_])) ++i_;
  }
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool Consume(char c) {
    if (!Peek(c)) return false;
    ++i_;
    return true;
  }
  bool Consume(std::string_view word) {
    if (!StartsWith(s_.substr(i_), word)) return false;
    i_ += word.size();
    return true;
  }
  // A decimal integer in [lo, hi].
  bool ReadInt(long lo, long hi, long* out) {
    size_t j = i_;
    long v = 0;
    while (j < s_.size() && IsDigit(s_[j]) && j - i_ < 10) v = v * 10 + (s_[j++] - '0');
    if (j == i_ || (j < s_.size() && IsDigit(s_[j])) || v < lo || v > hi) return false;
    i_ = j;
    *out = v;
    return true;
  }
  // 1 to 16 hex digits.
  bool ReadHex(uint64_t* out) {
    size_t j = i_;
    uint64_t v = 0;
    while (j < s_.size() && HexValue(s_[j]) >= 0 && j - i_ < 16)
      v = v << 4 | static_cast<uint64_t>(HexValue(s_[j++]));
    if (j == i_ || (j < s_.size() && HexValue(s_[j]) >= 0)) return false;
    i_ = j;
    *out = v;
    return true;
  }
  // "[<n>]"
  bool ReadBracketInt(long lo, long hi, long* out) {
    size_t save = i_;
    if (Consume('[') && ReadInt(lo, hi, out) && Consume(']')) return true;
    i_ = save;
    return false;
  }
  // "[ext <n>]", which grouped (-g) output appends to chassis ports.
  bool SkipExtPort() {
    size_t save = i_;
    long ignored = 0;
    if (Consume("[ext ") && ReadInt(0, kMaxPort, &ignored) && Consume(']')) return true;
    i_ = save;
    return false;
  }
  // "(<hex>)", a port GUID.
  bool SkipPortGuid() {
    size_t save = i_;
    uint64_t ignored = 0;
    if (Consume('(') && ReadHex(&ignored) && Consume(')')) return true;
    i_ = save;
    return false;
  }
  // "\"S-<hex>\"" and the like.
  bool ReadNodeId(IbNodeType* type, uint64_t* guid) {
    size_t save = i_;
    if (Consume('"') && i_ + 1 < s_.size() && s_[i_ + 1] == '-') {
      char letter = s_[i_];
      i_ += 2;
      if ((letter == 'S' || letter == 'H' || letter == 'R') && ReadHex(guid) && Consume('"')) {
        *type = letter == 'S'   ? IbNodeType::kSwitch
                : letter == 'H' ? IbNodeType::kCa
                                : IbNodeType::kRouter;
        return true;
      }
    }
    i_ = save;
    return false;
  }
  // A quoted description that runs to the last '"' on the line (descriptions may themselves
  // hold '#' or '"', which ibnetdiscover prints as they are).
  bool ReadDescription(std::string_view* out) {
    if (!Peek('"')) return false;
    size_t close = s_.rfind('"');
    if (close == i_) return false;
    *out = s_.substr(i_ + 1, close - i_ - 1);
    i_ = close + 1;
    return true;
  }
  // The next run of non-space characters.
  std::string_view ReadWord() {
    size_t j = i_;
    while (j < s_.size() && !IsSpace(s_[j])) ++j;
    std::string_view w = s_.substr(i_, j - i_);
    i_ = j;
    return w;
  }

 private:
  std::string_view s_;
  size_t i_ = 0;
};

// Lines that libibnetdisc, libibmad or ibnetdiscover print about their own trouble; they end up
// in dumps when stderr was captured with stdout.
bool IsToolDiagnostic(std::string_view line) {
  for (std::string_view p : {"ibwarn:", "ibpanic:", "iberror:", "ibdebug:", "ibnetdiscover:"})
    if (StartsWith(line, p)) return true;
  if (line.find(" iberror: ") != std::string_view::npos) return true;
  // libibnetdisc's IBND_ERROR: "<source file>.c:<line>; <message>".
  size_t semi = line.find(';');
  if (semi == std::string_view::npos) return false;
  std::string_view head = line.substr(0, semi);
  size_t colon = head.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == head.size()) return false;
  for (char c : head.substr(colon + 1))
    if (!IsDigit(c)) return false;
  std::string_view file = head.substr(0, colon);
  if (file.size() < 3 || file.substr(file.size() - 2) != ".c") return false;
  for (char c : file)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
          c == '-'))
      return false;
  return true;
}

// A link token is the width and speed ibnetdiscover prints: "4xNDR", or "??"/"???" parts when
// it could not tell.
bool IsLinkToken(std::string_view w) {
  if (w.empty() || w.size() > 16) return false;
  for (char c : w)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '?')) return false;
  return true;
}

uint64_t HighPortKey(int node, int port) {
  return static_cast<uint64_t>(node) << 16 | static_cast<uint64_t>(port);
}

// The link on `port` of node `node`, or -1.
int LinkOf(const IbFabric& f, int node, int port) {
  if (port < kDensePorts) {
    const std::vector<int>& links = f.nodes[node].links;
    return port < static_cast<int>(links.size()) ? links[port] : -1;
  }
  auto it = f.high_ports.find(HighPortKey(node, port));
  return it == f.high_ports.end() ? -1 : it->second;
}

void SetLink(IbFabric* f, int node, int port, int link) {
  if (port < kDensePorts) {
    std::vector<int>& links = f->nodes[node].links;
    if (port >= static_cast<int>(links.size())) links.resize(port + 1, -1);
    links[port] = link;
  } else {
    f->high_ports[HighPortKey(node, port)] = link;
  }
}

const char* HeaderForm(IbNodeType t) {
  return t == IbNodeType::kSwitch ? kSwitchHeaderForm
         : t == IbNodeType::kCa   ? kCaHeaderForm
                                  : kRtHeaderForm;
}

const char* GuidKey(IbNodeType t) {
  return t == IbNodeType::kSwitch ? "switchguid" : t == IbNodeType::kCa ? "caguid" : "rtguid";
}

class Parser {
 public:
  Parser(const std::string& file, IbFabric* out, Diags* errors)
      : file_(file), out_(out), errors_(errors) {}

  bool Parse(std::string_view text);

 private:
  struct PendingGuid {
    IbNodeType type = IbNodeType::kSwitch;
    uint64_t guid = 0;
    int line = 0;
  };

  // Records "file:line: what; expected form". Returns false so callers can `return Error(..)`.
  bool Error(int line, const std::string& what, const std::string& form = "") {
    ++error_count_;
    if (error_count_ <= kMaxErrors) {
      errors_->push_back(Diag{file_, line, 0,
                              EscapeNonPrintable(form.empty() ? what : what + "; expected " + form)});
    } else if (error_count_ == kMaxErrors + 1) {
      errors_->push_back(Diag{file_, line, 0, "too many errors; giving up"});
    }
    return false;
  }

  void ParseLine(std::string_view line);
  void ParseIdLine(std::string_view line);
  void ParseHeader(std::string_view line, IbNodeType type);
  void ParsePortLine(std::string_view line);
  void CheckPortRanges();

  // The node with `guid`, created on first mention. -1 if it was mentioned with another type.
  int NodeFor(IbNodeType type, uint64_t guid, std::string_view desc);

  std::string Quoted(int node) const { return "\"" + out_->nodes[node].id + "\""; }

  const std::string& file_;
  IbFabric* out_;
  Diags* errors_;
  int error_count_ = 0;
  int line_no_ = 0;
  int current_ = -1;     // node whose record the port lines belong to
  bool broken_ = false;  // the current record's header was bad: skip its port lines quietly
  std::optional<PendingGuid> pending_;
};

int Parser::NodeFor(IbNodeType type, uint64_t guid, std::string_view desc) {
  auto [it, fresh] = out_->by_guid.emplace(guid, static_cast<int>(out_->nodes.size()));
  if (fresh) {
    IbNode n;
    n.type = type;
    n.guid = guid;
    n.id = IbNodeId(type, guid);
    n.description = std::string(desc);
    out_->nodes.push_back(std::move(n));
    return it->second;
  }
  const IbNode& n = out_->nodes[it->second];
  if (n.type != type) {
    Error(line_no_, "\"" + IbNodeId(type, guid) + "\" has the GUID of " + Quoted(it->second) +
                        (n.line ? " (line " + std::to_string(n.line) + ")" : "") +
                        "; expected one node type per GUID");
    return -1;
  }
  return it->second;
}

void Parser::ParseIdLine(std::string_view line) {
  current_ = -1;  // a new record starts
  broken_ = false;
  size_t eq = line.find('=');
  std::string_view key = line.substr(0, eq);
  Cursor c(line.substr(eq + 1));
  uint64_t value = 0;
  if (!c.Consume("0x") || !c.ReadHex(&value)) {
    Error(line_no_, "bad value for " + std::string(key) + "=",
          std::string(key) + "=0x<hex digits>");
    return;
  }
  if (key == "switchguid") {
    // The port GUID of port 0 follows in parentheses.
    if (!c.SkipPortGuid()) {
      Error(line_no_, "switchguid= lacks its port GUID", "switchguid=0x<guid>(<port guid>)");
      return;
    }
  }
  c.SkipSpace();
  if (!c.AtEnd() && !c.Peek('#')) {
    Error(line_no_, "unexpected text after " + std::string(key) + "=",
          std::string(key) + "=0x<hex digits>, optionally followed by a # comment");
    return;
  }
  if (key == "switchguid" || key == "caguid" || key == "rtguid") {
    PendingGuid p;
    p.type = key == "switchguid" ? IbNodeType::kSwitch
             : key == "caguid"   ? IbNodeType::kCa
                                 : IbNodeType::kRouter;
    p.guid = value;
    p.line = line_no_;
    pending_ = p;
  }
}

void Parser::ParseHeader(std::string_view line, IbNodeType type) {
  const char* form = HeaderForm(type);
  current_ = -1;
  broken_ = true;
  Cursor c(line);
  c.ReadWord();  // the keyword
  c.SkipSpace();
  long ports = 0;
  if (!c.ReadInt(1, kMaxPort, &ports)) {
    Error(line_no_, "bad port count in header", form);
    return;
  }
  c.SkipSpace();
  IbNodeType id_type;
  uint64_t guid = 0;
  if (!c.ReadNodeId(&id_type, &guid)) {
    Error(line_no_, "bad node id in header", form);
    return;
  }
  if (id_type != type) {
    Error(line_no_,
          "node id \"" + IbNodeId(id_type, guid) + "\" does not match the " +
              std::string(line.substr(0, line.find_first_of(" \t"))) + " header",
          form);
    return;
  }
  c.SkipSpace();
  std::string_view desc;
  if (!c.Consume('#')) {
    Error(line_no_, "header lacks the # \"<description>\" comment", form);
    return;
  }
  c.SkipSpace();
  if (!c.ReadDescription(&desc)) {
    Error(line_no_, "header lacks a quoted description after '#'", form);
    return;
  }
  if (pending_ && (pending_->type != type || pending_->guid != guid)) {
    Error(line_no_,
          "header for \"" + IbNodeId(type, guid) + "\" follows " + GuidKey(pending_->type) + "=" +
              GuidString(pending_->guid) + " on line " + std::to_string(pending_->line),
          std::string(GuidKey(type)) + "=" + GuidString(guid) + " before this header");
    pending_.reset();
    return;
  }
  pending_.reset();
  int node = NodeFor(type, guid, desc);
  if (node < 0) return;
  IbNode& n = out_->nodes[node];
  if (n.line != 0) {
    Error(line_no_,
          "second record for " + Quoted(node) + " (first at line " + std::to_string(n.line) + ")",
          "one record per node");
    return;
  }
  n.line = line_no_;
  n.ports = static_cast<int>(ports);
  n.description = std::string(desc);
  current_ = node;
  broken_ = false;
}

void Parser::ParsePortLine(std::string_view line) {
  if (current_ < 0) {
    // A broken header was already reported; its port lines would only repeat that.
    if (!broken_)
      Error(line_no_, "port line outside a node record", "a Switch, Ca or Rt header before it");
    return;
  }
  const IbNode& self = out_->nodes[current_];
  const bool is_switch = self.type == IbNodeType::kSwitch;
  const char* form = is_switch ? kSwitchPortForm : kCaPortForm;
  Cursor c(line);
  long port = 0;
  if (!c.ReadBracketInt(1, kMaxPort, &port)) {
    Error(line_no_, "bad local port number", form);
    return;
  }
  if (port > self.ports) {
    Error(line_no_,
          "port " + std::to_string(port) + " of " + Quoted(current_) + " exceeds its " +
              std::to_string(self.ports) + " ports (line " + std::to_string(self.line) + ")",
          "a port from 1 to " + std::to_string(self.ports));
    return;
  }
  c.SkipExtPort();
  c.SkipPortGuid();
  c.SkipSpace();
  IbNodeType peer_type;
  uint64_t peer_guid = 0;
  long peer_port = 0;
  if (!c.ReadNodeId(&peer_type, &peer_guid)) {
    Error(line_no_, "missing the peer's node id", form);
    return;
  }
  if (!c.ReadBracketInt(1, kMaxPort, &peer_port)) {
    Error(line_no_, "missing the peer's port number", form);
    return;
  }
  c.SkipExtPort();
  c.SkipSpace();
  c.SkipPortGuid();
  c.SkipSpace();
  if (!c.Consume('#')) {
    Error(line_no_, "missing '#' before the peer's description", form);
    return;
  }
  c.SkipSpace();
  long number = 0;
  if (!is_switch) {
    // A CA's view starts with its own port's LID and LMC.
    if (!c.Consume("lid") || (c.SkipSpace(), !c.ReadInt(0, 0xffff, &number)) ||
        (c.SkipSpace(), !c.Consume("lmc")) || (c.SkipSpace(), !c.ReadInt(0, 7, &number))) {
      Error(line_no_, "missing the local lid and lmc after '#'", form);
      return;
    }
    c.SkipSpace();
  }
  std::string_view peer_desc;
  if (!c.ReadDescription(&peer_desc)) {
    Error(line_no_, "missing the peer's quoted description", form);
    return;
  }
  c.SkipSpace();
  if (!c.Consume("lid") || (c.SkipSpace(), !c.ReadInt(0, 0xffff, &number))) {
    Error(line_no_, "missing the peer's lid after its description", form);
    return;
  }
  c.SkipSpace();
  std::string_view token = c.ReadWord();
  if (!IsLinkToken(token)) {
    Error(line_no_,
          token.empty() ? "missing the link width and speed"
                        : "bad link width and speed \"" + std::string(token) + "\"",
          form);
    return;
  }

  int peer = NodeFor(peer_type, peer_guid, peer_desc);
  if (peer < 0) return;
  const int self_port = static_cast<int>(port);
  const int other_port = static_cast<int>(peer_port);
  if (peer == current_ && self_port == other_port) {
    Error(line_no_,
          "port " + std::to_string(port) + " of " + Quoted(current_) + " is linked to itself",
          "a peer port other than the port itself");
    return;
  }
  const int mine = LinkOf(*out_, current_, self_port);
  if (mine >= 0) {
    IbLink& link = out_->links[mine];
    const bool first_view = link.a.node == current_ && link.a.port == self_port;
    const IbPort far = first_view ? link.b : link.a;
    if (first_view || !link.token_b.empty()) {
      Error(line_no_,
            "port " + std::to_string(port) + " of " + Quoted(current_) +
                " is listed twice in its record (first at line " + std::to_string(link.line) + ")",
            "each port once");
    } else if (far.node != peer || far.port != other_port) {
      Error(line_no_,
            "port " + std::to_string(port) + " of " + Quoted(current_) + " is linked to " +
                Quoted(peer) + "[" + std::to_string(peer_port) + "] here but to " +
                Quoted(far.node) + "[" + std::to_string(far.port) + "] at line " +
                std::to_string(link.line),
            "both ends of a link to name each other");
    } else {
      link.token_b = std::string(token);
    }
    return;
  }
  const int theirs = LinkOf(*out_, peer, other_port);
  if (theirs >= 0) {
    const IbLink& link = out_->links[theirs];
    const IbPort far = out_->Peer(link, peer, other_port);
    Error(line_no_,
          "port " + std::to_string(port) + " of " + Quoted(current_) + " is linked to " +
              Quoted(peer) + "[" + std::to_string(peer_port) + "], which line " +
              std::to_string(link.line) + " links to " + Quoted(far.node) + "[" +
              std::to_string(far.port) + "]",
          "both ends of a link to name each other");
    return;
  }
  IbLink link;
  link.a = IbPort{current_, self_port};
  link.b = IbPort{peer, other_port};
  link.token_a = std::string(token);
  link.line = line_no_;
  const int index = static_cast<int>(out_->links.size());
  out_->links.push_back(std::move(link));
  SetLink(out_, current_, self_port, index);
  SetLink(out_, peer, other_port, index);
}

void Parser::ParseLine(std::string_view raw) {
  std::string_view line = Trim(raw);
  if (line.empty() || line[0] == '#') return;
  if (line[0] == '[') return ParsePortLine(line);
  for (std::string_view key :
       {"vendid=", "devid=", "sysimgguid=", "switchguid=", "caguid=", "rtguid="}) {
    if (StartsWith(line, key)) return ParseIdLine(line);
  }
  auto keyword = [&](std::string_view word) {
    return StartsWith(line, word) && line.size() > word.size() && IsSpace(line[word.size()]);
  };
  if (keyword("Switch")) return ParseHeader(line, IbNodeType::kSwitch);
  if (keyword("Ca")) return ParseHeader(line, IbNodeType::kCa);
  if (keyword("Rt")) return ParseHeader(line, IbNodeType::kRouter);
  // Grouped (-g) output: section headers between records.
  if (line == "Non-Chassis Nodes" || StartsWith(line, "Hostname: ")) return;
  if (StartsWith(line, "Chassis ")) {
    Cursor c(line.substr(8));
    long n = 0;
    c.ReadInt(0, 0xffff, &n);
    c.SkipSpace();
    if (c.AtEnd() || c.Peek('(')) return;
  }
  if (IsToolDiagnostic(line)) {
    out_->warnings.push_back(Diag{file_, line_no_, 0,
                                  "ibnetdiscover reported an error: \"" +
                                      EscapeNonPrintable(line) + "\"; the dump may be incomplete"});
    return;
  }
  std::string shown(line.substr(0, 60));
  if (line.size() > 60) shown += "...";
  Error(line_no_, "unrecognized line \"" + shown + "\"", kAnyLineForm);
}

void Parser::CheckPortRanges() {
  for (const IbLink& link : out_->links) {
    for (const IbPort& end : {link.a, link.b}) {
      const IbNode& n = out_->nodes[end.node];
      if (n.line != 0 && end.port > n.ports) {
        Error(link.line,
              "port " + std::to_string(end.port) + " of " + Quoted(end.node) + " exceeds its " +
                  std::to_string(n.ports) + " ports (line " + std::to_string(n.line) + ")",
              "a port from 1 to " + std::to_string(n.ports));
      }
    }
  }
}

bool Parser::Parse(std::string_view text) {
  *out_ = IbFabric();
  // About one node per 300 bytes of a typical dump; saves rehashing on big fabrics.
  out_->by_guid.reserve(text.size() / 300 + 16);
  size_t pos = 0;
  while (pos < text.size() && error_count_ <= kMaxErrors) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line_no_;
    ParseLine(text.substr(pos, end - pos));
    pos = end + 1;
  }
  if (error_count_ <= kMaxErrors) CheckPortRanges();
  return error_count_ == 0;
}

}  // namespace

const std::string& IbLink::Token() const {
  if (token_a.empty()) return token_b;
  if (token_b.empty() || token_a == token_b) return token_a;
  return LinkSlower(token_b, token_a) ? token_b : token_a;
}

int IbFabric::FindNode(uint64_t guid) const {
  auto it = by_guid.find(guid);
  return it == by_guid.end() ? -1 : it->second;
}

int IbFabric::FindLink(int node, int port) const {
  if (node < 0 || node >= static_cast<int>(nodes.size()) || port < 0) return -1;
  return LinkOf(*this, node, port);
}

IbPort IbFabric::Peer(const IbLink& link, int node, int port) const {
  return link.a.node == node && link.a.port == port ? link.b : link.a;
}

size_t IbFabric::CountNodes(IbNodeType type) const {
  size_t n = 0;
  for (const IbNode& node : nodes) n += node.type == type;
  return n;
}

bool LinkSlower(const std::string& a, const std::string& b) {
  std::optional<LinkSpec> sa = LinkSpecFromIbToken(a);
  std::optional<LinkSpec> sb = LinkSpecFromIbToken(b);
  if (!sa || !sb) return !sa && sb;
  if (sa->rate_gbps != sb->rate_gbps) return sa->rate_gbps < sb->rate_gbps;
  return sa->width < sb->width;
}

bool ParseIbnetdiscover(std::string_view text, const std::string& filename, IbFabric* out,
                        Diags* errors) {
  Parser parser(filename, out, errors);
  return parser.Parse(text);
}

bool ParseIbnetdiscoverFile(const std::string& path, IbFabric* out, Diags* errors) {
  std::string text;
  if (!ReadTextFile(path, kIbnetdiscoverInput, &text, errors)) {
    *out = IbFabric();
    return false;
  }
  return ParseIbnetdiscover(text, path, out, errors);
}

std::string IbNodeId(IbNodeType type, uint64_t guid) {
  static const char kHex[] = "0123456789abcdef";
  std::string id = type == IbNodeType::kSwitch ? "S-" : type == IbNodeType::kCa ? "H-" : "R-";
  for (int shift = 60; shift >= 0; shift -= 4) id += kHex[(guid >> shift) & 0xf];
  return id;
}

std::string GuidString(uint64_t guid) {
  return "0x" + IbNodeId(IbNodeType::kSwitch, guid).substr(2);
}

}  // namespace railguard::topo
