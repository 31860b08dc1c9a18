// feat/feature-common.h
// The offline driver shared by every feature type: cut the waveform into
// frames, process each frame (feature-window.h), and hand it to a
// per-frame "computer" (FbankComputer, MfccComputer, SpectrogramComputer)
// that does the FFT and the rest. A computer C provides
//   typedef ... Options;              (with a frame_opts member)
//   explicit C(const Options &);      copyable (copies share nothing mutable)
//   int32 Dim() const;
//   bool NeedRawLogEnergy() const;
//   const FrameExtractionOptions &GetFrameOptions() const;
//   void Compute(float raw_log_energy, float vtln_warp, float *frame,
//                float *feature);     frame: PaddedWindowSize() floats,
//                                     used as workspace; feature: Dim()
// FeatureExtractor is the type-erased face the tools use.
// Invariants: the output has NumFrames(samples) rows and Dim() columns
// (0 x 0 when no frame fits, as Kaldi writes it); with dithering, the noise
// comes only from the seed passed in, so equal seeds give equal features.
#ifndef NNET3_FEAT_FEATURE_COMMON_H_
#define NNET3_FEAT_FEATURE_COMMON_H_

#include <memory>
#include <vector>

#include "base/log.h"
#include "feat/feature-window.h"
#include "feat/resample.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {

class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() {}
  virtual int32 Dim() const = 0;
  virtual const FrameExtractionOptions &GetFrameOptions() const = 0;
  // Features of one channel of audio sampled at sample_freq. If that is not
  // --sample-frequency, the audio is resampled when --allow-downsample /
  // --allow-upsample permit it, else it is a UserError naming both rates.
  // dither_seed seeds the dither noise.
  virtual void ComputeFeatures(const VectorBase<BaseFloat> &wave,
                               BaseFloat sample_freq, BaseFloat vtln_warp,
                               uint64 dither_seed,
                               Matrix<BaseFloat> *output) = 0;
  // An independent copy (for another thread).
  virtual std::unique_ptr<FeatureExtractor> Copy() const = 0;
};

template <class C>
class OfflineFeatureTpl : public FeatureExtractor {
 public:
  typedef typename C::Options Options;
  explicit OfflineFeatureTpl(const Options &opts)
      : computer_(opts), window_function_(computer_.GetFrameOptions()) {}

  int32 Dim() const override { return computer_.Dim(); }
  const FrameExtractionOptions &GetFrameOptions() const override {
    return computer_.GetFrameOptions();
  }

  void ComputeFeatures(const VectorBase<BaseFloat> &wave,
                       BaseFloat sample_freq, BaseFloat vtln_warp,
                       uint64 dither_seed,
                       Matrix<BaseFloat> *output) override {
    const FrameExtractionOptions &fo = computer_.GetFrameOptions();
    if (sample_freq == fo.samp_freq) {
      Compute(wave, vtln_warp, dither_seed, output);
      return;
    }
    bool down = fo.samp_freq < sample_freq;
    if ((down && !fo.allow_downsample) || (!down && !fo.allow_upsample))
      NNET3_ERR << "sample frequency mismatch: the audio has " << sample_freq
                << " Hz but --sample-frequency=" << fo.samp_freq << " (use --"
                << (down ? "allow-downsample" : "allow-upsample")
                << "=true to resample)";
    Vector<BaseFloat> resampled;
    ResampleWaveform(sample_freq, wave, fo.samp_freq, &resampled);
    Compute(resampled, vtln_warp, dither_seed, output);
  }

  // Features of wave, assumed to be at --sample-frequency.
  void Compute(const VectorBase<BaseFloat> &wave, BaseFloat vtln_warp,
               uint64 dither_seed, Matrix<BaseFloat> *output) {
    const FrameExtractionOptions &fo = computer_.GetFrameOptions();
    int32 rows = wave.Dim() == 0 ? 0 : NumFrames(wave.Dim(), fo);
    if (rows == 0) {
      output->Resize(0, 0);
      return;
    }
    output->Resize(rows, computer_.Dim(), kUndefined);
    frame_.resize(fo.PaddedWindowSize());
    DitherSource dither(dither_seed);
    bool need_raw = computer_.NeedRawLogEnergy();
    for (int32 r = 0; r < rows; r++) {
      float raw_log_energy = 0.0f;
      ExtractWindow(wave.Data(), wave.Dim(), r, fo, window_function_,
                    &dither, frame_.data(),
                    need_raw ? &raw_log_energy : nullptr);
      computer_.Compute(raw_log_energy, vtln_warp, frame_.data(),
                        output->RowData(r));
    }
  }

  std::unique_ptr<FeatureExtractor> Copy() const override {
    return std::unique_ptr<FeatureExtractor>(new OfflineFeatureTpl(*this));
  }

  C &Computer() { return computer_; }

 private:
  C computer_;
  FeatureWindowFunction window_function_;
  std::vector<float> frame_;
};

}  // namespace nnet3

#endif  // NNET3_FEAT_FEATURE_COMMON_H_
