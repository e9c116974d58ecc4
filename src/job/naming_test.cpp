#include "src/job/naming.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "src/util/error.hpp"

using namespace ejob::job;

namespace {

/// A random source that returns 0, 1, 2, … so suffixes are predictable.
RandomSource counting() {
  auto next = std::make_shared<uint32_t>(0);
  return [next] { return (*next)++; };
}

std::string usage_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Usage);
    return e.message();
  }
  FAIL("no error thrown");
  return "";
}

}  // namespace

TEST_CASE("naming: model names become DNS labels") {
  CHECK(dns_form("ResNet_50") == "resnet-50");
  CHECK(dns_form("  my..model--v2  ") == "my-model-v2");
  CHECK(dns_form("3d-unet") == "job-3d-unet");
  CHECK(dns_form("Ünïcode model") == "n-code-model");
  CHECK(dns_form("___") == "");
}

TEST_CASE("naming: a unique name is the DNS form plus five random characters") {
  NameBudget budget = name_budget(4, {});
  CHECK(unique_job_name("ResNet_50", budget, counting()) == "resnet-50-abcde");
  auto wrap = [] { return 36u + 35u; };
  CHECK(unique_job_name("x", budget, wrap) == "x-99999");
}

TEST_CASE("naming: two unique names of one model differ") {
  NameBudget budget = name_budget(1, {});
  std::string a = unique_job_name("bert", budget);
  std::string b = unique_job_name("bert", budget);
  CHECK(a != b);
  CHECK(a.size() == 10);
  CHECK(is_dns1035_label(a));
  CHECK(a.rfind("bert-", 0) == 0);
}

TEST_CASE("naming: the budget follows the longest derived name") {
  NameBudget small = name_budget(8, {});
  CHECK(small.max_length == 50);
  CHECK(small.longest == "NAME-etcd-service");
  NameBudget many = name_budget(100000, {});
  CHECK(many.max_length == 50);
  NameBudget huge = name_budget(10000000, {});
  CHECK(huge.max_length == 48);
  CHECK(huge.longest == "NAME-worker-9999999");
  NameBudget blob = name_budget(2, {"data", "checkpoints-of-the-vision-team"});
  CHECK(blob.max_length == 32);
  CHECK(blob.longest == "NAME-checkpoints-of-the-vision-team");
}

TEST_CASE("naming: exact names at the limit pass, one more character is refused") {
  NameBudget budget = name_budget(2, {});
  std::string fifty(50, 'a');
  CHECK_NOTHROW(check_exact_name(fifty, budget));
  CHECK(usage_error([&] { check_exact_name(fifty + "b", budget); }) ==
        "--name: \"" + fifty +
            "b\" has 51 characters, the limit is 50 (so that NAME-etcd-service stays a "
            "DNS-1035 label of at most 63 characters)");
}

TEST_CASE("naming: exact names must be DNS-1035 labels") {
  NameBudget budget = name_budget(2, {});
  for (std::string bad : {"ResNet", "9lives", "a_b", "trailing-", ""}) {
    CHECK(usage_error([&] { check_exact_name(bad, budget); }) ==
          "--name: \"" + bad +
              "\" is not a valid --exact-name: use lower-case letters, digits and '-', starting "
              "with a letter and ending with a letter or digit");
  }
}

TEST_CASE("naming: a model name too long for the suffix is refused with the limit") {
  NameBudget budget = name_budget(2, {});
  std::string model(45, 'm');
  CHECK(usage_error([&] { unique_job_name(model, budget); }) ==
        "--name: \"" + model +
            "\" (before the 6-character random suffix) has 45 characters, the limit is 44 (so "
            "that NAME-etcd-service stays a DNS-1035 label of at most 63 characters)");
  CHECK(unique_job_name(std::string(44, 'm'), budget, counting()).size() == 50);
  CHECK(usage_error([&] { unique_job_name("__", budget); }) ==
        "--name: \"__\" has no letter or digit to build a job name from");
}
