// SPDX-License-Identifier: GPL-2.0-or-later
// The rail topology YAML file: loading with full validation, and canonical emission.
#pragma once

#include <string>

#include "base/diag.h"
#include "topo/model.h"

namespace railguard::topo {

// Parses and validates a rail topology held in `text`; `filename` names it in diagnostics.
// Every problem found is appended to `*diags` (all of them, not just the first), each with
// file:line:column, the offending value and what was expected. Returns true when no error
// was found; `*out` is then complete, validated and indexed (Topology::Index()). On false,
// `*out` holds whatever could be read and must not be used for placement.
bool LoadTopologyString(const std::string& text, const std::string& filename, Topology* out,
                        Diags* diags);

// As LoadTopologyString, reading `path`. A file that cannot be read is one diagnostic.
bool LoadTopologyFile(const std::string& path, Topology* out, Diags* diags);

// Canonical YAML for `topo` in the schema LoadTopologyString reads: keys in a fixed order,
// SU nodes as sorted compressed hostlists, leaves ordered by rail, names that equal their
// defaults left out. Emit(Load(Emit(t))) == Emit(t).
std::string EmitTopologyYaml(const Topology& topo);

// `s` as a YAML double-quoted scalar ('"' and '\\' escaped), which reads back as `s` for
// the printable text of names and hostlists.
std::string QuoteYaml(const std::string& s);

}  // namespace railguard::topo
