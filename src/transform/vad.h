// transform/vad.h
// Energy-based voice activity detection, as Kaldi's compute-vad (meant for
// speaker-id: every frame is decided on its own, with no smoothing). Column 0
// of the features is taken as the log energy (MFCC C0 or log energy). With
// m the mean of that column over the utterance, the threshold is
//   vad_energy_threshold + vad_energy_mean_scale * m,
// and frame t is voiced (1.0) if, of the frames in [t - C, t + C] that exist
// (C = vad_frames_context), at least the fraction vad_proportion_threshold
// have an energy above the threshold; otherwise it is 0.0.
#ifndef NNET3_TRANSFORM_VAD_H_
#define NNET3_TRANSFORM_VAD_H_

#include "matrix/matrix.h"
#include "matrix/vector.h"
#include "util/options.h"

namespace nnet3 {

struct VadEnergyOptions {
  BaseFloat vad_energy_threshold = 5.0;
  BaseFloat vad_energy_mean_scale = 0.5;
  int32 vad_frames_context = 0;
  BaseFloat vad_proportion_threshold = 0.6;

  void Register(OptionsItf *opts) {
    opts->Register("vad-energy-threshold", &vad_energy_threshold,
                   "Constant part of the energy threshold applied to "
                   "column 0 of the features (see --vad-energy-mean-scale)");
    opts->Register("vad-energy-mean-scale", &vad_energy_mean_scale,
                   "The threshold is s * (mean log energy of the utterance) "
                   "+ vad-energy-threshold, for this s");
    opts->Register("vad-frames-context", &vad_frames_context,
                   "Frames of context on each side of a frame in the window "
                   "whose energies decide it");
    opts->Register("vad-proportion-threshold", &vad_proportion_threshold,
                   "Proportion of the frames of the window that must be "
                   "above the threshold for the frame to be voiced");
  }
  // UserError unless mean scale >= 0, context >= 0 and the proportion is in
  // (0, 1).
  void Check() const;
};

// *voiced is resized to the number of frames and set to 1.0 / 0.0 per frame.
// An empty matrix gives an empty vector (with a warning).
void ComputeVadEnergy(const VadEnergyOptions &opts,
                      const MatrixBase<BaseFloat> &feats,
                      Vector<BaseFloat> *voiced);

}  // namespace nnet3

#endif  // NNET3_TRANSFORM_VAD_H_
