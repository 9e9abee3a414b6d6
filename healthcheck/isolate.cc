// SPDX-License-Identifier: GPL-2.0-or-later
#include "healthcheck/isolate.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>

namespace railguard::health {
namespace {

using Clock = std::chrono::steady_clock;

// Records: "P phase\n", "B token what\n", "E token\n", "R code outlen errlen\n" + the bytes.
// A text field is cut at this length and loses its newlines, so that a line stays a line.
constexpr size_t kMaxField = 2000;

std::string Field(const std::string& s) {
  std::string out = s.substr(0, kMaxField);
  std::replace(out.begin(), out.end(), '\n', '?');
  return out;
}

// Closes every descriptor of this process but `keep` and 0-2 (the child's start).
void CloseInherited(int keep) {
  std::vector<int> fds;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int own = dirfd(d);
    while (struct dirent* e = readdir(d)) {
      char* end = nullptr;
      const long fd = std::strtol(e->d_name, &end, 10);
      if (end != e->d_name && *end == '\0' && fd > 2 && fd != keep && fd != own)
        fds.push_back(static_cast<int>(fd));
    }
    closedir(d);
  } else {
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != keep) fds.push_back(fd);
  }
  for (int fd : fds) close(fd);
}

[[noreturn]] void ChildMain(const ChildWork& work, int fd, pid_t parent) {
  // Die with the parent (a parent killed by slurmd must not leave a working child).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  signal(SIGPIPE, SIG_IGN);
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int std_fd = 0; std_fd <= 2; ++std_fd) dup2(null, std_fd);
    if (null > 2) close(null);
  }
  CloseInherited(fd);
  ChildReporter reporter(fd);
  std::string out;
  std::string err;
  int code = 4;
  try {
    code = work(reporter, &out, &err);
  } catch (const std::exception& e) {
    err += std::string("railcheck: internal error: ") + e.what() + "\n";
  } catch (...) {
    err += "railcheck: internal error\n";
  }
  reporter.Result(code, out, err);
  _exit(0);
}

// What the parent has heard so far.
struct Heard {
  std::string buf;
  std::string phase;
  Clock::time_point phase_start;
  std::map<uint64_t, std::pair<std::string, Clock::time_point>> reads;
  bool result = false;
  int code = 0;
  std::string out;
  std::string err;
  std::string garbled;  // a record the parent could not read
};

// Consumes the whole records at the front of `h->buf`.
void Parse(Heard* h) {
  size_t at = 0;
  while (!h->result && h->garbled.empty()) {
    const size_t nl = h->buf.find('\n', at);
    if (nl == std::string::npos) break;
    const std::string line = h->buf.substr(at, nl - at);
    const char kind = line.empty() ? '?' : line[0];
    const std::string rest = line.size() > 2 ? line.substr(2) : "";
    if (kind == 'P') {
      h->phase = rest;
      h->phase_start = Clock::now();
    } else if (kind == 'B' || kind == 'E') {
      char* end = nullptr;
      const uint64_t token = std::strtoull(rest.c_str(), &end, 10);
      if (kind == 'B')
        h->reads[token] = {*end == ' ' ? std::string(end + 1) : std::string(), Clock::now()};
      else
        h->reads.erase(token);
    } else if (kind == 'R') {
      int code = 0;
      size_t out_len = 0;
      size_t err_len = 0;
      if (std::sscanf(rest.c_str(), "%d %zu %zu", &code, &out_len, &err_len) != 3) {
        h->garbled = line;
        break;
      }
      if (h->buf.size() - (nl + 1) < out_len + err_len) break;  // the rest is on its way
      h->out = h->buf.substr(nl + 1, out_len);
      h->err = h->buf.substr(nl + 1 + out_len, err_len);
      h->code = code;
      h->result = true;
      at = nl + 1 + out_len + err_len;
      break;
    } else {
      h->garbled = line;
      break;
    }
    at = nl + 1;
  }
  h->buf.erase(0, at);
}

