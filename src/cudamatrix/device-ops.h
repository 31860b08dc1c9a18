// cudamatrix/device-ops.h
// DeviceOps<Real>: the operations the Cu* types hand to the GPU when their
// data lives on the device, as an interface over device views (DevMat,
// DevVec; cuda/device-view.h is plain C++). A CUDA build implements it with
// the kernels of cudamatrix/cuda/ (cuda/device-ops.cc) and hands it out
// through GpuRuntime::Ops(); a build without CUDA has no implementation, and
// no Cu object ever lives on a device there, so nothing calls it.
//
// Invariants: every entry has the meaning, argument order and special
// cases (beta == 0 ignores the old value, -1 indexes) of the CPU operation
// of the same name in matrix/; all work is queued on the backend's one
// stream, so calls are ordered; the reductions that return a value wait for
// it. Operations whose Cu method has no entry here are computed on a host
// copy by the Cu method itself (see cu-matrix.h).
#ifndef NNET3_CUDAMATRIX_DEVICE_OPS_H_
#define NNET3_CUDAMATRIX_DEVICE_OPS_H_

#include "base/types.h"
#include "cudamatrix/cuda/device-view.h"
#include "matrix/common.h"

namespace nnet3 {

template <typename Real>
class DeviceOps {
 public:
  typedef cuda::DevMat<Real> M;
  typedef cuda::DevMat<const Real> CM;
  typedef cuda::DevVec<Real> V;
  typedef cuda::DevVec<const Real> CV;
  typedef typename std::conditional<std::is_same<Real, float>::value, double,
                                    float>::type Other;

  virtual ~DeviceOps() {}

  // Copy and set.
  virtual void SetZero(M m) = 0;
  virtual void Set(M m, Real value) = 0;
  virtual void SetUnit(M m) = 0;
  virtual void CopyFromMat(M dst, CM src, MatrixTransposeType trans) = 0;
  virtual void CopyFromOther(M dst, cuda::DevMat<const Other> src,
                             MatrixTransposeType trans) = 0;
  virtual void CopyColsFromVec(M m, CV v) = 0;
  virtual void Add(M m, Real alpha) = 0;
  virtual void Scale(M m, Real alpha) = 0;

  // Elementwise.
  virtual void ApplyFloor(M m, Real floor_val) = 0;
  virtual void ApplyCeiling(M m, Real ceil_val) = 0;
  virtual void ApplyExp(M m) = 0;
  virtual void ApplyLog(M m) = 0;
  virtual void ApplyAbs(M m) = 0;
  virtual void ApplyPow(M m, Real power) = 0;
  virtual void ApplyPowAbs(M m, Real power, bool include_sign) = 0;
  virtual void ApplyHeaviside(M m) = 0;
  virtual void InvertElements(M m) = 0;
  virtual void Sigmoid(M dst, CM src) = 0;
  virtual void Tanh(M dst, CM src) = 0;
  virtual void DiffSigmoid(M dst, CM value, CM diff) = 0;
  virtual void DiffTanh(M dst, CM value, CM diff) = 0;
  virtual void MulElements(M dst, CM a) = 0;
  virtual void DivElements(M dst, CM a) = 0;
  virtual void Max(M dst, CM a) = 0;
  virtual void Min(M dst, CM a) = 0;
  virtual void AddMat(M dst, Real alpha, CM a, MatrixTransposeType trans) = 0;
  virtual void AddMatMatElements(M dst, Real alpha, CM a, CM b,
                                 Real beta) = 0;

  // Broadcasts.
  virtual void MulRowsVec(M m, CV scale) = 0;
  virtual void DivRowsVec(M m, CV div) = 0;
  virtual void MulColsVec(M m, CV scale) = 0;
  virtual void AddVecToRows(M m, Real alpha, CV v, Real beta) = 0;
  virtual void AddVecToCols(M m, Real alpha, CV v, Real beta) = 0;
  virtual void AddDiagVecMat(M dst, Real alpha, CV v, CM m,
                             MatrixTransposeType trans, Real beta) = 0;
  virtual void AddMatDiagVec(M dst, Real alpha, CM m,
                             MatrixTransposeType trans, CV v, Real beta) = 0;

  // BLAS.
  virtual void AddMatMat(M c, Real alpha, CM a, MatrixTransposeType trans_a,
                         CM b, MatrixTransposeType trans_b, Real beta) = 0;
  virtual void AddMatVec(V y, Real alpha, CM m, MatrixTransposeType trans,
                         CV x, Real beta) = 0;
  virtual void AddVecVec(M m, Real alpha, CV a, CV b) = 0;

  // Softmax.
  virtual void SoftMaxPerRow(M dst, CM src) = 0;
  virtual void LogSoftMaxPerRow(M dst, CM src) = 0;

  // Reductions (these wait for the result).
  virtual Real Sum(CM m) = 0;
  virtual Real MaxElement(CM m) = 0;
  virtual Real MinElement(CM m) = 0;
  virtual Real FrobeniusNorm(CM m) = 0;
  virtual Real VecMax(CV v, int32 *index) = 0;
  virtual Real VecMin(CV v, int32 *index) = 0;
  virtual Real VecNorm(CV v, Real p) = 0;
  virtual void AddRowSumMat(V v, Real alpha, CM m, Real beta) = 0;
  virtual void AddColSumMat(V v, Real alpha, CM m, Real beta) = 0;

