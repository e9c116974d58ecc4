#include "src/agent/store/store_codec.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using namespace ejob::agent;

TEST_CASE("store codec: the EtcdStore's base64 of torchrun's keys and values") {
  CHECK(b64encode("MASTER_ADDR") == "TUFTVEVSX0FERFI=");
  CHECK(b64encode("MASTER_PORT") == "TUFTVEVSX1BPUlQ=");
  CHECK(b64encode("localhost") == "bG9jYWxob3N0");
  CHECK(b64encode("43761") == "NDM3NjE=");
  CHECK(b64encode("torchelastic/role_info0") == "dG9yY2hlbGFzdGljL3JvbGVfaW5mbzA=");
  CHECK(b64encode("FIN") == "RklO");
  CHECK(b64encode("") == "");
}

TEST_CASE("store codec: decoding round-trips and rejects non-base64") {
  CHECK(b64decode("TUFTVEVSX0FERFI=") == "MASTER_ADDR");
  CHECK(b64decode("NDM3NjE=") == "43761");
  CHECK(b64decode("MA==") == "0");
  CHECK(b64decode(b64encode(std::string("\0\1\2", 3))) == std::string("\0\1\2", 3));
  try {
    b64decode("abc");
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.message() == "not base64: 'abc' (illegal base64 data at input byte 0)");
  }
}
