// cudamatrix/cuda/device-ops.cc
// The DeviceOps of a CUDA build: each entry forwards to the kernel (or
// cuBLAS call) of the same name in this folder. Plain C++; the kernels are
// compiled by nvcc in their own files.
#include "cudamatrix/cuda/device-ops.h"

#include "cudamatrix/cuda/attention.h"
#include "cudamatrix/cuda/broadcast.h"
#include "cudamatrix/cuda/compressed.h"
#include "cudamatrix/cuda/convolution.h"
#include "cudamatrix/cuda/copy-set.h"
#include "cudamatrix/cuda/elementwise.h"
#include "cudamatrix/cuda/gemm.h"
#include "cudamatrix/cuda/nonlinear.h"
#include "cudamatrix/cuda/recurrent.h"
#include "cudamatrix/cuda/reductions.h"
#include "cudamatrix/cuda/row-ops.h"
#include "cudamatrix/cuda/softmax.h"
#include "cudamatrix/cuda/sparse.h"
#include "cudamatrix/cuda/update.h"

namespace nnet3 {
namespace cuda {

namespace {

template <typename Real>
class KernelOps : public DeviceOps<Real> {
 public:
  typedef typename DeviceOps<Real>::M M;
  typedef typename DeviceOps<Real>::CM CM;
  typedef typename DeviceOps<Real>::V V;
  typedef typename DeviceOps<Real>::CV CV;
  typedef typename DeviceOps<Real>::Other Other;

  void SetZero(M m) override { cuda::SetZero(m); }
  void Set(M m, Real value) override { cuda::Set(m, value); }
  void SetUnit(M m) override { cuda::SetUnit(m); }
  void CopyFromMat(M dst, CM src, MatrixTransposeType trans) override {
    cuda::CopyFromMat(dst, src, trans);
  }
  void CopyFromOther(M dst, DevMat<const Other> src,
                     MatrixTransposeType trans) override {
    cuda::CopyFromMat(dst, src, trans);
  }
  void CopyColsFromVec(M m, CV v) override { cuda::CopyColsFromVec(m, v); }
  void Add(M m, Real alpha) override { cuda::Add(m, alpha); }
  void Scale(M m, Real alpha) override { cuda::Scale(m, alpha); }

  void ApplyFloor(M m, Real v) override { cuda::ApplyFloor(m, v); }
  void ApplyCeiling(M m, Real v) override { cuda::ApplyCeiling(m, v); }
  void ApplyExp(M m) override { cuda::ApplyExp(m); }
  void ApplyLog(M m) override { cuda::ApplyLog(m); }
  void ApplyAbs(M m) override { cuda::ApplyAbs(m); }
  void ApplyPow(M m, Real p) override { cuda::ApplyPow(m, p); }
  void ApplyPowAbs(M m, Real p, bool include_sign) override {
    cuda::ApplyPowAbs(m, p, include_sign);
  }
  void ApplyHeaviside(M m) override { cuda::ApplyHeaviside(m); }
  void InvertElements(M m) override { cuda::InvertElements(m); }
  void Sigmoid(M dst, CM src) override { cuda::Sigmoid(dst, src); }
  void Tanh(M dst, CM src) override { cuda::Tanh(dst, src); }
  void DiffSigmoid(M dst, CM value, CM diff) override {
    cuda::DiffSigmoid(dst, value, diff);
  }
  void DiffTanh(M dst, CM value, CM diff) override {
    cuda::DiffTanh(dst, value, diff);
  }
  void MulElements(M dst, CM a) override { cuda::MulElements(dst, a); }
  void DivElements(M dst, CM a) override { cuda::DivElements(dst, a); }
  void Max(M dst, CM a) override { cuda::Max(dst, a); }
  void Min(M dst, CM a) override { cuda::Min(dst, a); }
  void AddMat(M dst, Real alpha, CM a, MatrixTransposeType trans) override {
    cuda::AddMat(dst, alpha, a, trans);
  }
  void AddMatMatElements(M dst, Real alpha, CM a, CM b, Real beta) override {
    cuda::AddMatMatElements(dst, alpha, a, b, beta);
  }

  void MulRowsVec(M m, CV scale) override { cuda::MulRowsVec(m, scale); }
  void DivRowsVec(M m, CV div) override { cuda::DivRowsVec(m, div); }
  void MulColsVec(M m, CV scale) override { cuda::MulColsVec(m, scale); }
  void AddVecToRows(M m, Real alpha, CV v, Real beta) override {
    cuda::AddVecToRows(m, alpha, v, beta);
  }
  void AddVecToCols(M m, Real alpha, CV v, Real beta) override {
    cuda::AddVecToCols(m, alpha, v, beta);
  }
  void AddDiagVecMat(M dst, Real alpha, CV v, CM m, MatrixTransposeType trans,
                     Real beta) override {
    cuda::AddDiagVecMat(dst, alpha, v, m, trans, beta);
  }
  void AddMatDiagVec(M dst, Real alpha, CM m, MatrixTransposeType trans, CV v,
                     Real beta) override {
    cuda::AddMatDiagVec(dst, alpha, m, trans, v, beta);
  }