  // Row and column index operations (index arrays in device memory).
  virtual void CopyRows(M dst, CM src, const int32 *indexes) = 0;
  virtual void CopyRowsFromPtrs(M dst, const Real *const *src) = 0;
  virtual void CopyToRows(CM src, const int32 *indexes, M dst) = 0;
  virtual void CopyToRowPtrs(CM src, Real *const *dst) = 0;
  virtual void AddRows(M dst, Real alpha, CM src, const int32 *indexes) = 0;
  virtual void AddRowsFromPtrs(M dst, Real alpha, const Real *const *src) = 0;
  virtual void AddToRows(CM src, Real alpha, const int32 *indexes,
                         M dst) = 0;
  virtual void AddToRowPtrs(CM src, Real alpha, Real *const *dst) = 0;
  virtual void AddRowRanges(M dst, CM src, const Int32Pair *indexes) = 0;
  virtual void SumColumnRanges(M dst, CM src, const Int32Pair *indexes) = 0;
  virtual void CopyCols(M dst, CM src, const int32 *indexes) = 0;
  virtual void AddCols(M dst, CM src, const int32 *indexes) = 0;

  // Sparse matrices as device arrays of (row, column, value) triplets
  // (cu-sparse-matrix.h): dst += alpha * op(S), and trace(op(A) S).
  virtual void AddSparseToMat(M dst, Real alpha, const int32 *rows,
                              const int32 *cols, const Real *values,
                              int32 nnz, MatrixTransposeType trans) = 0;
  virtual Real TraceMatSparse(CM a, const int32 *rows, const int32 *cols,
                              const Real *values, int32 nnz,
                              MatrixTransposeType trans) = 0;

  // Memory compression (cu-compressed-matrix.h): "dst"/"src" hold the
  // integers of compression type "type" (1..4), row after row.
  virtual void CompressMatrix(int32 type, CM src, Real range, bool truncate,
                              void *dst) = 0;
  virtual void DecompressMatrix(int32 type, const void *src, Real range,
                                M dst) = 0;

  // Component families (cu-math-nonlinear.h, cu-math-recurrent.h).
  virtual void BackpropRectifiedLinear(M in_deriv, CM out_value,
                                       CM out_deriv) = 0;
  virtual void DiffSoftmaxPerRow(M in_deriv, CM value, CM diff) = 0;
  virtual void DiffLogSoftmaxPerRow(M in_deriv, CM out_value,
                                    CM out_deriv) = 0;
  virtual void NormalizePerRow(M out, CM in, Real target_rms,
                               bool add_log_stddev) = 0;
  virtual void DiffNormalizePerRow(M in_deriv, CM in_value, CM out_deriv,
                                   Real target_rms, bool add_log_stddev) = 0;
  virtual void ColumnDotProducts(V v, Real alpha, CM a, CM b) = 0;
  virtual void BackpropDropoutFromValues(M in_deriv, CM in_value,
                                         CM out_value, CM out_deriv) = 0;
  virtual void GroupPnorm(M out, CM src) = 0;
  virtual void DiffGroupPnorm(M in_deriv, CM in_value, CM out_value,
                              CM out_deriv) = 0;
  virtual void ExcessMagnitude(M out, CM in, Real threshold) = 0;
  virtual void MulRowBlocks(M data, CM src, const int32 *indexes) = 0;
  virtual void ComputeLstmNonlinearity(CM input, CM params, M output) = 0;
  virtual void BackpropLstmNonlinearity(
      CM input, CM params, CM output_deriv,
      cuda::DevMat<const double> deriv_sum_in, CV self_repair_config,
      double count_in, M input_deriv, M params_deriv,
      cuda::DevMat<double> value_sum_out, cuda::DevMat<double> deriv_sum_out,
      M self_repair_sum_out) = 0;

  // Attention (cu-math-attention.h); "temp" holds 2 * weights.cols.
  virtual void ShiftedRowDots(M w, Real alpha, CM a, CM b, int32 shift) = 0;
  virtual void AddWeightedShiftedRows(M a, Real alpha, CM b, CM w,
                                      int32 shift) = 0;
  virtual void ScatterWeightedRows(M b, Real alpha, CM a, CM w,
                                   int32 shift) = 0;
  virtual void AccumulateAttentionStats(CM weights, int32 num_heads, V temp,
                                        cuda::DevMat<double> posterior,
                                        cuda::DevVec<double> entropy) = 0;

  // Convolution (cu-math-convolution.h).
  virtual void AddTiledBlockSums(M sums, CM m) = 0;
  virtual void AddTiled(M m, CM tile) = 0;
  virtual void SelectWhereEqual(M data, CM ref, CM src) = 0;

  // Updates (cu-math-update.h). OrthonormalizeRows waits for its answer.
  virtual void TruncationRowScales(V scales, M flags, CM deriv, CV zeroing,
                                   Real inv_clip_sq, Real zero_sq) = 0;
  virtual void FloorMagnitude(V v, Real floor) = 0;
  virtual bool OrthonormalizeRows(M m, double *work) = 0;
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_DEVICE_OPS_H_
