// SPDX-License-Identifier: GPL-2.0-or-later
#include "config/slurm_health_check.h"

#include <glob.h>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "base/numbers.h"
#include "base/text_file.h"
#include "config/config.h"

namespace railguard {
namespace {

constexpr int kMaxIncludeDepth = 8;

bool SameWord(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool Blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// One logical line: its text without the comment, and the line it starts on.
struct Line {
  std::string text;
  int number = 0;
};

// The logical lines of `text`: comments cut ('#' not after '\'), "\#" made '#', lines
// ending in '\' joined with the next.
std::vector<Line> LogicalLines(const std::string& text) {
  std::vector<Line> out;
  Line cur;
  bool continued = false;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view raw(text.data() + start, end - start);
    start = end + 1;
    ++number;
    std::string line;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '#') {
        line += '#';
        ++i;
      } else if (raw[i] == '#') {
        break;
      } else {
        line += raw[i];
      }
    }
    while (!line.empty() && Blank(line.back())) line.pop_back();
    const bool goes_on = !line.empty() && line.back() == '\\';
    if (goes_on) line.pop_back();
    if (!continued) cur = Line{"", number};
    cur.text += line;
    continued = goes_on;
    if (!continued) out.push_back(cur);
  }
  if (continued) out.push_back(cur);
  return out;
}

// The blank-separated tokens of `s`; a double-quoted stretch is kept in one token.
std::vector<std::string> Tokens(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, any = false;
  for (char c : s) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
    } else if (!quoted && Blank(c)) {
      if (any) out.push_back(cur);
      cur.clear();
      any = false;
    } else {
      cur += c;
      any = true;
    }
  }
  if (any) out.push_back(cur);
  return out;
}

class Reader {
 public:
  // `slurm_conf`'s folder is where relative Include paths start (Slurm 25.11+, slurm.conf(5)
  // INCLUDE MODIFIERS; 22.05 took the process's working folder).
  Reader(const std::string& slurm_conf, SlurmHealthCheck* out, Diags* diags)
      : base_(DirName(slurm_conf)), out_(out), diags_(diags) {}

  bool File(const std::string& path, int depth) {
    std::string text;
    if (!ReadTextFile(path, kSlurmConfInput, &text, diags_)) return false;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    bool ok = true;
    for (const Line& line : LogicalLines(text)) {
      std::vector<std::string> tokens = Tokens(line.text);
      if (tokens.empty()) continue;
      if (SameWord(tokens[0], "include")) {
        ok = Include(path, line, depth) && ok;
        continue;
      }
      for (const std::string& t : tokens) ok = Setting(path, line.number, t) && ok;
    }
    return ok;
  }

 private:
  void Error(const std::string& file, int line, const std::string& message) {
    diags_->push_back(Diag{file, line, 0, message});
  }

  bool Include(const std::string& from, const Line& line, int depth) {
    std::string target = line.text;
    const size_t at = target.find_first_not_of(" \t", std::string("include").size());
    target = at == std::string::npos ? "" : target.substr(at);
    if (target.size() >= 2 && target.front() == '"' && target.back() == '"')
      target = target.substr(1, target.size() - 2);
    if (target.empty()) {
      Error(from, line.number, "Include without a file; expected Include FILE");
      return false;
    }
    if (depth >= kMaxIncludeDepth) {
      Error(from, line.number,
            "Include " + target + " nested " + std::to_string(depth + 1) +
                " deep; expected at most " + std::to_string(kMaxIncludeDepth) +
                " levels (an include cycle?)");
      return false;
    }
    if (target[0] != '/') target = base_ + target;
    glob_t g{};
    const int rc = glob(target.c_str(), GLOB_NOCHECK, nullptr, &g);
    std::vector<std::string> files;
    for (size_t i = 0; rc == 0 && i < g.gl_pathc; ++i) files.push_back(g.gl_pathv[i]);
    globfree(&g);
    bool ok = true;
    for (const std::string& f : files) ok = File(f, depth + 1) && ok;
    return ok;
  }

