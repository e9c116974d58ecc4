#include "src/util/keep.hpp"

#include <catch2/catch.hpp>
#include <memory>

namespace ejob {

TEST_CASE("keep_until_exit: off, the caller's last reference frees; on, the object stays") {
  std::weak_ptr<int> dropped;
  {
    auto object = std::make_shared<int>(1);
    dropped = object;
    keep_until_exit(object);  // off by default
  }
  CHECK(dropped.expired());

  std::weak_ptr<int> kept;
  set_keep_until_exit(true);
  {
    auto object = std::make_shared<int>(2);
    kept = object;
    keep_until_exit(object);
  }
  set_keep_until_exit(false);
  REQUIRE_FALSE(kept.expired());
  CHECK(*kept.lock() == 2);
}

}  // namespace ejob
