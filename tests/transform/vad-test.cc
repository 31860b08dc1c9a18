// tests/transform/vad-test.cc
// The energy VAD rule on hand-made energy tracks (column 0).
#include <gtest/gtest.h>

#include <vector>

#include "base/log.h"
#include "transform/transform-test-util.h"
#include "transform/vad.h"

namespace nnet3 {
namespace {

// Features whose column 0 is the given energies (column 1 is noise that must
// be ignored).
Matrix<BaseFloat> Energies(const std::vector<double> &e) {
  Matrix<BaseFloat> m(static_cast<int32>(e.size()), 2);
  for (size_t t = 0; t < e.size(); t++) {
    m(t, 0) = e[t];
    m(t, 1) = 1000.0f * (t % 2 ? 1 : -1);
  }
  return m;
}

std::vector<int> Decisions(const VadEnergyOptions &o,
                           const std::vector<double> &e) {
  Vector<BaseFloat> v;
  ComputeVadEnergy(o, Energies(e), &v);
  std::vector<int> d;
  for (int32 t = 0; t < v.Dim(); t++) {
    EXPECT_TRUE(v(t) == 0.0f || v(t) == 1.0f);
    d.push_back(static_cast<int>(v(t)));
  }
  return d;
}

TEST(ComputeVadEnergy, ThresholdFromMeanEnergy) {
  // Mean 8, threshold 5 + 0.5 * 8 = 9.
  VadEnergyOptions o;
  EXPECT_EQ(Decisions(o, {0, 10, 20, 10, 0}),
            (std::vector<int>{0, 1, 1, 1, 0}));
  // Strictly above: an energy equal to the threshold is unvoiced
  // (mean 6, threshold 8).
  EXPECT_EQ(Decisions(o, {8, 10, 0}), (std::vector<int>{0, 1, 0}));
}

TEST(ComputeVadEnergy, ConstantThresholdWithoutMeanScale) {
  VadEnergyOptions o;
  o.vad_energy_mean_scale = 0.0;
  o.vad_energy_threshold = 2.5;
  EXPECT_EQ(Decisions(o, {2, 3, 100, -1}), (std::vector<int>{0, 1, 1, 0}));
}

TEST(ComputeVadEnergy, ContextWindowVotes) {
  // Mean 40/6, threshold 5 + 20/6 = 8.33; above: frames 0 and 2.
  // Context 1, proportion 0.6: frame 1 has 2 of 3 neighbours above
  // (2 >= 1.8) so it is voiced although its own energy is low; frame 0
  // sees {0, 1}: 1 of 2 (1 < 1.2) and frame 2 sees 1 of 3: unvoiced.
  VadEnergyOptions o;
  o.vad_frames_context = 1;
  std::vector<double> e = {20, 0, 20, 0, 0, 0};
  EXPECT_EQ(Decisions(o, e), (std::vector<int>{0, 1, 0, 0, 0, 0}));
  o.vad_proportion_threshold = 0.3;  // 1 of 3 (>= 0.9) now suffices
  EXPECT_EQ(Decisions(o, e), (std::vector<int>{1, 1, 1, 1, 0, 0}));
}

TEST(ComputeVadEnergy, EmptyInputAndBadOptions) {
  Vector<BaseFloat> v(3);
  ComputeVadEnergy(VadEnergyOptions(), Matrix<BaseFloat>(), &v);
  EXPECT_EQ(v.Dim(), 0);
  VadEnergyOptions o;
  o.vad_proportion_threshold = 1.0;
  EXPECT_THROW(ComputeVadEnergy(o, Energies({1, 2}), &v), UserError);
  o = VadEnergyOptions();
  o.vad_frames_context = -1;
  EXPECT_THROW(ComputeVadEnergy(o, Energies({1, 2}), &v), UserError);
  o = VadEnergyOptions();
  o.vad_energy_mean_scale = -0.5;
  EXPECT_THROW(ComputeVadEnergy(o, Energies({1, 2}), &v), UserError);
}

}  // namespace
}  // namespace nnet3
