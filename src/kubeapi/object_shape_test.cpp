#include "src/kubeapi/object_shape.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using ejob::Error;
using ejob::kubeapi::check_object_shape;
using ejob::kubeapi::Json;

namespace {

/// The error check_object_shape() gives `text` (a JSON object), or "" when it takes it.
std::string shape_error(const std::string& text, const std::string& prefix = "") {
  Json object = Json::parse(text);
  try {
    check_object_shape(object, "GET /x", prefix);
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

}  // namespace

TEST_CASE("an object as Kubernetes gives it passes, nulls removed", "[object_shape]") {
  Json job = Json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
    "metadata": {"name": "j", "namespace": null, "labels": {"a": "b", "c": null},
                 "annotations": {}},
    "status": {"conditions": [{"type": "Running", "status": "True", "message": null}],
               "replicatedJobsStatus": [{"active": 2}], "active": 1.0},
    "spec": {"anything": [1, true]}})");
  check_object_shape(job, "GET /x");
  CHECK_FALSE(job["metadata"].contains("namespace"));
  CHECK(job["metadata"]["labels"] == Json({{"a", "b"}}));
  CHECK_FALSE(job["status"]["conditions"][0].contains("message"));
  CHECK(job["spec"]["anything"] == Json::array({1, true}));
  Json bare = Json::object();
  check_object_shape(bare, "GET /x");
  CHECK(bare == Json({{"metadata", Json::object()}}));
}

TEST_CASE("a field of the wrong type is named with the request", "[object_shape]") {
  CHECK(shape_error(R"({"metadata": {"name": 5}})") ==
        "the server answered GET /x with metadata.name as a number, where Kubernetes has a "
        "string (a server or proxy that is not Kubernetes?)");
  CHECK(shape_error(R"({"metadata": "m"})")
            .find("metadata as a string, where Kubernetes has "
                  "an object") != std::string::npos);
  CHECK(shape_error(R"({"metadata": {"labels": {"team": true}}})")
            .find("metadata.labels.team as true,") != std::string::npos);
  CHECK(shape_error(R"({"status": {"conditions": [{"type": "A"}, {"status": 1}]}})")
            .find("status.conditions[1].status as a number,") != std::string::npos);
  CHECK(shape_error(R"({"status": {"conditions": [null]}})")
            .find("status.conditions[0] as null, where Kubernetes has an object") !=
        std::string::npos);
  CHECK(shape_error(R"({"status": {"jobsStatus": [{"active": "2"}]}})")
            .find("status.jobsStatus[0].active as a string, where Kubernetes has a number") !=
        std::string::npos);
  CHECK(shape_error(R"({"kind": ["Pod"]})", "items[3].").find("with items[3].kind as a list,") !=
        std::string::npos);
}

TEST_CASE("a Status is not an object of a resource", "[object_shape]") {
  CHECK(shape_error(R"({"kind": "Status", "apiVersion": "v1", "status": "Success"})").empty());
  CHECK(shape_error(R"({"kind": "Pod", "status": "Success"})").find("status as a string") !=
        std::string::npos);
}
