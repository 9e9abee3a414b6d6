// SPDX-License-Identifier: GPL-2.0-or-later
// etc/dev-4su.yaml (4 SUs of 8 nodes, su1 = n001-n008 ... su4 = n025-n032) loaded for the
// plugin tests.
#pragma once

#include <gtest/gtest.h>

#include "base/diag.h"
#include "topo/model.h"
#include "topo/topology_yaml.h"

namespace railguard::plugin {

inline topo::Topology Dev4SuTopology() {
  topo::Topology t;
  Diags diags;
  EXPECT_TRUE(topo::LoadTopologyFile(RAILGUARD_SOURCE_DIR "/etc/dev-4su.yaml", &t, &diags))
      << FormatDiags(diags);
  return t;
}

}  // namespace railguard::plugin
