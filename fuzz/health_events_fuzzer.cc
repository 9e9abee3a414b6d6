// SPDX-License-Identifier: GPL-2.0-or-later
// Fuzzes the reader of the health event log (wire/event_log.h): each line through
// EventFromJsonLine, and the whole text as a log file through ReadEvents. An event that reads
// must write out (EventToJsonLine) as a line that reads back and writes out the same again.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "wire/event_log.h"

namespace railguard::fuzz {
namespace {

// The log file of this process, in memory-backed /dev/shm when there is one; removed at exit.
const char* LogPath() {
  static char path[64] = "";
  if (path[0] == '\0') {
    std::snprintf(path, sizeof path, "%s/railguard-fuzz-%d.log",
                  access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", static_cast<int>(getpid()));
    std::atexit([] { unlink(path); });
  }
  return path;
}

void CheckLine(std::string_view line) {
  wire::HealthEvent event;
  std::string err;
  if (!wire::EventFromJsonLine(line, &event, &err)) {
    RG_FUZZ_CHECK(!err.empty(), std::string("a line refused without a message"));
    return;
  }
  const std::string written = wire::EventToJsonLine(event);
  RG_FUZZ_CHECK(
      !written.empty() && written.back() == '\n' && written.size() <= wire::kMaxEventLineBytes,
      "EventToJsonLine wrote " + std::to_string(written.size()) + " bytes");
  wire::HealthEvent again;
  RG_FUZZ_CHECK(wire::EventFromJsonLine(std::string_view(written).substr(0, written.size() - 1),
                                          &again, &err),
                "EventToJsonLine's line does not read back: " + err + "\n" + written);
  RG_FUZZ_CHECK(wire::EventToJsonLine(again) == written,
                "the event writes out otherwise once read back:\n" + written);
}

void FuzzHealthEvents(std::string_view text) {
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    CheckLine(text.substr(start, end - start));
    start = end + 1;
  }

  const std::string path = LogPath();
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  RG_FUZZ_CHECK(fd >= 0, "cannot write " + path);
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    RG_FUZZ_CHECK(n > 0, "cannot write " + path);
    done += static_cast<size_t>(n);
  }
  close(fd);
  std::vector<wire::HealthEvent> events;
  Diags problems;
  std::string err;
  const wire::EventLogStatus status =
      wire::ReadEvents(path, -1e300, 1e300, &events, &problems, &err);
  RG_FUZZ_CHECK(status == wire::EventLogStatus::kOk, "ReadEvents: " + err);
  for (const Diag& d : problems) RG_FUZZ_CHECK(d.line > 0, "a problem without a line");
}

}  // namespace
}  // namespace railguard::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  railguard::fuzz::FuzzHealthEvents(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
