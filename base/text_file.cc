#include "base/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace railguard {

bool ReadTextFile(const std::string& path, std::string* out, Diags* diags, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    diags->push_back(Diag{path, 0, 0, std::string("cannot open: ") + std::strerror(errno)});
    return false;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    diags->push_back(Diag{path, 0, 0, "read error"});
    return false;
  }
  *out = buf.str();
  if (out->size() > max_bytes) {
    diags->push_back(Diag{path, 0, 0,
                          "file is " + std::to_string(out->size()) + " bytes; expected at most " +
                              std::to_string(max_bytes)});
    return false;
  }
  return true;
}

}  // namespace railguard