std::string ExitStatus(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

void ChildReporter::Send(const std::string& record) {
  std::lock_guard<std::mutex> lock(mu_);
  size_t done = 0;
  while (done < record.size()) {
    const ssize_t n = write(fd_, record.data() + done, record.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone: nobody to tell
    done += static_cast<size_t>(n);
  }
}

void ChildReporter::Phase(const std::string& phase) { Send("P " + Field(phase) + "\n"); }

uint64_t ChildReporter::ReadBegin(const std::string& what) {
  const uint64_t token = next_++;
  Send("B " + std::to_string(token) + " " + Field(what) + "\n");
  return token;
}

void ChildReporter::ReadEnd(uint64_t token) { Send("E " + std::to_string(token) + "\n"); }

void ChildReporter::Result(int code, const std::string& out, const std::string& err) {
  Send("R " + std::to_string(code) + " " + std::to_string(out.size()) + " " +
       std::to_string(err.size()) + "\n" + out + err);
}

bool ReportingSysfs::ReadFile(const std::string& path, std::string* out, std::string* err) const {
  const uint64_t t = rep_->ReadBegin(path);
  const bool ok = fs_->ReadFile(path, out, err);
  rep_->ReadEnd(t);
  return ok;
}

bool ReportingSysfs::ListDir(const std::string& path, std::vector<std::string>* out,
                             std::string* err) const {
  const uint64_t t = rep_->ReadBegin(path);
  const bool ok = fs_->ListDir(path, out, err);
  rep_->ReadEnd(t);
  return ok;
}

bool ReportingSysfs::Resolve(const std::string& path, std::string* out, std::string* err) const {
  const uint64_t t = rep_->ReadBegin(path);
  const bool ok = fs_->Resolve(path, out, err);
  rep_->ReadEnd(t);
  return ok;
}

bool ReportingSysfs::Exists(const std::string& path) const {
  const uint64_t t = rep_->ReadBegin(path);
  const bool ok = fs_->Exists(path);
  rep_->ReadEnd(t);
  return ok;
}

bool ReportingVerbs::QueryPort(const std::string& name, int port, VerbsPort* out,
                               std::string* err) {
  const uint64_t t = rep_->ReadBegin("ibv_query_port(" + name + ", " + std::to_string(port) + ")");
  const bool ok = verbs_->QueryPort(name, port, out, err);
  rep_->ReadEnd(t);
  return ok;
}

ChildOutcome RunInChild(const ChildWork& work, const ChildLimits& limits) {
  ChildOutcome o;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    o.why = std::string("cannot make a pipe: ") + std::strerror(errno);
    return o;
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    o.why = std::string("cannot fork: ") + std::strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return o;
  }
  if (pid == 0) {
    close(fds[0]);
    ChildMain(work, fds[1], parent);
  }
  close(fds[1]);
  o.started = true;
  o.pid = pid;
  const Clock::time_point started = Clock::now();
  Heard h;
  bool eof = false;
  char chunk[65536];
  for (;;) {
    const Clock::time_point now = Clock::now();
    Clock::time_point until = limits.deadline;
    bool bounded = false;
    // In the bounded phase, a read in flight may last that long from the later of the
    // phase's start and its own (a child merely slow between reads is not late).
    if (!limits.bounded_phase.empty() && h.phase == limits.bounded_phase && !h.reads.empty()) {
      Clock::time_point oldest = h.reads.begin()->second.second;
      for (const auto& kv : h.reads) oldest = std::min(oldest, kv.second.second);
      const auto phase_end =
          std::max(h.phase_start, oldest) + std::chrono::milliseconds(limits.bounded_phase_ms);
      if (phase_end < until) {
        until = phase_end;
        bounded = true;
      }
    }
    if (now >= until) {
      o.why = bounded ? "did not finish " + h.phase + " within " +
                            std::to_string(limits.bounded_phase_ms) + " ms"
                      : "did not finish within its time limit (" +
                            std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               now - started)
                                               .count()) +
                            " ms)";
      break;
    }
    const auto wait_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
    struct pollfd p = {fds[0], POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<long long>(wait_ms, 60000)));
    if (ready < 0 && errno != EINTR) {
      o.why = std::string("cannot watch the child: poll: ") + std::strerror(errno);
      break;
    }
    if (ready <= 0) continue;
    const ssize_t n = read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
    } else {
      h.buf.append(chunk, static_cast<size_t>(n));
      Parse(&h);
    }
    if (h.result) {
      o.finished = true;
      o.code = h.code;
      o.out = std::move(h.out);
      o.err = std::move(h.err);
      break;
    }
    if (!h.garbled.empty()) {
      o.why = "sent a record railcheck cannot read: '" + Field(h.garbled) + "'";
      break;
    }
    if (eof) {
      // The pipe closes when the child's last thread is gone: it is as good as reaped.
      int status = 0;
      pid_t w = 0;
      for (int i = 0; i < 100 && w == 0; ++i) {
        w = waitpid(pid, &status, WNOHANG);
        if (w == 0) usleep(1000);
      }
      o.why = "ended without a result" + (w == pid ? " (" + ExitStatus(status) + ")" : "");
      o.phase = h.phase;
      o.reaped = w == pid;
      close(fds[0]);
      return o;
    }
  }
  if (o.finished) {
    // Reap a child that exits promptly; one held in the kernel by a stuck thread is left.
    struct pollfd p = {fds[0], POLLIN, 0};
    const Clock::time_point give_up = Clock::now() + std::chrono::milliseconds(100);
    while (!eof && Clock::now() < give_up && poll(&p, 1, 10) >= 0) {
      if (p.revents && read(fds[0], chunk, sizeof(chunk)) <= 0) eof = true;
    }
    int status = 0;
    o.reaped = waitpid(pid, &status, WNOHANG) == pid;
    close(fds[0]);
    return o;
  }
  // Not waited for, not even briefly: a child in D state would not be there to reap.
  kill(pid, SIGKILL);
  close(fds[0]);
  o.phase = h.phase;
  const Clock::time_point now = Clock::now();
  std::vector<std::pair<Clock::time_point, std::string>> reads;
  for (const auto& kv : h.reads) reads.push_back({kv.second.second, kv.second.first});
  std::sort(reads.begin(), reads.end());
  for (const auto& r : reads)
    o.stuck.push_back(
        StuckRead{r.second, std::chrono::duration<double, std::milli>(now - r.first).count()});
  return o;
}

