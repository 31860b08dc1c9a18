// feat/resample.h
// Band-limited resampling of a whole waveform, as the compute-*-feats tools
// do with --allow-downsample / --allow-upsample (Kaldi's LinearResample in
// its offline, flushed form). Each output sample at time t = k / out_rate is
// a weighted sum of the input samples within window_width = num_zeros /
// (2 * cutoff) seconds of t; the weight of an input at offset d is a sinc
// low-pass at 'cutoff' Hz times a raised-cosine (Hann) window of that width,
// divided by the input rate. Inputs outside the waveform count as zero.
// Invariants: the weights depend only on t modulo the common period of the
// two rates, so they are computed once per position in that period; the
// output has one sample per output period that starts before the end of the
// input, i.e. ceil(num_in * out_rate / in_rate) samples.
#ifndef NNET3_FEAT_RESAMPLE_H_
#define NNET3_FEAT_RESAMPLE_H_

#include <vector>

#include "base/types.h"
#include "matrix/vector.h"

namespace nnet3 {

class LinearResample {
 public:
  // Rates in Hz (whole numbers); cutoff < min(rates) / 2; num_zeros is the
  // number of zero crossings of the sinc on each side of the window.
  LinearResample(int32 in_rate, int32 out_rate, BaseFloat cutoff,
                 int32 num_zeros);
  // The whole input, flushed: *output gets NumOutputSamples(input.Dim()).
  void Resample(const VectorBase<BaseFloat> &input,
                Vector<BaseFloat> *output) const;
  int64 NumOutputSamples(int64 num_input_samples) const;

 private:
  BaseFloat Filter(double delta_t) const;

  int32 in_rate_, out_rate_;
  BaseFloat cutoff_;
  int32 num_zeros_;
  int32 in_per_unit_, out_per_unit_;  // samples per common period
  // For output position i within a period: the first input index (relative
  // to the period's start) and the weights from there on.
  std::vector<int32> first_index_;
  std::vector<Vector<BaseFloat> > weights_;
};

// Kaldi's choice for feature extraction: cutoff 0.99 * min(rate) / 2, six
// zero crossings. Rates must be whole numbers of Hz.
void ResampleWaveform(BaseFloat in_rate, const VectorBase<BaseFloat> &wave,
                      BaseFloat out_rate, Vector<BaseFloat> *out);

}  // namespace nnet3

#endif  // NNET3_FEAT_RESAMPLE_H_
