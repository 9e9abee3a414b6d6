// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for the table of health checks (healthcheck/check_table.h): it names the checks the
// config knows, with their defaults; railcheck --help and railcheck(8) list exactly it.
#include "healthcheck/check_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "healthcheck/railcheck.h"
#include "config/config.h"

namespace railguard::health {
namespace healthcheck_check_table_test {

// The names are stable (railguard.yaml's health.actions and sites' alert rules use them);
// the catalog the loader validates against is the table itself.
TEST(CheckTable, NamesOrderAndDefaultsAreStableAndAreTheLoadersCatalog) {
  using A = HealthAction;
  const std::vector<std::pair<std::string, A>> want = {
      {"nic.present", A::kDrain},       {"nic.firmware", A::kWarn},
      {"port.state", A::kDrain},
      {"port.link_layer", A::kDrain},   {"port.rate", A::kDrain},
      {"link.errors", A::kRestrict},    {"link.flap", A::kDrain},
      {"link.counters", A::kWarn},      {"pcie.speed", A::kDrain},
      {"pcie.width", A::kDrain},        {"pcie.gpu_speed", A::kWarn},
      {"pcie.aer", A::kDrain},
      {"pcie.aer_correctable", A::kRestrict}, {"gpu.count", A::kDrain},
      {"rail.affinity", A::kRestrict},  {"gather.timeout", A::kDrain},
      {"eth.present", A::kDrain},       {"eth.state", A::kDrain},
      {"eth.speed", A::kDrain},         {"eth.flap", A::kDrain},
      {"eth.errors", A::kRestrict},     {"eth.counters", A::kWarn},
      {"fabric.switch_errors", A::kRestrict}, {"fabric.switch_rate", A::kDrain},
      {"fabric.leaf", A::kRestrict}};
  const CheckCatalog& catalog = CheckCatalogOfTable();
  ASSERT_EQ(catalog.size(), want.size());
  ASSERT_EQ(HealthChecks().size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(catalog[i].name, want[i].first);
    EXPECT_EQ(catalog[i].default_action, want[i].second) << want[i].first;
    EXPECT_EQ(HealthChecks()[i].name, want[i].first);
  }
  EXPECT_EQ(HealthCheckIndex("pcie.aer_correctable"), 12u);
  EXPECT_EQ(HealthCheckIndex("no.such"), HealthChecks().size());
}

TEST(CheckTable, EveryCheckHasAFunctionAndADescription) {
  for (const HealthCheck& c : HealthChecks()) {
    EXPECT_NE(c.judge, nullptr) << c.name;
    EXPECT_GT(std::string(c.description).size(), 10u) << c.name;
  }
}

TEST(CheckTable, HelpListsEveryCheckWithItsDefaultAction) {
  const std::string usage = RailcheckUsage();
  EXPECT_NE(usage.find(CheckTableHelp()), std::string::npos) << usage;
  EXPECT_NE(usage.find("  pcie.aer_correctable restrict correctable AER errors above their "
                       "limit\n"),
            std::string::npos)
      << usage;
}

// The CHECKS section of man/railcheck.8: one ".BR NAME " (ACTION)"" line per check.
TEST(CheckTable, TheManPageListsExactlyTheTablesChecks) {
  std::ifstream in(std::string(RAILGUARD_SOURCE_DIR) + "/man/railcheck.8");
  ASSERT_TRUE(in) << "cannot open man/railcheck.8";
  const std::regex item(R"re(^\.BR ([a-z_.]+) " \(([a-z]+)\)"$)re");
  std::vector<std::string> listed;
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind(".SH ", 0) == 0) in_section = line == ".SH CHECKS";
    std::smatch m;
    if (in_section && std::regex_match(line, m, item))
      listed.push_back(m[1].str() + " " + m[2].str());
  }
  std::vector<std::string> expected;
  for (const HealthCheck& c : HealthChecks())
    expected.push_back(std::string(c.name) + " " + HealthActionName(c.default_action));
  EXPECT_EQ(listed, expected);
}

}  // namespace healthcheck_check_table_test
}  // namespace railguard::health
