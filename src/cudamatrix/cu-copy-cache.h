// cudamatrix/cu-copy-cache.h
// CuCopyCache<CuType>: a Cu copy (CuArray, CuVector) of host data that does
// not change, made on first use and kept, one for each backend an operand
// may live on. Precomputed indexes use it so that a component does not
// upload the same index arrays on every call (which also keeps the call free
// of host copies, as CUDA-graph replay needs).
//
// Invariants: Get() returns the copy for the place asked for, made from
// 'src' the first time; the caller must pass the same contents every time
// (Clear() when they change, e.g. on Read); thread-safe; copying the owner
// copies no cache (the copy makes its own).
#ifndef NNET3_CUDAMATRIX_CU_COPY_CACHE_H_
#define NNET3_CUDAMATRIX_CU_COPY_CACHE_H_

#include <memory>
#include <mutex>

#include "cudamatrix/cu-backend.h"

namespace nnet3 {

template <class CuType>
class CuCopyCache {
 public:
  CuCopyCache() {}
  CuCopyCache(const CuCopyCache &) {}
  CuCopyCache &operator=(const CuCopyCache &) {
    Clear();
    return *this;
  }

  template <class Src>
  const CuType &Get(const Src &src, bool on_device) const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<CuType> &slot = on_device ? device_ : host_;
    if (slot == nullptr) {
      if (on_device == cu_backend::OnDevice()) {
        slot.reset(new CuType(src));
      } else {
        cu_backend::Scope place(on_device);
        slot.reset(new CuType(src));
      }
    }
    return *slot;
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    host_.reset();
    device_.reset();
  }

 private:
  mutable std::mutex mutex_;
  mutable std::unique_ptr<CuType> host_, device_;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_COPY_CACHE_H_
