#include "src/util/spelling.hpp"

#include <catch2/catch.hpp>

using ejob::nearest_spelling;

TEST_CASE("spelling: the nearest candidate, one that extends the typo winning a tie") {
  CHECK(nearest_spelling("gpu", {"cpus", "gpus", "image"}) == "gpus");
  CHECK(nearest_spelling("sbumit", {"submit", "list", "logs"}) == "submit");
  CHECK(nearest_spelling("mn", {"min", "max"}) == "min");
  CHECK(nearest_spelling("--imag", {"--image", "--name"}) == "--image");
}

TEST_CASE("spelling: nothing when every candidate is too far to be a typo") {
  CHECK(nearest_spelling("deploy", {"submit", "list"}).empty());
  CHECK(nearest_spelling("x", {}).empty());
}
