// The Kubernetes quantity check of --cpu, --memory, --shm and the team config (src/job/
// job_flags.cpp, is_quantity), against an independent reading of apimachinery's grammar
// (resource.ParseQuantity, without the minus sign a request never has):
//   quantity := '+'? number suffix;  number := digits ('.' digits?)? | '.' digits
//   suffix := '' | Ki Mi Gi Ti Pi Ei | n u m k M G T P E | (e|E) ('+'|'-')? digits
// Any disagreement aborts with the input.
#include <cctype>
#include <string_view>

#include "src/job/job_flags.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

std::size_t digits(std::string_view s, std::size_t at) {
  while (at < s.size() && std::isdigit(static_cast<unsigned char>(s[at]))) ++at;
  return at;
}

bool is_suffix(std::string_view s) {
  for (std::string_view k :
       {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"})
    if (s == k) return true;
  if (s.empty() || (s[0] != 'e' && s[0] != 'E')) return false;
  std::size_t at = (s.size() > 1 && (s[1] == '+' || s[1] == '-')) ? 2 : 1;
  return at < s.size() && digits(s, at) == s.size();
}

bool oracle(std::string_view s) {
  std::size_t at = !s.empty() && s[0] == '+' ? 1 : 0;
  const std::size_t whole_end = digits(s, at);
  std::size_t end = whole_end;
  if (end < s.size() && s[end] == '.') end = digits(s, end + 1);
  const bool has_digits = whole_end > at || end > whole_end + 1;
  return has_digits && is_suffix(s.substr(end));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ejob::fuzz::as_text(data, size);
  if (ejob::job::is_quantity(text) != oracle(text)) std::abort();
  return 0;
}
