// feat/htk-holder.h
// HTK-format feature output (compute-fbank-feats / compute-mfcc-feats
// --output-format=htk), as Kaldi's HtkMatrixHolder writes it into tables:
// after "key " comes the 12-byte HTK header (number of frames, frame period
// in 100 ns units, bytes per frame, parameter kind) and then the frames as
// 32-bit floats, all big-endian, with no Kaldi binary marker. HTK output
// is binary only; writing it in text mode is a UserError. The holder only
// writes (Kaldi's tools never read HTK through these tables).
#ifndef NNET3_FEAT_HTK_HOLDER_H_
#define NNET3_FEAT_HTK_HOLDER_H_

#include <ostream>
#include <utility>

#include "base/types.h"
#include "matrix/matrix.h"

namespace nnet3 {

struct HtkHeader {
  int32 num_samples = 0;
  int32 sample_period = 0;  // 100 ns units (100000 = 10 ms)
  int16 sample_size = 0;    // bytes per frame
  uint16 sample_kind = 0;   // e.g. 006 MFCC, 007 FBANK, | 0100 _E, | 020000 _0
};

// Writes header and frames big-endian; num_samples and sample_size must
// agree with the matrix.
void WriteHtk(std::ostream &os, const MatrixBase<BaseFloat> &m,
              const HtkHeader &header);

class HtkMatrixHolder {
 public:
  typedef std::pair<Matrix<BaseFloat>, HtkHeader> T;
  static bool Write(std::ostream &os, bool binary, const T &t);
};

// The parameter kinds Kaldi's tools write.
const uint16 kHtkMfcc = 006, kHtkFbank = 007, kHtkEnergy = 0100,
             kHtkC0 = 020000;

}  // namespace nnet3

#endif  // NNET3_FEAT_HTK_HOLDER_H_
