// base/types.h
// Fixed-width integer names and the floating-point type used for model
// parameters and features (BaseFloat, always float, as in Kaldi's default
// build). Everything in the project uses these names so file formats, which
// store int32 and float, stay unambiguous.
#ifndef NNET3_BASE_TYPES_H_
#define NNET3_BASE_TYPES_H_

#include <cstdint>

namespace nnet3 {

typedef int8_t int8;
typedef int16_t int16;
typedef int32_t int32;
typedef int64_t int64;
typedef uint8_t uint8;
typedef uint16_t uint16;
typedef uint32_t uint32;
typedef uint64_t uint64;

typedef float BaseFloat;

// Index type for matrix rows/columns/dimensions (signed, as in Kaldi).
typedef int32 MatrixIndexT;
typedef int32 SignedMatrixIndexT;

// A pair of int32, used for row ranges and (pdf, count) style pairs.
struct Int32Pair {
  int32 first;
  int32 second;
};

}  // namespace nnet3

#endif  // NNET3_BASE_TYPES_H_
