#pragma once
/// Owners of OpenSSL objects: a std::unique_ptr that frees with the object's own free function.

#include <memory>

namespace ejob::render::sprig {

template <class T, void (*Free)(T*)>
struct OpensslFree {
  void operator()(T* p) const { Free(p); }
};

/// `OpensslPtr<BIGNUM, BN_free>` owns a BIGNUM.
template <class T, void (*Free)(T*)>
using OpensslPtr = std::unique_ptr<T, OpensslFree<T, Free>>;

}  // namespace ejob::render::sprig
