#include "src/agent/rendezvous/rdzv_conf.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using namespace ejob::agent;

namespace {
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const ejob::Error& e) {
    return e.message();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("rdzv conf: key=value pairs, stripped") {
  auto conf = parse_rdzv_conf(" timeout = 60 ,last_call_timeout=5,cert=/a=b ");
  CHECK(conf == std::map<std::string, std::string>{
                    {"timeout", "60"}, {"last_call_timeout", "5"}, {"cert", "/a=b"}});
  CHECK(parse_rdzv_conf("  ").empty());
}

TEST_CASE("rdzv conf: empty keys and values are errors") {
  CHECK(
      error_of([] { parse_rdzv_conf("timeout=1,,x=2"); }) ==
      "The rendezvous configuration string must be in format <key1>=<value1>,...,<keyN>=<valueN>.");
  CHECK(error_of([] { parse_rdzv_conf("timeout"); }) ==
        "The rendezvous configuration option 'timeout' must have a value specified.");
  CHECK(error_of([] { parse_rdzv_conf("timeout= "); }) ==
        "The rendezvous configuration option 'timeout' must have a value specified.");
}

TEST_CASE("rdzv conf: etcd settings with torchrun's defaults") {
  EtcdSettings d = etcd_settings({});
  CHECK(d.timeout_s == 900);
  CHECK(d.last_call_timeout_s == 30);
  CHECK(d.prefix == "/torchelastic/p2p");
  CHECK(d.protocol == "http");
  CHECK(d.fast_reform);  // ejob's own key
  CHECK_FALSE(etcd_settings(parse_rdzv_conf("fast_reform=no")).fast_reform);
  EtcdSettings s = etcd_settings(parse_rdzv_conf(
      "timeout=60,last_call_timeout=2,etcd_prefix=/x,protocol=https,cacert=ca,cert=c,key=k"));
  CHECK(s.timeout_s == 60);
  CHECK(s.last_call_timeout_s == 2);
  CHECK(s.prefix == "/x");
  CHECK(s.protocol == "https");
  CHECK(s.cacert == "ca");
  CHECK(s.cert == "c");
  CHECK(s.key == "k");
  CHECK(error_of([] {
          etcd_settings({{"protocol", "grpc"}});
        }) == "The etcd protocol must be HTTP or HTTPS.");
  CHECK(error_of([] {
          etcd_settings({{"timeout", "soon"}});
        }) ==
        "The rendezvous configuration option 'timeout' does not represent a valid integer value.");
}

TEST_CASE("rdzv conf: endpoints") {
  Endpoint e = parse_endpoint("etcd-service:2379", 1);
  CHECK(e.host == "etcd-service");
  CHECK(e.port == 2379);
  e = parse_endpoint("etcd", 2379);
  CHECK(e.host == "etcd");
  CHECK(e.port == 2379);
  e = parse_endpoint("", 2379);
  CHECK(e.host == "localhost");
  e = parse_endpoint("[::1]:2380", 2379);
  CHECK(e.host == "::1");
  CHECK(e.port == 2380);
  e = parse_endpoint("[::1]", 2379);
  CHECK(e.host == "::1");
  CHECK(e.port == 2379);
  CHECK(error_of([] { parse_endpoint("h:99999", 1); }) ==
        "The port number of the rendezvous endpoint 'h:99999' must be an integer between 0 and "
        "65536.");
  CHECK(error_of([] { parse_endpoint("a b:1", 1); }) ==
        "The hostname of the rendezvous endpoint 'a b:1' must be a dot-separated list of labels, "
        "an IPv4 address, or an IPv6 address.");
}

TEST_CASE("rdzv conf: dynamic settings, with ejob's fast_reform on unless turned off") {
  DynamicSettings d = dynamic_settings({});
  CHECK_FALSE(d.is_host);
  CHECK(d.last_call_timeout_s == 30);
  CHECK(d.fast_reform);
  DynamicSettings s = dynamic_settings(parse_rdzv_conf("is_host=No,fast_reform=0"));
  CHECK(s.is_host == false);
  CHECK_FALSE(s.fast_reform);
  CHECK(error_of([] {
          dynamic_settings({{"fast_reform", "sometimes"}});
        }) ==
        "The rendezvous configuration option 'fast_reform' does not represent a valid "
        "boolean value.");
}
