// SPDX-License-Identifier: GPL-2.0-or-later
// Tests of railcheck against hostile or broken input and planted files (healthcheck/): whatever
// sysfs holds (control characters, escape sequences, binary, huge numbers, odd file names),
// the drain reason and the Extra JSON it gives Slurm are short printable text; a symlink planted
// where railcheck reads or writes as root is never followed; its files get safe modes whatever
// the umask; and `railcheck baseline`, the way out a corrupt baseline's error names, works.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "healthcheck/act.h"
#include "healthcheck/railcheck.h"
#include "healthcheck/state.h"
#include "healthcheck/state_file.h"
#include "tests/healthcheck/health_test_util.h"

namespace railguard::health {
namespace healthcheck_hostile_input_test {

using namespace std::string_literals;
using testing::FakeSlurm;
using testing::Forward;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;
namespace fs = testing::fs;

// True when every byte of `s` is printable ASCII.
bool AllPrintable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f) return false;
  return true;
}


// railcheck for node n003 on a sysfs fixture of its own (the tests change it), with state in
// the test's folder and a fake slurmctld.
class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string yaml = "topology: " RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml\nhealth:\n";
    yaml += "  sysfs_root: " + tmp_.path() + "/sys/%n\n";
    yaml += "  state_dir: " + tmp_.path() + "/state/%n\n";
    yaml += "  events_log: " + tmp_.path() + "/events.log\n";
    yaml += "  read_timeout_ms: 300\n";
    WriteFile(tmp_ / "railguard.yaml", yaml);
    testing::MakeFixture(tmp_ / "sys/n003");
    SlurmNode n;
    n.name = "n003";
    n.features = "su1";
    slurm_.nodes["n003"] = n;
  }

  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    CliEnv env;
    env.argv0 = "railcheck";
    env.slurmd_nodename = "n003";
    env.slurm_conf = tmp_ / "slurm.conf";
    CliDeps deps;
    deps.fs = std::make_shared<RealSysfs>();
    deps.open_verbs = []() { return nullptr; };
    deps.open_slurm = [this](std::string*) { return std::make_unique<Forward>(&slurm_); };
    deps.now = [this]() { return now_ += 300; };
    deps.out = &out_;
    deps.err = &err_;
    return RunRailcheck(args, env, deps);
  }

  // A file of the fixture, replaced by `bytes`.
  void Put(const std::string& rel, const std::string& bytes) {
    const std::string path = tmp_ / ("sys/n003/" + rel);
    fs::remove(path);
    WriteFile(path, bytes);
  }

  const SlurmNode& Node() { return slurm_.nodes["n003"]; }

  TempDir tmp_;
  FakeSlurm slurm_;
  std::ostringstream out_;
  std::ostringstream err_;
  double now_ = 1700000000;
};

TEST_F(Hostile, GarbageInSysfsGivesSlurmOnlyShortPrintableText) {
  const std::string port = "class/infiniband/mlx5_5/ports/1/";
  // The PCI function of rail 3's NIC, relative to the sysfs root.
  const fs::path device = fs::canonical(tmp_ / "sys/n003/class/infiniband/mlx5_5/device");
  const std::string pci = fs::relative(device, tmp_ / "sys/n003").string() + "/";
  std::string binary;
  for (int i = 0; i < 256; ++i) binary += static_cast<char>(i);
  Put(port + "rate", "\x1b[31m400 Gb/sec\r\n(4X NDR)\x00\xff\xfe "s + std::string(3000, 'A'));
  Put(port + "state", "4: ACT\x07IVE\n");
  Put(port + "link_layer", "\x1b]0;owned\x07InfiniBand\n");
  Put(port + "counters/symbol_error", "lots\n\x1b[2J");
  Put(port + "counters/link_downed", "18446744073709551616\n");
  Put(port + "counters/evil\nname\x1b[2J", "seven\n");
  Put(pci + "aer_dev_fatal", binary);
  Put(pci + "current_link_width", "x16\n");
  Put(pci + "current_link_speed", std::string(4000, '\n'));

  EXPECT_EQ(Run({"--prolog"}), kExitDrain) << err_.str();
  const std::string reason = Node().reason;
  EXPECT_EQ(reason.rfind("railcheck: ", 0), 0u) << reason;
  EXPECT_LE(reason.size(), wire::kMaxReasonChars) << reason;
  EXPECT_TRUE(AllPrintable(reason)) << reason;

  const std::string extra = Node().extra;
  EXPECT_TRUE(AllPrintable(extra)) << extra;
  EXPECT_LT(extra.size(), 400u) << extra;
  const nlohmann::json j = nlohmann::json::parse(extra);
  EXPECT_EQ(j["railcheck"]["verdict"], "drain");
  EXPECT_EQ(j["railcheck"]["rails"][3], "down");

  // The report slurmd logs: one printable line per finding, however odd the file names.
  std::istringstream lines(out_.str());
  size_t count = 0;
  for (std::string line; std::getline(lines, line); ++count)
    EXPECT_TRUE(AllPrintable(line)) << line;
  EXPECT_GT(count, 5u) << out_.str();
  EXPECT_NE(out_.str().find("counters/evil?name?[2J: "), std::string::npos) << out_.str();

  EXPECT_EQ(Run({"--dry-run", "--json"}), kExitDrain);
  const nlohmann::json report = nlohmann::json::parse(out_.str());
  for (const auto& f : report["findings"]) {
    const std::string m = f["message"];
    EXPECT_TRUE(AllPrintable(m)) << m;
    EXPECT_LE(m.size(), kMaxMessageChars + 3) << m;
  }
}

