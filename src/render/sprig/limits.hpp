#pragma once
/// How large one string that a Sprig function builds may be (repeat, indent, nindent). Helm's
/// Go lets a render try any size up to 2^48 bytes, and dies ("fatal error: runtime: out of
/// memory") when the machine cannot give it; ejob refuses a string over this limit with an
/// error instead. Default: the machine's physical memory. The fuzz targets lower it to what
/// their memory limit allows.

#include <cstdint>

namespace ejob::render::sprig {

[[nodiscard]] std::int64_t max_string_bytes();
void set_max_string_bytes(std::int64_t bytes);

}  // namespace ejob::render::sprig
