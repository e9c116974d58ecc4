#include "src/agent/rendezvous/c10d_store.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>

namespace ejob::agent {

// torch's rule for who hosts the c10d store when `is_host` is not given: the endpoint names
// this machine. Under training-operator every worker gets PET_RDZV_ENDPOINT=NAME-worker-0:PORT
// and only the pod whose hostname that is (worker 0) hosts; the others connect.
TEST_CASE("endpoint_is_local: this host by name or loopback; a peer's name is not") {
  char name[256] = {};
  REQUIRE(::gethostname(name, sizeof name - 1) == 0);
  CHECK(endpoint_is_local(name));
  CHECK(endpoint_is_local("localhost"));
  CHECK(endpoint_is_local("127.0.0.1"));
  CHECK(endpoint_is_local("::1"));
  CHECK_FALSE(endpoint_is_local(std::string(name) + "-worker-1"));
  CHECK_FALSE(endpoint_is_local("pj-worker-0.invalid"));
}

}  // namespace ejob::agent
