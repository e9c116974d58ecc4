#include "src/render/go/value.hpp"

#include <catch2/catch.hpp>
#include <string>

namespace ejob::render::go {

TEST_CASE("value: a long string is shared by the copies of its value, a short one copied") {
  const std::string long_text(k_shared_text_bytes, 'x');
  Value a = Value::string(long_text);
  Value b = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the test
  CHECK(&a.as_string() == &b.as_string());
  CHECK(a.as_string() == long_text);

  Value c = Value::string("short");
  Value d = c;  // NOLINT(performance-unnecessary-copy-initialization)
  CHECK(&c.as_string() != &d.as_string());
  CHECK(d.as_string() == "short");
}

TEST_CASE("value: strings and bytes compare by their text, shared or not") {
  auto kept = std::make_shared<const std::string>("abc");
  CHECK(Value::shared_text(kept) == Value::string("abc"));
  CHECK_FALSE(Value::shared_text(kept) == Value::string("abd"));
  CHECK(Value::shared_text(kept, GoType::Bytes) == Value::bytes("abc"));
  CHECK_FALSE(Value::shared_text(kept, GoType::Bytes) == Value::string("abc"));  // []byte vs string
  const std::string long_text(k_shared_text_bytes + 5, 'y');
  CHECK(Value::string(long_text) == Value::string(long_text));
  CHECK(Value::string(long_text).is_string());
  CHECK(Value::bytes(long_text).type() == GoType::Bytes);
}

}  // namespace ejob::render::go