  void AddMatMat(M c, Real alpha, CM a, MatrixTransposeType ta, CM b,
                 MatrixTransposeType tb, Real beta) override {
    cuda::AddMatMat(c, alpha, a, ta, b, tb, beta);
  }
  void AddMatVec(V y, Real alpha, CM m, MatrixTransposeType trans, CV x,
                 Real beta) override {
    cuda::AddMatVec(y, alpha, m, trans, x, beta);
  }
  void AddVecVec(M m, Real alpha, CV a, CV b) override {
    cuda::AddVecVec(m, alpha, a, b);
  }

  void SoftMaxPerRow(M dst, CM src) override { cuda::SoftMaxPerRow(dst, src); }
  void LogSoftMaxPerRow(M dst, CM src) override {
    cuda::LogSoftMaxPerRow(dst, src);
  }

  Real Sum(CM m) override { return cuda::Sum(m); }
  Real MaxElement(CM m) override { return cuda::Max(m); }
  Real MinElement(CM m) override { return cuda::Min(m); }
  Real FrobeniusNorm(CM m) override { return cuda::FrobeniusNorm(m); }
  Real VecMax(CV v, int32 *index) override {
    return index == nullptr ? cuda::Max(v) : cuda::Max(v, index);
  }
  Real VecMin(CV v, int32 *index) override {
    return index == nullptr ? cuda::Min(v) : cuda::Min(v, index);
  }
  Real VecNorm(CV v, Real p) override { return cuda::Norm(v, p); }
  void AddRowSumMat(V v, Real alpha, CM m, Real beta) override {
    cuda::AddRowSumMat(v, alpha, m, beta);
  }
  void AddColSumMat(V v, Real alpha, CM m, Real beta) override {
    cuda::AddColSumMat(v, alpha, m, beta);
  }

  void CopyRows(M dst, CM src, const int32 *indexes) override {
    cuda::CopyRows(dst, src, indexes);
  }
  void CopyRowsFromPtrs(M dst, const Real *const *src) override {
    cuda::CopyRows(dst, src);
  }
  void CopyToRows(CM src, const int32 *indexes, M dst) override {
    cuda::CopyToRows(src, indexes, dst);
  }
  void CopyToRowPtrs(CM src, Real *const *dst) override {
    cuda::CopyToRows(src, dst);
  }
  void AddRows(M dst, Real alpha, CM src, const int32 *indexes) override {
    cuda::AddRows(dst, alpha, src, indexes);
  }
  void AddRowsFromPtrs(M dst, Real alpha, const Real *const *src) override {
    cuda::AddRows(dst, alpha, src);
  }
  void AddToRows(CM src, Real alpha, const int32 *indexes, M dst) override {
    cuda::AddToRows(src, alpha, indexes, dst);
  }
  void AddToRowPtrs(CM src, Real alpha, Real *const *dst) override {
    cuda::AddToRows(src, alpha, dst);
  }
  void AddRowRanges(M dst, CM src, const Int32Pair *indexes) override {
    cuda::AddRowRanges(dst, src, indexes);
  }
  void SumColumnRanges(M dst, CM src, const Int32Pair *indexes) override {
    cuda::SumColumnRanges(dst, src, indexes);
  }
  void CopyCols(M dst, CM src, const int32 *indexes) override {
    cuda::CopyCols(dst, src, indexes);
  }
  void AddCols(M dst, CM src, const int32 *indexes) override {
    cuda::AddCols(dst, src, indexes);
  }

  void AddSparseToMat(M dst, Real alpha, const int32 *rows, const int32 *cols,
                      const Real *values, int32 nnz,
                      MatrixTransposeType trans) override {
    cuda::AddSparseToMat<Real>(dst, alpha, rows, cols, values, nnz, trans);
  }
  Real TraceMatSparse(CM a, const int32 *rows, const int32 *cols,
                      const Real *values, int32 nnz,
                      MatrixTransposeType trans) override {
    return cuda::TraceMatSparse<Real>(a, rows, cols, values, nnz, trans);
  }
  void CompressMatrix(int32 type, CM src, Real range, bool truncate,
                      void *dst) override {
    cuda::CompressMatrix<Real>(type, src, range, truncate, dst);
  }
  void DecompressMatrix(int32 type, const void *src, Real range,
                        M dst) override {
    cuda::DecompressMatrix<Real>(type, src, range, dst);
  }

