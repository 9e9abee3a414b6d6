// SPDX-License-Identifier: GPL-2.0-or-later
#include "base/file_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/args.h"
#include "tests/base/base_test_util.h"

namespace railguard {
namespace base_file_util_test {

using testing::ScratchDir;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

TEST(ReplaceFile, WritesACharacterDeviceInPlaceAndLeavesItADevice) {
  struct stat before;
  ASSERT_EQ(stat("/dev/null", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  std::string err;
  EXPECT_TRUE(WriteOutput("/dev/null", "discarded\n", &err)) << err;
  FileError ferr;
  EXPECT_TRUE(ReplaceFile("/dev/null", "discarded\n", &ferr)) << ferr.Message();
  struct stat after;
  ASSERT_EQ(lstat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  EXPECT_EQ(after.st_ino, before.st_ino);
}

// Writes `text` with WriteOutput to `target` (a FIFO or a link to one) while a thread reads
// the FIFO; returns what the reader got. `spare` is a second name of the FIFO that releases
// a reader still waiting when the write went elsewhere.
std::string WriteThroughFifo(const std::string& fifo, const std::string& spare,
                             const std::string& target, const std::string& text, bool* ok,
                             std::string* err) {
  std::string got;
  std::thread reader([&] {
    const int fd = open(fifo.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    char buf[256];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) got.append(buf, static_cast<size_t>(n));
    close(fd);
  });
  *ok = WriteOutput(target, text, err);
  const int unblock = open(spare.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (unblock >= 0) close(unblock);
  reader.join();
  return got;
}

TEST(ReplaceFile, WritesAFifoInPlaceAndLeavesItAFifo) {
  ScratchDir tmp;
  const std::string fifo = tmp / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(link(fifo.c_str(), (tmp / "pipe.spare").c_str()), 0);
  bool ok = false;
  std::string err;
  EXPECT_EQ(WriteThroughFifo(fifo, tmp / "pipe.spare", fifo, "rails: 8\n", &ok, &err),
            "rails: 8\n");
  EXPECT_TRUE(ok) << err;
  struct stat st;
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST(ReplaceFile, FollowsALinkToASpecialFileAsDevStdoutIsAndKeepsTheLink) {
  ScratchDir tmp;
  const std::string fifo = tmp / "pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ASSERT_EQ(link(fifo.c_str(), (tmp / "pipe.spare").c_str()), 0);
  ASSERT_EQ(symlink(fifo.c_str(), (tmp / "out").c_str()), 0);
  bool ok = false;
  std::string err;
  EXPECT_EQ(WriteThroughFifo(fifo, tmp / "pipe.spare", tmp / "out", "x\n", &ok, &err), "x\n");
  EXPECT_TRUE(ok) << err;
  struct stat st;
  ASSERT_EQ(lstat((tmp / "out").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

// Sets the modification time of `path` `seconds` into the past.
void Age(const std::string& path, int seconds) {
  const struct timespec t[2] = {{time(nullptr) - seconds, 0}, {time(nullptr) - seconds, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), t, 0), 0) << path;
}

TEST(ReplaceFile, ReplacesARegularFileAndRemovesStaleTemporaries) {
  ScratchDir tmp;
  Put(tmp / "state.json", "old\n");
  Put(tmp / ".state.json.tmp.99999", "half");  // a writer that crashed two minutes ago
  Age(tmp / ".state.json.tmp.99999", 120);
  const std::string own = tmp / (".state.json.tmp." + std::to_string(getpid()));
  Put(own, "half");  // an earlier process with this pid: O_EXCL would refuse it
  FileError err;
  ASSERT_TRUE(ReplaceFile(tmp / "state.json", "new\n", &err)) << err.Message();
  EXPECT_EQ(Slurp(tmp / "state.json"), "new\n");
  EXPECT_FALSE(std::filesystem::exists(tmp / ".state.json.tmp.99999"));
  EXPECT_FALSE(std::filesystem::exists(own));
}

// True when a write of "<dir>/cache" removes a young "<dir>/.cache.tmp.<pid>".
bool AWriteRemovesTheTemporaryOf(pid_t pid) {
  ScratchDir tmp;
  const std::string temp = tmp / (".cache.tmp." + std::to_string(pid));
  Put(temp, "half");
  FileError err;
  if (!ReplaceFile(tmp / "cache", "new\n", &err)) {
    ADD_FAILURE() << err.Message();
    return false;
  }
  return !std::filesystem::exists(temp);
}

// A writer killed a moment ago (SIGKILL between create and rename): its pid is gone, so its
// temporary goes at the next write, however young.
TEST(ReplaceFile, RemovesTheTemporaryOfAWriterThatIsGone) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(AWriteRemovesTheTemporaryOf(child));
}

// Two job steps on one node refresh the same cache at once: the second writer must not remove
// the first one's temporary file between its create and its rename (the first's rename then
// failed with "No such file or directory"). The first is a live process of the same program.
TEST(ReplaceFile, LeavesAConcurrentWritersTemporaryAlone) {
  ScratchDir tmp;
  Put(tmp / "cache", "old\n");
  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  const pid_t writer = fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {  // the other writer: alive until the test closes the pipe
    char c;
    close(gate[1]);
    (void)!read(gate[0], &c, 1);
    _exit(0);
  }
  close(gate[0]);
  const std::string theirs = tmp / (".cache.tmp." + std::to_string(writer));
  Put(theirs, "in progress");
  FileError err;
  const bool wrote = ReplaceFile(tmp / "cache", "mine\n", &err);
  const bool kept = std::filesystem::exists(theirs);
  close(gate[1]);
  ASSERT_EQ(waitpid(writer, nullptr, 0), writer);
  ASSERT_TRUE(wrote) << err.Message();
  EXPECT_EQ(Slurp(tmp / "cache"), "mine\n");
  ASSERT_TRUE(kept);
  ASSERT_EQ(std::rename(theirs.c_str(), (tmp / "cache").c_str()), 0);  // their rename
  EXPECT_EQ(Slurp(tmp / "cache"), "in progress");
}

// A writer killed a moment ago whose pid another program took since (CI's machine reuses pids
// within a minute): its temporary goes at the next write. Here the pid is this test's parent
// (ctest or a shell), a live process of another program.
TEST(ReplaceFile, RemovesTheTemporaryOfAPidNowRunningAnotherProgram) {
  EXPECT_TRUE(AWriteRemovesTheTemporaryOf(getppid()));
}

TEST(ReplaceFile, AFailedCreateNamesTheTemporaryAndKeepsTheOldFile) {
  ScratchDir tmp;
  Put(tmp / "out.yaml", "old\n");
  const std::string blocker = tmp / ("out.yaml.tmp." + std::to_string(getpid()));
  std::filesystem::create_directory(blocker);
  std::string err;
  EXPECT_FALSE(WriteOutput(tmp / "out.yaml", "new\n", &err));
  EXPECT_EQ(err, "cannot create " + blocker + ": File exists");
  EXPECT_EQ(Slurp(tmp / "out.yaml"), "old\n");
}

TEST(IdentityOf, ChangesWhenAFileIsWrittenOrReplacedNotWhenItIsOnlyRead) {
  ScratchDir tmp;
  const std::string f = tmp / "railguard.yaml";
  Put(f, "topology: a.yaml\n");
  const FileIdentity first = IdentityOf(f);
  ASSERT_TRUE(first.exists);
  EXPECT_EQ(Slurp(f), "topology: a.yaml\n");
  EXPECT_EQ(IdentityOf(f), first);
  // Same size, written again: the file's time changes. The kernel stamps it from a coarse
  // clock (one tick, up to 10 ms), so a write right after the first may keep its time.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  Put(f, "topology: b.yaml\n");
  EXPECT_NE(IdentityOf(f), first);
  const FileIdentity second = IdentityOf(f);
  Put(tmp / "new.yaml", "topology: b.yaml\n");
  // Replaced by rename (as editors and config management do): another inode.
  ASSERT_EQ(std::rename((tmp / "new.yaml").c_str(), f.c_str()), 0);
  EXPECT_NE(IdentityOf(f), second);
  EXPECT_FALSE(IdentityOf(tmp / "missing").exists);
  EXPECT_EQ(IdentityOf(tmp / "missing"), IdentityOf(tmp / "gone"));
  EXPECT_NE(IdentityOf(tmp / "missing"), IdentityOf(f));
}

TEST(MakeDirs, CreatesMissingParentsWithMode0755AndNamesTheFailingStep) {
  ScratchDir tmp;
  FileError err;
  ASSERT_TRUE(MakeDirs(tmp / "a/b/c", &err)) << err.Message();
  struct stat st;
  ASSERT_EQ(stat((tmp / "a/b/c").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  EXPECT_TRUE(MakeDirs(tmp / "a/b/c", &err));
  Put(tmp / "file", "");
  EXPECT_FALSE(MakeDirs(tmp / "file/x", &err));
  EXPECT_EQ(err.Message(), "cannot inspect " + tmp.path() + "/file/x: Not a directory");
}

TEST(ReadRegularFile, SaysWhyItRefusedAFile) {
  ScratchDir tmp;
  std::string out;
  EXPECT_EQ(ReadRegularFile(tmp / "none", 10, &out).status, ReadStatus::kMissing);
  Put(tmp / "f", "0123456789");
  ReadResult r = ReadRegularFile(tmp / "f", 10, &out);
  EXPECT_EQ(r.status, ReadStatus::kOk);
  EXPECT_EQ(out, "0123456789");
  r = ReadRegularFile(tmp / "f", 9, &out);
  EXPECT_EQ(r.failure, ReadFailure::kTooLarge);
  EXPECT_EQ(r.size, 10u);
  ASSERT_EQ(symlink((tmp / "f").c_str(), (tmp / "link").c_str()), 0);
  EXPECT_EQ(ReadRegularFile(tmp / "link", 10, &out).failure, ReadFailure::kSymlink);
  EXPECT_EQ(ReadRegularFile(tmp.path(), 10, &out).failure, ReadFailure::kNotRegular);
  EXPECT_EQ(ReadRegularFile("/dev/zero", 10, &out).failure, ReadFailure::kNotRegular);
}

TEST(FileLock, ASecondHolderTimesOutAndTheFirstReleasesOnDestruction) {
  ScratchDir tmp;
  FileError err;
  {
    FileLock first;
    ASSERT_EQ(first.Acquire(tmp / "lock", 0, &err), LockStatus::kLocked);
    FileLock second;
    EXPECT_EQ(second.Acquire(tmp / "lock", 20, &err), LockStatus::kTimeout);
  }
  FileLock third;
  EXPECT_EQ(third.Acquire(tmp / "lock", 0, &err), LockStatus::kLocked);
  FileLock bad;
  EXPECT_EQ(bad.Acquire(tmp / "none/lock", 0, &err), LockStatus::kError);
  EXPECT_EQ(err.Message(), "cannot open " + tmp.path() + "/none/lock: No such file or directory");
}

TEST(WriteAll, WritesEverythingToAPipe) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_TRUE(WriteAll(fds[1], "abc"));
  close(fds[1]);
  char buf[8];
  EXPECT_EQ(read(fds[0], buf, sizeof buf), 3);
  close(fds[0]);
  EXPECT_EQ(ParentDir("a/b"), "a");
  EXPECT_EQ(ParentDir("/a"), "/");
  EXPECT_EQ(ParentDir("a"), ".");
}

}  // namespace base_file_util_test
}  // namespace railguard