TEST_F(Hostile, TheDrainReasonIsBoundedAndPrintableWhateverAFindingSays) {
  Verdict v;
  v.level = Level::kDrain;
  Finding f;
  f.check = "port.state";
  f.rail = 3;
  f.action = HealthAction::kDrain;
  f.reason = "rail3 \xe2\x9c\x93 mlx5_5\nforged: line\x1b[2J\t" + std::string(5000, 'x');
  v.findings = {f, f};
  const std::string reason = DrainReason(v);
  EXPECT_EQ(reason.size(), wire::kMaxReasonChars);
  EXPECT_TRUE(AllPrintable(reason)) << reason;
  EXPECT_EQ(reason.substr(0, 42), "railcheck: rail3 ??? mlx5_5?forged: line?[");
  EXPECT_EQ(reason.substr(reason.size() - 13), "... (+1 more)");
}

TEST_F(Hostile, ExtraKeepsASitesObjectAndLeavesTextItCannotReadAlone) {
  Verdict v;
  v.level = Level::kOk;
  v.rails = {RailHealth{0, "mlx5_0", RailStatus::kOk}};
  std::optional<std::string> e = ExtraJson(v, 1700000000, "{\"site\":\"rack 7\"}");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(*e,
            "{\"railcheck\":{\"failed\":[],\"rails\":[\"ok\"],\"time\":1700000000,"
            "\"verdict\":\"ok\"},\"site\":\"rack 7\"}");
  for (const std::string& bad : {std::string("{\"site\":\"\xff\xfe\"}"), std::string("[1,2]"),
                                 std::string("free text\n"), std::string(10000, '[')})
    EXPECT_FALSE(ExtraJson(v, 1700000000, bad).has_value()) << bad.substr(0, 20);
  // Deep but valid JSON is kept without exhausting the stack.
  const std::string deep = "{\"site\":" + std::string(1000, '[') + std::string(1000, ']') + "}";
  e = ExtraJson(v, 1700000000, deep);
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(e->find("\"railcheck\":{"), std::string::npos);
}

TEST_F(Hostile, ASymlinkPlantedAtTheStateFileIsRefusedAndItsTargetLeftAlone) {
  WriteFile(tmp_ / "precious", "keep me\n");
  fs::create_directories(tmp_ / "state/n003");
  fs::create_symlink(tmp_ / "precious", tmp_ / "state/n003/state.json");
  EXPECT_EQ(Run({"--periodic"}), kExitError);
  EXPECT_EQ(err_.str().substr(0, err_.str().find(" (recover:")),
            "railcheck: " + tmp_.path() +
                "/state/n003/state.json is a symbolic link; expected a regular file written by "
                "railcheck");
  EXPECT_EQ(ReadFile(tmp_ / "precious"), "keep me\n");
  EXPECT_TRUE(slurm_.updates.empty());
}

TEST_F(Hostile, ASymlinkPlantedAtTheBaselineIsNotReplacedByRailcheckBaseline) {
  WriteFile(tmp_ / "precious", "keep me\n");
  fs::create_directories(tmp_ / "state/n003");
  fs::create_symlink(tmp_ / "precious", tmp_ / "state/n003/baseline.json");
  EXPECT_EQ(Run({"baseline"}), kExitError);
  EXPECT_NE(err_.str().find("/state/n003/baseline.json is a symbolic link; expected a regular "
                            "file written by railcheck"),
            std::string::npos)
      << err_.str();
  EXPECT_EQ(ReadFile(tmp_ / "precious"), "keep me\n");
  EXPECT_TRUE(fs::is_symlink(tmp_ / "state/n003/baseline.json"));
}

