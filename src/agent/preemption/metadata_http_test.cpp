#include "src/agent/preemption/metadata_http.hpp"

#include <catch2/catch.hpp>

using namespace ejob::agent;

TEST_CASE("metadata url: scheme, host, port and a path prefix") {
  auto url = parse_metadata_url(k_default_metadata_url);
  REQUIRE(url);
  CHECK(url->host == "169.254.169.254");
  CHECK(url->port == 80);
  CHECK_FALSE(url->tls);
  CHECK(url->prefix.empty());
  url = parse_metadata_url("https://[fd00:ec2::254]:8443/proxy/imds/");
  REQUIRE(url);
  CHECK(url->host == "fd00:ec2::254");
  CHECK(url->port == 8443);
  CHECK(url->tls);
  CHECK(url->prefix == "/proxy/imds");
  CHECK(parse_metadata_url("https://metadata.google.internal")->port == 443);
}

TEST_CASE("metadata url: what is not an http(s) URL with a host is refused") {
  for (const char* bad : {"", "169.254.169.254", "ftp://x", "http://", "http://:80",
                          "http://host:0", "http://host:99999", "http://host:8o", "http://[::1"})
    CHECK_FALSE(parse_metadata_url(bad));
}

TEST_CASE("metadata http: a refused connection is unreachable, and says why") {
  HttpMetadata nobody(*parse_metadata_url("http://127.0.0.1:1"), 500);
  MetadataReply reply = nobody.send({"GET", "/"});
  CHECK(reply.end == MetadataEnd::Unreachable);
  CHECK(reply.describe() == "cannot connect to 127.0.0.1 port 1: Connection refused");
  CHECK(nobody.where() == "http://127.0.0.1:1");
}