NodeFacts FactsOfLateChild(const ChildOutcome& c, const std::string& node,
                           const std::string& sysfs_root, const std::vector<std::string>& nics,
                           int read_timeout_ms) {
  NodeFacts f;
  f.node = node;
  f.sysfs_root = sysfs_root;
  f.gpus_complete = false;
  for (size_t k = 0; k < nics.size(); ++k) {
    NicFacts n;
    n.rail = static_cast<int>(k);
    n.name = nics[k];
    n.complete = false;
    f.nics.push_back(std::move(n));
  }
  const std::string dir = JoinPath(sysfs_root, "class/infiniband/");
  // The oldest read is what holds the child; the others began after it (and, in a child
  // that stopped as a whole, were only caught by it).
  for (const StuckRead& r : std::vector<StuckRead>(c.stuck.begin(), c.stuck.begin() +
                                                   std::min<size_t>(1, c.stuck.size()))) {
    GatherTimeout t;
    for (size_t k = 0; k < nics.size() && t.rail < 0; ++k) {
      const std::string& nic = nics[k];
      if (r.what == dir + nic || r.what.rfind(dir + nic + "/", 0) == 0 ||
          r.what.rfind("ibv_query_port(" + nic + ",", 0) == 0)
        t.rail = static_cast<int>(k);
    }
    t.task = t.rail >= 0 ? "rail" + std::to_string(t.rail) + " " + nics[t.rail] : "node";
    t.path = r.what;
    t.limit_ms = read_timeout_ms;
    f.timeouts.push_back(std::move(t));
  }
  return f;
}

}  // namespace railguard::health
