// `--set` and its kin (src/render/helm/strvals.cpp): the input's first byte picks the flag
// (--set, --set-string, --set-json, --set-file, --set-literal), the rest is one flag argument,
// parsed into values that already hold maps and lists (Helm's errors for a key that runs into
// a value of the wrong kind). --set-file reads a fixed text instead of a file.
#include <string>

#include "src/render/go/value.hpp"
#include "src/render/helm/strvals.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace {

namespace go = ejob::render::go;
using ejob::render::helm::SetFlag;

go::Map existing_values() {
  go::Map m;
  m["name"] = go::Value::string("web");
  m["list"] = go::Value::list({go::Value::string("a"), go::Value::int64(1)});
  go::Map inner;
  inner["x"] = go::Value::int64(1);
  m["map"] = go::Value::map(std::move(inner));
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static constexpr SetFlag k_flags[] = {SetFlag::Set, SetFlag::SetString, SetFlag::SetJson,
                                        SetFlag::SetFile, SetFlag::SetLiteral};
  const SetFlag flag = k_flags[data[0] % 5];
  const std::string_view arg = ejob::fuzz::as_text(data + 1, size - 1);
  go::Map values = existing_values();
  ejob::fuzz::refusals_expected([&] {
    ejob::render::helm::parse_set_into(arg, values, flag,
                                       [](const std::string&) { return std::string("file\n"); });
  });
  return 0;
}