TEST_F(Hostile, ASymlinkPlantedAtTheLockIsRefused) {
  WriteFile(tmp_ / "precious", "keep me\n");
  fs::create_directories(tmp_ / "state/n003");
  fs::create_symlink(tmp_ / "precious", tmp_ / "state/n003/lock");
  EXPECT_EQ(Run({"--periodic"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: cannot open " + tmp_.path() +
                            "/state/n003/lock: Too many levels of symbolic links\n");
  EXPECT_EQ(ReadFile(tmp_ / "precious"), "keep me\n");
}

TEST_F(Hostile, ASymlinkPlantedAtTheTemporaryNameIsRemovedNotFollowed) {
  WriteFile(tmp_ / "precious", "keep me\n");
  const std::string tmpname = tmp_ / (".state.json.tmp." + std::to_string(getpid()));
  fs::create_symlink(tmp_ / "precious", tmpname);
  std::string err;
  ASSERT_TRUE(WriteStateFileAtomic(tmp_ / "state.json", "new\n", &err)) << err;
  EXPECT_EQ(ReadFile(tmp_ / "precious"), "keep me\n");
  EXPECT_EQ(ReadFile(tmp_ / "state.json"), "new\n");
  EXPECT_FALSE(fs::is_symlink(tmpname) || fs::exists(tmpname));
}

TEST_F(Hostile, FilesGetSafeModesWhateverTheUmask) {
  const mode_t old = umask(0);
  const int baseline = Run({"baseline"});
  const int periodic = Run({"--periodic"});
  umask(old);
  ASSERT_EQ(baseline, kExitOk) << err_.str();
  ASSERT_EQ(periodic, kExitOk) << err_.str();
  auto mode = [](const std::string& p) {
    struct stat st;
    EXPECT_EQ(lstat(p.c_str(), &st), 0) << p;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode(tmp_ / "state"), 0755u);
  EXPECT_EQ(mode(tmp_ / "state/n003"), 0755u);
  EXPECT_EQ(mode(tmp_ / "state/n003/state.json"), 0644u);
  EXPECT_EQ(mode(tmp_ / "state/n003/baseline.json"), 0644u);
  EXPECT_EQ(mode(tmp_ / "state/n003/lock"), 0600u);
}

TEST_F(Hostile, RailcheckBaselineReplacesACorruptOrTruncatedBaseline) {
  const std::string path = tmp_ / "state/n003/baseline.json";
  ASSERT_EQ(Run({"baseline"}), kExitOk) << err_.str();
  const std::string good = ReadFile(path);
  for (const std::string& bad : {good.substr(0, good.size() / 2), std::string(), good + "x"}) {
    fs::remove(path);
    WriteFile(path, bad);
    EXPECT_EQ(Run({"--periodic"}), kExitError);
    const std::string err = err_.str();
    EXPECT_EQ(err.rfind("railcheck: corrupt baseline: " + path + ":", 0), 0u) << err;
    EXPECT_NE(err.find("; expected the JSON railcheck writes (recover: record a new baseline "
                       "with `railcheck baseline`, or delete " +
                       path),
              std::string::npos)
        << err;

    EXPECT_EQ(Run({"baseline"}), kExitOk) << err_.str();
    EXPECT_NE(out_.str().find("\nslurm: replacing the corrupt baseline: " + path + ":"),
              std::string::npos)
        << out_.str();
    EXPECT_EQ(out_.str().find("(recover:"), std::string::npos) << out_.str();
    NodeBaseline b;
    std::string load_err;
    EXPECT_EQ(LoadBaseline(tmp_ / "state/n003", "n003", &b, &load_err), LoadStatus::kOk)
        << load_err;
    EXPECT_EQ(Run({"--periodic"}), kExitOk) << err_.str();
  }
}

TEST_F(Hostile, RailcheckBaselineStillRefusesAnotherNodesBaseline) {
  ASSERT_EQ(Run({"baseline"}), kExitOk) << err_.str();
  const std::string path = tmp_ / "state/n003/baseline.json";
  std::string text = ReadFile(path);
  text.replace(text.find("\"n003\""), 6, "\"n004\"");
  fs::remove(path);
  WriteFile(path, text);
  EXPECT_EQ(Run({"baseline"}), kExitError);
  EXPECT_EQ(err_.str(), "railcheck: " + path +
                            " is the baseline of node 'n004', not 'n003'; expected every node its "
                            "own state_dir (put %n in health.state_dir)\n");
  EXPECT_EQ(ReadFile(path), text);
}

}  // namespace healthcheck_hostile_input_test
}  // namespace railguard::health
