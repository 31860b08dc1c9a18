// transform/vad.cc
#include "transform/vad.h"

#include <vector>

namespace nnet3 {

void VadEnergyOptions::Check() const {
  if (vad_energy_mean_scale < 0.0)
    NNET3_ERR << "--vad-energy-mean-scale must be >= 0, got "
              << vad_energy_mean_scale;
  if (vad_frames_context < 0)
    NNET3_ERR << "--vad-frames-context must be >= 0, got "
              << vad_frames_context;
  if (!(vad_proportion_threshold > 0.0 && vad_proportion_threshold < 1.0))
    NNET3_ERR << "--vad-proportion-threshold must be in (0, 1), got "
              << vad_proportion_threshold;
}

void ComputeVadEnergy(const VadEnergyOptions &opts,
                      const MatrixBase<BaseFloat> &feats,
                      Vector<BaseFloat> *voiced) {
  opts.Check();
  int32 num_frames = feats.NumRows();
  voiced->Resize(num_frames);
  if (num_frames == 0) {
    NNET3_WARN << "Empty features: no voice activity decisions";
    return;
  }
  if (feats.NumCols() == 0)
    NNET3_ERR << "Voice activity detection needs at least one feature "
              << "column (the log energy)";
  std::vector<BaseFloat> energy(num_frames);
  for (int32 t = 0; t < num_frames; t++) energy[t] = feats(t, 0);
  BaseFloat threshold = opts.vad_energy_threshold;
  if (opts.vad_energy_mean_scale != 0.0) {
    // The mean in float, summed as the matrix library sums a vector.
    Vector<BaseFloat> column(num_frames);
    column.CopyColFromMat(feats, 0);
    threshold += opts.vad_energy_mean_scale * column.Sum() / num_frames;
  }
  int32 context = opts.vad_frames_context;
  for (int32 t = 0; t < num_frames; t++) {
    int32 num = 0, den = 0;
    for (int32 t2 = t - context; t2 <= t + context; t2++) {
      if (t2 < 0 || t2 >= num_frames) continue;
      den++;
      if (energy[t2] > threshold) num++;
    }
    (*voiced)(t) = num >= den * opts.vad_proportion_threshold ? 1.0f : 0.0f;
  }
}

}  // namespace nnet3
