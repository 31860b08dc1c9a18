// cudamatrix/cu-array.h
// CuArray<T>: an array of plain values (row indexes, index pairs, row
// pointers) in the memory of the computing backend, as the row and column
// index operations of CuMatrixBase take them. Index arrays of a compiled
// computation are made into CuArrays once and then reused, so that a GPU
// backend uploads them once rather than on every command.
//
// Invariants: Dim() elements at Data(); Vec() is the host copy, valid while
// the CPU computes (on the CPU backend the array is that vector).
#ifndef NNET3_CUDAMATRIX_CU_ARRAY_H_
#define NNET3_CUDAMATRIX_CU_ARRAY_H_

#include <utility>
#include <vector>

#include "matrix/common.h"

namespace nnet3 {

template <typename T>
class CuArray {
 public:
  CuArray() {}
  explicit CuArray(MatrixIndexT dim) : data_(dim) {}
  explicit CuArray(const std::vector<T> &src) : data_(src) {}
  // Takes the vector's contents (no copy on the CPU backend).
  explicit CuArray(std::vector<T> &&src) : data_(std::move(src)) {}

  MatrixIndexT Dim() const { return static_cast<MatrixIndexT>(data_.size()); }
  T *Data() { return data_.empty() ? nullptr : data_.data(); }
  const T *Data() const { return data_.empty() ? nullptr : data_.data(); }

  void Resize(MatrixIndexT dim) { data_.assign(dim, T()); }
  void CopyFromVec(const std::vector<T> &src) { data_ = src; }
  void CopyToVec(std::vector<T> *dst) const { *dst = data_; }
  void Swap(CuArray<T> *other) { data_.swap(other->data_); }

  // The host view (CPU backend only).
  const std::vector<T> &Vec() const { return data_; }

 private:
  std::vector<T> data_;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_ARRAY_H_
