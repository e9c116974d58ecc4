#pragma once
/// The command line of a job — JOBFILE, the job flags, the Helm-style value flags — into a
/// job::JobRequest. What a request resolves to is src/job/job_request.hpp.

#include <CLI/CLI.hpp>
#include <string>

#include "src/job/job_request.hpp"

namespace ejob::cli {

using job::Job;
using job::JobRequest;
using job::k_job_namespace;

/// Resolves a request with the embedded elasticjob chart as the default chart.
Job resolve_job(const JobRequest& request, const render::helm::ReadFile& read);

/// Adds the job flags (except --name/--exact-name, which `template` already has as Helm
/// flags, and the training command, which follows `--`) to a subcommand.
void add_job_flags(CLI::App& app, job::JobFlags& flags);

/// Adds the positional JOBFILE and the job flags shared by template, submit and values to
/// `app`. The command's callback must move `take_trailing_args()` into
/// `request.flags.command`.
void add_job_arguments(CLI::App& app, JobRequest& request);

/// Adds the Helm-style value flags into `request`: --chart, --name, --exact-name,
/// -n/--namespace, -f/--values, --set, --set-string, --set-json, --set-file, --set-literal.
void add_value_flags(CLI::App& app, JobRequest& request);

}  // namespace ejob::cli
