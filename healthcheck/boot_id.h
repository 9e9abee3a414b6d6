// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's boot id (/proc/sys/kernel/random/boot_id): a new one each boot, so that a run
// can tell that the node rebooted since the last run and its counters restarted from zero.
// Gather reads it (gather.h, GatherSpec::boot_id_file) with this parser.
#pragma once

#include <string>


namespace railguard::health {

// Parses the file's text: the kernel prints a random UUID in lower-case hex,
// "8-4-4-4-12" digits and a newline (drivers/char/random.c, proc_do_uuid with "%pU").
// False with `*expected` = the form expected.
bool ParseBootId(const std::string& text, std::string* out, std::string* expected);

}  // namespace railguard::health
