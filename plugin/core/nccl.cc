// SPDX-License-Identifier: GPL-2.0-or-later
#include "plugin/core/nccl.h"

namespace railguard::plugin {

std::optional<std::string> NcclIbHca(const topo::Topology& topo, const std::string& node) {
  const topo::NodeType* type = topo.TypeOfNode(node);
  if (!type || type->nics.empty()) return std::nullopt;
  std::string value = "=";
  for (size_t k = 0; k < type->nics.size(); ++k) value += (k ? "," : "") + type->nics[k];
  return value;
}

}  // namespace railguard::plugin
