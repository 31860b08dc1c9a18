// cudamatrix/cu-array.h
// CuArray<T>: an array of plain values (row indexes, index pairs, row
// pointers) as the row and column index operations of CuMatrixBase take
// them. Index arrays of a compiled computation are made into CuArrays once
// and then reused, so that the GPU backend uploads them once rather than on
// every command.
//
// Invariants: Dim() elements; the host vector (Vec()) always holds the
// contents, on either backend; when the array lives on the device
// (OnDevice(), chosen from cu_backend::OnDevice() when its contents are
// set) Data() is a device copy of that vector, rewritten whenever the
// contents change. Arrays are written only from the host.
#ifndef NNET3_CUDAMATRIX_CU_ARRAY_H_
#define NNET3_CUDAMATRIX_CU_ARRAY_H_

#include <utility>
#include <vector>

#include "cudamatrix/cu-backend.h"
#include "matrix/common.h"

namespace nnet3 {

template <typename T>
class CuArray {
 public:
  CuArray() : on_device_(cu_backend::OnDevice()) {}
  explicit CuArray(MatrixIndexT dim) : data_(dim) { Mirror(); }
  explicit CuArray(const std::vector<T> &src) : data_(src) { Mirror(); }
  // Takes the vector's contents (no copy on the CPU backend).
  explicit CuArray(std::vector<T> &&src) : data_(std::move(src)) { Mirror(); }
  CuArray(const CuArray<T> &other) : data_(other.data_) { Mirror(); }
  CuArray(CuArray<T> &&other) noexcept
      : data_(std::move(other.data_)), on_device_(other.on_device_),
        dev_(other.dev_) {
    other.data_.clear();
    other.dev_ = nullptr;
  }
  CuArray<T> &operator=(const CuArray<T> &other) {
    if (this != &other) {
      data_ = other.data_;
      Mirror();
    }
    return *this;
  }
  ~CuArray() { cu_backend::Free(dev_); }

  MatrixIndexT Dim() const { return static_cast<MatrixIndexT>(data_.size()); }
  bool OnDevice() const { return on_device_; }
  // The array in the memory of its backend.
  T *Data() {
    if (on_device_) return dev_;
    return data_.empty() ? nullptr : data_.data();
  }
  const T *Data() const {
    if (on_device_) return dev_;
    return data_.empty() ? nullptr : data_.data();
  }

  void Resize(MatrixIndexT dim) {
    data_.assign(dim, T());
    Mirror();
  }
  void CopyFromVec(const std::vector<T> &src) {
    data_ = src;
    Mirror();
  }
  void CopyToVec(std::vector<T> *dst) const { *dst = data_; }
  void Swap(CuArray<T> *other) {
    data_.swap(other->data_);
    std::swap(dev_, other->dev_);
    std::swap(on_device_, other->on_device_);
  }

  // The host copy of the contents (valid on both backends).
  const std::vector<T> &Vec() const { return data_; }

 private:
  // Puts the contents where Cu objects live now.
  void Mirror() {
    cu_backend::Free(dev_);
    dev_ = nullptr;
    on_device_ = cu_backend::OnDevice();
    if (!on_device_ || data_.empty()) return;
    const size_t bytes = sizeof(T) * data_.size();
    dev_ = static_cast<T *>(cu_backend::Malloc(bytes));
    cu_backend::CopyToDevice(dev_, bytes, data_.data(), bytes, bytes, 1);
  }

  std::vector<T> data_;
  bool on_device_ = false;
  T *dev_ = nullptr;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_ARRAY_H_
