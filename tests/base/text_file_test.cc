// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/text_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include "tests/base/base_test_util.h"

namespace railguard {
namespace base_text_file_test {

using testing::ScratchDir;

constexpr InputKind kSmall{"a small test input", 1000};

TEST(ReadTextFile, ReadsARegularFileUpToItsLimit) {
  ScratchDir tmp;
  std::ofstream(tmp / "f") << std::string(1000, 'a');
  std::string text;
  Diags diags;
  ASSERT_TRUE(ReadTextFile(tmp / "f", kSmall, &text, &diags)) << FormatDiags(diags);
  EXPECT_EQ(text.size(), 1000u);
  std::ofstream(tmp / "g") << std::string(1001, 'a');
  EXPECT_FALSE(ReadTextFile(tmp / "g", kSmall, &text, &diags));
  EXPECT_EQ(FormatDiags(diags), tmp / "g" + ": file is 1001 bytes; expected at most 1000\n");
}

TEST(ReadTextFile, RefusesFoldersAndDevicesThatWouldNeverEnd) {
  ScratchDir tmp;
  std::string text;
  for (const std::string& path : {tmp.path(), std::string("/dev/zero"), std::string("/dev/urandom")}) {
    Diags diags;
    EXPECT_FALSE(ReadTextFile(path, kSmall, &text, &diags));
    ASSERT_EQ(diags.size(), 1u);
    const char* what = path == tmp.path() ? "is a folder" : "is a character device";
    EXPECT_EQ(diags[0].ToString(), path + ": " + what +
                                       "; expected a small test input (a regular file or a pipe)");
  }
  Diags diags;
  EXPECT_FALSE(ReadTextFile(tmp / "none", kSmall, &text, &diags));
  EXPECT_EQ(FormatDiags(diags), tmp / "none" + ": cannot open: No such file or directory\n");
}

TEST(ReadTextFile, CutsAnEndlessPipeAtItsLimit) {
  ScratchDir tmp;
  const std::string fifo = tmp / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    sigset_t pipe_signal;  // the reader closes early: EPIPE for this thread, not a SIGPIPE
    sigemptyset(&pipe_signal);
    sigaddset(&pipe_signal, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
    const int fd = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    const std::string chunk(4096, 'x');
    while (write(fd, chunk.data(), chunk.size()) > 0) {
    }  // until the reader is gone (EPIPE)
    close(fd);
  });
  std::string text;
  Diags diags;
  EXPECT_FALSE(ReadTextFile(fifo, kSmall, &text, &diags));
  writer.join();
  EXPECT_EQ(FormatDiags(diags),
            fifo + ": more than 1000 bytes; expected a small test input of at most 1000 bytes\n");
}

TEST(ReadTextFd, ReadsAPipeAsStandardInputIsRead) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ASSERT_EQ(write(fds[1], "abc", 3), 3);
  close(fds[1]);
  std::string text;
  Diags diags;
  EXPECT_TRUE(ReadTextFd(fds[0], "<stdin>", kSmall, &text, &diags));
  close(fds[0]);
  EXPECT_EQ(text, "abc");
}

TEST(EscapeNonPrintable, QuotesControlBytesAndBrokenUtf8) {
  EXPECT_EQ(EscapeNonPrintable(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(EscapeNonPrintable("\x7f" "ELF\x02\x01"), "\\x7fELF\\x02\\x01");
  EXPECT_EQ(EscapeNonPrintable("tab\tok"), "tab\tok");
  EXPECT_EQ(EscapeNonPrintable("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(EscapeNonPrintable("\xc3(\xff\x1b[2J"), "\\xc3(\\xff\\x1b[2J");
  EXPECT_EQ(EscapeNonPrintable("line\n"), "line\\x0a");
}

}  // namespace base_text_file_test
}  // namespace railguard
