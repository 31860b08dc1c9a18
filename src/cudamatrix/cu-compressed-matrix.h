// cudamatrix/cu-compressed-matrix.h
// CuCompressedMatrix: the lossy integer storage that the computer's memory
// compression (kCompressMatrix / kDecompressMatrix) keeps a matrix in
// between its forward and backward use, with Kaldi's types and rounding
// (its CuCompressedMatrix): each value is stored as an integer i of type
// 1 = int8, 2 = uint8, 3 = int16 or 4 = uint16, standing for scale * i with
// scale = range / max(type), rounded to nearest (ties to even). With
// "truncate", values beyond the type's range saturate; without it the
// caller promises they fit. range == 0 keeps only the sign (-1, 0, 1; 0 or
// 1 for the unsigned types). NaN is stored as 0.
//
// Invariants: the integers live where the source matrix lived (host memory
// or device memory), so compressing and decompressing never cross between
// host and GPU; both backends produce the same integers bit for bit. Host
// storage comes from the matrix library's block cache (matrix/host-memory.h),
// like a matrix's: a training step compresses the same sizes every
// minibatch and reuses the pages instead of faulting fresh ones in.
#ifndef NNET3_CUDAMATRIX_CU_COMPRESSED_MATRIX_H_
#define NNET3_CUDAMATRIX_CU_COMPRESSED_MATRIX_H_

#include "cudamatrix/cu-matrix.h"

namespace nnet3 {

class CuCompressedMatrix {
 public:
  // Compresses "src". A type outside 1..4 is a UserError naming it.
  CuCompressedMatrix(int32 type, const CuMatrixBase<BaseFloat> &src,
                     BaseFloat range, bool truncate);
  ~CuCompressedMatrix();

  int32 NumRows() const { return num_rows_; }
  int32 NumCols() const { return num_cols_; }
  // Bytes per stored value (1 or 2).
  int32 ElementBytes() const { return type_ <= 2 ? 1 : 2; }

  // dst (NumRows() x NumCols(), in the same place as the source was) gets
  // the decompressed values.
  void CopyToMat(CuMatrixBase<BaseFloat> *dst) const;

 private:
  CuCompressedMatrix(const CuCompressedMatrix &) = delete;
  CuCompressedMatrix &operator=(const CuCompressedMatrix &) = delete;

  int32 type_;
  int32 num_rows_ = 0, num_cols_ = 0;
  BaseFloat range_;
  bool on_device_;
  size_t host_bytes_ = 0;
  void *host_ = nullptr;    // the integers, row after row (CPU backend)
  void *device_ = nullptr;  // the same in device memory (GPU backend)
};

}  // namespace nnet3

#endif  // NNET3_CUDAMATRIX_CU_COMPRESSED_MATRIX_H_
