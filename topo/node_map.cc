// SPDX-License-Identifier: GPL-2.0-or-later
#include "topo/node_map.h"

#include <cctype>

#include "base/text_file.h"

namespace railguard::topo {
namespace {

const char kForm[] = "<H-guid|S-guid|0xguid> <host> [<device>], e.g. H-003048c74e4a0000 node1";

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "H-<hex>", "S-<hex>", "R-<hex>" or "0x<hex>", at most 16 hex digits. False for anything else.
bool ParseId(const std::string& id, uint64_t* guid) {
  const bool prefixed =
      id.size() > 2 && (id[0] == 'H' || id[0] == 'S' || id[0] == 'R') && id[1] == '-';
  const bool hex = id.size() > 2 && id[0] == '0' && (id[1] == 'x' || id[1] == 'X');
  *guid = 0;
  bool ok = (prefixed || hex) && id.size() <= 18;
  for (size_t i = 2; i < id.size() && ok; ++i) {
    const int c = std::tolower(static_cast<unsigned char>(id[i]));
    ok = std::isxdigit(c) != 0;
    *guid = *guid << 4 | static_cast<uint64_t>(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return ok;
}

// The name after the id: quoted (ibnetdiscover's map; a comment may follow the closing quote)
// or bare up to a '#'. False with `*what` set when the quote is not closed.
bool ParseName(std::string_view rest, const std::string& id, std::string_view* name,
               std::string* what) {
  *name = TrimSpaces(rest);
  if (!name->empty() && (*name)[0] == '"') {
    const size_t close = name->find('"', 1);
    if (close == std::string_view::npos) {
      *what = "unterminated name after " + id;
      return false;
    }
    *name = TrimSpaces(name->substr(1, close - 1));
  } else {
    const size_t hash = name->find('#');
    if (hash != std::string_view::npos) *name = TrimSpaces(name->substr(0, hash));
  }
  return true;
}

}  // namespace

bool ParseNodeMap(std::string_view text, const std::string& filename, NodeMap* out, Diags* errors) {
  out->clear();
  std::unordered_map<uint64_t, int> first_line;
  const size_t errors_before = errors->size();
  int line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = TrimSpaces(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    auto error = [&](const std::string& what) {
      errors->push_back(Diag{filename, line_no, 0, what + "; expected " + kForm});
    };
    size_t id_end = 0;
    while (id_end < line.size() && !std::isspace(static_cast<unsigned char>(line[id_end])))
      ++id_end;
    const std::string id(line.substr(0, id_end));
    uint64_t guid = 0;
    if (!ParseId(id, &guid)) {
      error("bad GUID \"" + id + "\"");
      continue;
    }
    std::string_view name;
    std::string what;
    if (!ParseName(line.substr(id_end), id, &name, &what)) {
      error(what);
      continue;
    }
    if (name.empty()) {
      error("GUID " + id + " has no name");
      continue;
    }
    auto [it, fresh] = first_line.emplace(guid, line_no);
    if (!fresh) {
      error("GUID " + id + " is mapped twice (first at line " + std::to_string(it->second) + ")");
      continue;
    }
    (*out)[guid] = std::string(name);
  }
  return errors->size() == errors_before;
}

bool LoadNodeMapFile(const std::string& path, NodeMap* out, Diags* errors) {
  std::string text;
  return ReadTextFile(path, kNodeMapInput, &text, errors) && ParseNodeMap(text, path, out, errors);
}

}  // namespace railguard::topo