  bool Setting(const std::string& file, int line, const std::string& token) {
    const size_t eq = token.find('=');
    if (eq == std::string::npos) return true;
    const std::string key = token.substr(0, eq);
    const std::string value = token.substr(eq + 1);
    const std::string at = file + ":" + std::to_string(line);
    if (SameWord(key, "HealthCheckProgram")) {
      out_->program = value;
      out_->program_at = at;
    } else if (SameWord(key, "HealthCheckInterval")) {
      if (!ParseDigits(value, 0, 65535, &out_->interval)) {
        Error(file, line, "HealthCheckInterval=" + value + ": expected whole seconds, 0 to 65535");
        return false;
      }
      out_->interval_at = at;
    } else if (SameWord(key, "HealthCheckTimeout")) {
      if (!ParseDigits(value, 1, 65535, &out_->timeout)) {
        Error(file, line, "HealthCheckTimeout=" + value + ": expected whole seconds, 1 to 65535");
        return false;
      }
      out_->timeout_at = at;
    } else if (SameWord(key, "HealthCheckNodeState")) {
      return States(file, line, value);
    }
    return true;
  }

  bool States(const std::string& file, int line, const std::string& value) {
    static const struct {
      const char* word;
      unsigned bit;
    } kWords[] = {{"ANY", kHcAny},          {"ALLOC", kHcAlloc},
                  {"MIXED", kHcMixed},      {"IDLE", kHcIdle},
                  {"NONDRAINED_IDLE", kHcNondrainedIdle}, {"CYCLE", kHcCycle},
                  {"START_ONLY", kHcStartOnly}, {"REBOOT_ONLY", kHcRebootOnly}};
    unsigned states = 0;
    size_t start = 0;
    while (start <= value.size()) {
      size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      const std::string word = value.substr(start, comma - start);
      start = comma + 1;
      unsigned bit = 0;
      for (const auto& w : kWords)
        if (SameWord(word, w.word)) bit = w.bit;
      if (!bit) {
        Error(file, line,
              "HealthCheckNodeState=" + value + ": unknown state '" + word +
                  "'; expected a comma list of ALLOC, ANY, CYCLE, IDLE, MIXED, NONDRAINED_IDLE, "
                  "or START_ONLY or REBOOT_ONLY alone");
        return false;
      }
      states |= bit;
    }
    for (unsigned only : {unsigned{kHcStartOnly}, unsigned{kHcRebootOnly}}) {
      if ((states & only) && states != only) {
        Error(file, line,
              "HealthCheckNodeState=" + value + ": " +
                  (only == kHcStartOnly ? "START_ONLY" : "REBOOT_ONLY") +
                  " cannot be combined with other states; expected it alone");
        return false;
      }
    }
    // Only CYCLE: Slurm adds ANY when no word names node states.
    if (!(states & ~unsigned{kHcCycle})) states |= kHcAny;
    out_->states = states;
    out_->states_text = value;
    out_->states_at = file + ":" + std::to_string(line);
    return true;
  }

  std::string base_;
  SlurmHealthCheck* out_;
  Diags* diags_;
};

}  // namespace

bool ReadSlurmHealthCheck(const std::string& slurm_conf, SlurmHealthCheck* out, Diags* diags) {
  *out = SlurmHealthCheck();
  Reader r(slurm_conf, out, diags);
  return r.File(slurm_conf, 0);
}

bool RunsOnDrainedIdle(const SlurmHealthCheck& hc) {
  if (hc.states & (kHcStartOnly | kHcRebootOnly)) return false;
  return (hc.states & (kHcAny | kHcIdle)) != 0;
}

int AnswerWithin(const SlurmHealthCheck& hc) {
  return std::max(1, hc.timeout - std::max(2, hc.timeout / 10));
}

}  // namespace railguard
