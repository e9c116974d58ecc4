#pragma once
/// `ejob install-crds`' work on the cluster: server-side apply of a CRD (field manager ejob),
/// then a watch until the API server reports it Established, so that `ejob submit` can follow
/// at once.

#include <string>

#include "src/job/backend.hpp"

namespace ejob::job {

/// How the CRD is applied.
struct CrdApply {
  bool force = false;    ///< take over fields another manager owns
  bool dry_run = false;  ///< the server checks it without storing it
};

/// Applies `crd` and returns the server's answer.
Json apply_crd(kubeapi::Client& client, const Json& crd, const CrdApply& how);

/// True when the CRD's conditions say Established=True.
bool crd_established(const Json& crd);

/// Watches the CRD `name` until it is Established; ejob::Error(Timeout) after `seconds`.
void wait_crd_established(kubeapi::Client& client, const std::string& name, int seconds);

}  // namespace ejob::job