  void BackpropRectifiedLinear(M in_deriv, CM out_value,
                               CM out_deriv) override {
    cuda::BackpropRectifiedLinear(in_deriv, out_value, out_deriv);
  }
  void DiffSoftmaxPerRow(M in_deriv, CM value, CM diff) override {
    cuda::DiffSoftmaxPerRow(in_deriv, value, diff);
  }
  void DiffLogSoftmaxPerRow(M in_deriv, CM out_value, CM out_deriv) override {
    cuda::DiffLogSoftmaxPerRow(in_deriv, out_value, out_deriv);
  }
  void NormalizePerRow(M out, CM in, Real target_rms,
                       bool add_log_stddev) override {
    cuda::NormalizePerRow(out, in, target_rms, add_log_stddev);
  }
  void DiffNormalizePerRow(M in_deriv, CM in_value, CM out_deriv,
                           Real target_rms, bool add_log_stddev) override {
    cuda::DiffNormalizePerRow(in_deriv, in_value, out_deriv, target_rms,
                              add_log_stddev);
  }
  void ColumnDotProducts(V v, Real alpha, CM a, CM b) override {
    cuda::ColumnDotProducts(v, alpha, a, b);
  }
  void BackpropDropoutFromValues(M in_deriv, CM in_value, CM out_value,
                                 CM out_deriv) override {
    cuda::BackpropDropoutFromValues(in_deriv, in_value, out_value, out_deriv);
  }
  void GroupPnorm(M out, CM src) override { cuda::GroupPnorm(out, src); }
  void DiffGroupPnorm(M in_deriv, CM in_value, CM out_value,
                      CM out_deriv) override {
    cuda::DiffGroupPnorm(in_deriv, in_value, out_value, out_deriv);
  }
  void ExcessMagnitude(M out, CM in, Real threshold) override {
    cuda::ExcessMagnitude(out, in, threshold);
  }
  void MulRowBlocks(M data, CM src, const int32 *indexes) override {
    cuda::MulRowBlocks(data, src, indexes);
  }
  void ComputeLstmNonlinearity(CM input, CM params, M output) override {
    cuda::ComputeLstmNonlinearity(input, params, output);
  }
  void BackpropLstmNonlinearity(CM input, CM params, CM output_deriv,
                                DevMat<const double> deriv_sum_in,
                                CV self_repair_config, double count_in,
                                M input_deriv, M params_deriv,
                                DevMat<double> value_sum_out,
                                DevMat<double> deriv_sum_out,
                                M self_repair_sum_out) override {
    cuda::BackpropLstmNonlinearity(input, params, output_deriv, deriv_sum_in,
                                   self_repair_config, count_in, input_deriv,
                                   params_deriv, value_sum_out, deriv_sum_out,
                                   self_repair_sum_out);
  }

  void ShiftedRowDots(M w, Real alpha, CM a, CM b, int32 shift) override {
    cuda::ShiftedRowDots(w, alpha, a, b, shift);
  }
  void AddWeightedShiftedRows(M a, Real alpha, CM b, CM w,
                              int32 shift) override {
    cuda::AddWeightedShiftedRows(a, alpha, b, w, shift);
  }
  void ScatterWeightedRows(M b, Real alpha, CM a, CM w,
                           int32 shift) override {
    cuda::ScatterWeightedRows(b, alpha, a, w, shift);
  }
  void AccumulateAttentionStats(CM weights, int32 num_heads, V temp,
                                DevMat<double> posterior,
                                DevVec<double> entropy) override {
    cuda::AccumulateAttentionStats(weights, num_heads, temp, posterior,
                                   entropy);
  }

  void AddTiledBlockSums(M sums, CM m) override {
    cuda::AddTiledBlockSums(sums, m);
  }
  void AddTiled(M m, CM tile) override { cuda::AddTiled(m, tile); }
  void SelectWhereEqual(M data, CM ref, CM src) override {
    cuda::SelectWhereEqual(data, ref, src);
  }

  void TruncationRowScales(V scales, M flags, CM deriv, CV zeroing,
                           Real inv_clip_sq, Real zero_sq) override {
    cuda::TruncationRowScales(scales, flags, deriv, zeroing, inv_clip_sq,
                              zero_sq);
  }
  void FloorMagnitude(V v, Real floor) override {
    cuda::FloorMagnitude(v, floor);
  }
  bool OrthonormalizeRows(M m, double *work) override {
    return cuda::OrthonormalizeRows(m, work);
  }
};

}  // namespace

DeviceOps<float> *KernelOpsFloat() {
  static KernelOps<float> ops;
  return &ops;
}

DeviceOps<double> *KernelOpsDouble() {
  static KernelOps<double> ops;
  return &ops;
}

}  // namespace cuda
}  // namespace nnet3
