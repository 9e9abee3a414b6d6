// SPDX-License-Identifier: GPL-2.0-or-later
// Tests for health.eth_error_limits (config/config.h): the defaults for RoCE rails' ethtool
// error statistics, overrides, "off", and the errors for bad names and values.
#include <gtest/gtest.h>

#include "config/load.h"
#include "healthcheck/check_table.h"

namespace railguard {
namespace config_eth_limits_test {

std::string Load(const std::string& text, Config* c) {
  Diags diags;
  LoadConfigString(text, "/etc/slurm/railguard.yaml", c, &diags, &health::CheckCatalogOfTable());
  return FormatDiags(diags);
}

TEST(EthErrorLimits, DefaultsAreTheMlx5PhysicalLayerErrorCounters) {
  Config c;
  ASSERT_EQ(Load("topology: t.yaml\n", &c), "");
  EXPECT_EQ(c.health.eth_error_limits,
            (std::map<std::string, long long>{{"rx_symbol_err_phy", 10},
                                              {"rx_pcs_symbol_err_phy", 10},
                                              {"rx_crc_errors_phy", 10}}));
  EXPECT_EQ(c.health.actions.at("eth.flap"), HealthAction::kDrain);
  EXPECT_EQ(c.health.actions.at("eth.errors"), HealthAction::kRestrict);
}

TEST(EthErrorLimits, OverridesAddAndOffAreRead) {
  Config c;
  ASSERT_EQ(Load("topology: t.yaml\nhealth:\n  eth_error_limits: {rx_crc_errors_phy: 100, "
                 "rx_symbol_err_phy: off, rx_prio3_pause: 100000}\n  actions: {eth.speed: "
                 "restrict}\n",
                 &c),
            "");
  EXPECT_EQ(c.health.eth_error_limits,
            (std::map<std::string, long long>{{"rx_pcs_symbol_err_phy", 10},
                                              {"rx_crc_errors_phy", 100},
                                              {"rx_prio3_pause", 100000}}));
  EXPECT_EQ(c.health.actions.at("eth.speed"), HealthAction::kRestrict);
}

TEST(EthErrorLimits, BadNamesAndValuesAreErrorsWithTheirPlace) {
  Config c;
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  eth_error_limits: {rx-crc: 1}\n", &c),
            "/etc/slurm/railguard.yaml:3:22: invalid statistic 'rx-crc' in "
            "health.eth_error_limits; expected an ethtool -S name of letters, digits and '_' "
            "such as rx_crc_errors_phy\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  eth_error_limits: {rx_crc_errors_phy: lots}\n",
                 &c),
            "/etc/slurm/railguard.yaml:3:41: invalid rx_crc_errors_phy (errors per hour, or off) "
            "'lots'; expected an integer from 0 to 1000000000000\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  eth_error_limits: [rx_crc_errors_phy]\n", &c),
            "/etc/slurm/railguard.yaml:3:21: health.eth_error_limits must be a mapping of "
            "ethtool statistic (such as rx_crc_errors_phy) to errors per hour or off\n");
  EXPECT_EQ(Load("topology: t.yaml\nhealth:\n  eth_error_limits: {a: 1, a: 2}\n", &c),
            "/etc/slurm/railguard.yaml:3:28: statistic 'a' appears twice in "
            "health.eth_error_limits\n");
}

}  // namespace config_eth_limits_test
}  // namespace railguard
