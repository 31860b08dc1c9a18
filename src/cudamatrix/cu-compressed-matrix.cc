// cudamatrix/cu-compressed-matrix.cc
#include "cudamatrix/cu-compressed-matrix.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "base/log.h"
#include "cudamatrix/device-ops.h"
#include "matrix/host-memory.h"
#include "matrix/row-threads.h"

namespace nnet3 {

namespace {

// The host side of the format; cuda/compressed.cu mirrors it.
template <typename I>
struct Codec {
  static I Sign(BaseFloat f) {
    if (f > 0) return static_cast<I>(1);
    if (f < 0 && std::is_signed<I>::value) return static_cast<I>(-1);
    return static_cast<I>(0);
  }
  static I Quantize(float f, bool truncate) {
    if (std::isnan(f)) return static_cast<I>(0);
    float rounded = std::nearbyint(f);
    const float lo = static_cast<float>(std::numeric_limits<I>::min()),
                hi = static_cast<float>(std::numeric_limits<I>::max());
    if (truncate) {
      if (rounded < lo) rounded = lo;
      if (rounded > hi) rounded = hi;
      return static_cast<I>(rounded);
    }
    // Out-of-range values wrap around as an int32 conversion would (the
    // caller promised they are in range); the conversion stays defined.
    const float int_lo = -2147483648.0f, int_hi = 2147483520.0f;
    if (rounded < int_lo) rounded = int_lo;
    if (rounded > int_hi) rounded = int_hi;
    return static_cast<I>(static_cast<int32>(rounded));
  }
  static BaseFloat Scale(BaseFloat range) {
    return range / static_cast<BaseFloat>(std::numeric_limits<I>::max());
  }
  static void Compress(const MatrixBase<BaseFloat> &m, BaseFloat range,
                       bool truncate, I *out) {
    const BaseFloat scale = Scale(range);
    const int32 cols = m.NumCols();
    if (scale == 0.0) {
      // Sign only; written without branches so that the loop vectorizes
      // (the same values as Sign()).
      ForRowBlocks(m.NumRows(), cols, [&](MatrixIndexT r0, MatrixIndexT r1) {
        for (int32 r = r0; r < r1; r++) {
          const BaseFloat *row = m.RowData(r);
          I *dest = out + static_cast<size_t>(r) * cols;
          for (int32 c = 0; c < cols; c++) {
            const int32 positive = row[c] > 0,
                        negative = std::is_signed<I>::value && row[c] < 0;
            dest[c] = static_cast<I>(positive - negative);
          }
        }
      });
      return;
    }
    const float inv_scale = static_cast<float>(1.0 / scale);
    ForRowBlocks(m.NumRows(), cols, [&](MatrixIndexT r0, MatrixIndexT r1) {
      for (int32 r = r0; r < r1; r++) {
        const BaseFloat *row = m.RowData(r);
        I *dest = out + static_cast<size_t>(r) * cols;
        for (int32 c = 0; c < cols; c++)
          dest[c] = Quantize(row[c] * inv_scale, truncate);
      }
    });
  }
  static void Decompress(const I *in, BaseFloat range, MatrixBase<BaseFloat> *m) {
    const BaseFloat scale = Scale(range) == 0.0 ? 1.0f : Scale(range);
    const int32 rows = m->NumRows(), cols = m->NumCols();
    ForRowBlocks(rows, cols, [&](MatrixIndexT r0, MatrixIndexT r1) {
      for (int32 r = r0; r < r1; r++) {
        BaseFloat *row = m->RowData(r);
        const I *src = in + static_cast<size_t>(r) * cols;
        for (int32 c = 0; c < cols; c++)
          row[c] = scale * static_cast<BaseFloat>(src[c]);
      }
    });
  }
};

// Calls f(I()) with the integer type of "type".
template <class F>
void WithType(int32 type, F f) {
  switch (type) {
    case 1: f(int8()); break;
    case 2: f(uint8()); break;
    case 3: f(int16()); break;
    case 4: f(uint16()); break;
    default:
      NNET3_ERR << "kCompressMatrix: invalid compression type " << type
                << " (expected 1=int8, 2=uint8, 3=int16 or 4=uint16)";
  }
}

}  // namespace

CuCompressedMatrix::CuCompressedMatrix(int32 type,
                                       const CuMatrixBase<BaseFloat> &src,
                                       BaseFloat range, bool truncate)
    : type_(type), num_rows_(src.NumRows()), num_cols_(src.NumCols()),
      range_(range), on_device_(src.OnDevice()) {
  WithType(type, [](auto) {});  // rejects a bad type before allocating
  const size_t bytes =
      static_cast<size_t>(num_rows_) * num_cols_ * ElementBytes();
  if (on_device_) {
    device_ = cu_backend::Malloc(bytes);
    if (bytes > 0)
      cu_backend::Ops<BaseFloat>().CompressMatrix(type, src.Dev(), range,
                                                  truncate, device_);
    return;
  }
  if (bytes == 0) return;
  host_ = AllocateHostBlock(bytes);
  host_bytes_ = bytes;
  const MatrixBase<BaseFloat> &m = src.Mat();
  WithType(type, [&](auto zero) {
    typedef decltype(zero) I;
    Codec<I>::Compress(m, range, truncate, static_cast<I *>(host_));
  });
}

CuCompressedMatrix::~CuCompressedMatrix() {
  cu_backend::Free(device_);
  FreeHostBlock(host_, host_bytes_);
}

void CuCompressedMatrix::CopyToMat(CuMatrixBase<BaseFloat> *dst) const {
  NNET3_ASSERT(dst->NumRows() == num_rows_ && dst->NumCols() == num_cols_);
  if (dst->OnDevice() != on_device_)
    cu_backend::MixedLocations("CuCompressedMatrix::CopyToMat");
  if (on_device_) {
    if (num_rows_ > 0 && num_cols_ > 0)
      cu_backend::Ops<BaseFloat>().DecompressMatrix(type_, device_, range_,
                                                    dst->Dev());
    return;
  }
  MatrixBase<BaseFloat> &m = dst->Mat();
  WithType(type_, [&](auto zero) {
    typedef decltype(zero) I;
    Codec<I>::Decompress(static_cast<const I *>(host_), range_, &m);
  });
}

}  // namespace nnet3
