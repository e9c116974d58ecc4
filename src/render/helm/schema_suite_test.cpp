// JSON-Schema-Test-Suite (drafts 4, 6, 7, 2019-09 and 2020-12) against what jsonschema v6 —
// Helm v3.21's validator — printed for each test: testdata/jsonschema_suite.json.gz, written by
// testdata/gen_jsonschema_suite.py with v6 built from its sources. `http://localhost:1234/`
// documents come from the same file, through SchemaIo::fetch.

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "src/render/go/json.hpp"
#include "src/render/helm/archive.hpp"
#include "src/render/helm/schema.hpp"

using ejob::render::go::Value;

namespace {

using ejob::render::go::Value;

const Value& suite() {
  static const Value data = [] {
    std::ifstream in(std::string(EJOB_HELM_TESTDATA) + "/jsonschema_suite.json.gz",
                     std::ios::binary);
    std::ostringstream gz;
    gz << in.rdbuf();
    return ejob::render::go::json::unmarshal(ejob::render::helm::gunzip(gz.str())).value;
  }();
  return data;
}

const Value& field(const Value& obj, const char* key) { return obj.as_map().find(key)->second; }

/// The problems of one value, in v6's order where it has one; where v6 walks a Go map (several
/// properties of one object fail) its order is random and ejob's is by name, so the lines are
/// compared as a set when the texts differ only in their order.
bool same_problems(const std::string& want, const std::string& got) {
  if (want == got) return true;
  auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    std::sort(out.begin(), out.end());
    return out;
  };
  return lines(want) == lines(got);
}

}  // namespace

TEST_CASE("schema suite: every test prints what jsonschema v6 prints") {
  const Value& remotes = field(suite(), "remotes");
  ejob::render::helm::SchemaIo io;
  io.fetch = [&](const std::string& url) {
    auto it = remotes.as_map().find(url);
    if (it == remotes.as_map().end())
      throw std::runtime_error("HTTP request to " + url + " returned status 404 (Not Found)");
    return it->second.as_string();
  };
  size_t tests = 0;
  for (const Value& group : field(suite(), "groups").as_list()) {
    const std::string& schema = field(group, "schema").as_string();  // JSON text, as written
    for (const Value& test : field(group, "tests").as_list()) {
      const std::string& data = field(test, "data").as_string();
      const std::string& want = field(test, "want").as_string();
      const std::string got = ejob::render::helm::schema_problems(
          schema, ejob::render::go::json::unmarshal(data).value, io);
      INFO(field(group, "where").as_string() << "\nschema: " << schema << "\ndata: " << data);
      CHECK(same_problems(want, got.ends_with('\n') ? got.substr(0, got.size() - 1) : got));
      ++tests;
    }
  }
  CHECK(tests > 4800);
}
