// tests/nnet3/compute/decodable-simple-test.cc
// DecodableNnetSimple::GetOutput (all frames at once, chunks copied straight
// into the caller's rows) against GetOutputForFrame frame by frame (the path
// the compute conformance cases check against Kaldi), on a small spliced
// network: Kaldi-sized chunks and our large chunks (whose last chunk is
// padded up to a multiple of 64 frames), online iVectors (which tie the
// output to the chunking), frame-subsampling-factor 1 and 3, utterances
// shorter than one chunk, exact multiples and ragged lengths, and a
// GetOutput call after per-frame calls have already computed a chunk, and
// ComputeOutput (the output sized after the first chunk, or the chunk's own
// matrix handed over when one chunk covers the utterance, after which the
// decodable must compute it again if asked).
// The two must agree exactly: they run the same computations.
#include <gtest/gtest.h>

#include <string>

#include "nnet3/compute/decodable-simple.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

Nnet SplicedNnet(bool online_ivectors) {
  std::string config =
      "input-node name=input dim=3\n" +
      std::string(online_ivectors ? "input-node name=ivector dim=2\n" : "") +
      "component name=a1 type=AffineComponent input-dim=" +
      (online_ivectors ? "11" : "9") +
      " output-dim=6 bias-stddev=0.5\n"
      "component-node name=a1 component=a1 input=Append(Offset(input, -2), "
      "input, Offset(input, 3)" +
      (online_ivectors ? ", ReplaceIndex(ivector, t, 0)" : "") +
      ")\n"
      "component name=r1 type=RectifiedLinearComponent dim=6\n"
      "component-node name=r1 component=r1 input=a1\n"
      "component name=a2 type=AffineComponent input-dim=12 output-dim=4 "
      "bias-stddev=0.5\n"
      "component-node name=a2 component=a2 input=Append(Offset(r1, -1), "
      "Offset(r1, 1))\n"
      "component name=lsm type=LogSoftmaxComponent dim=4\n"
      "component-node name=lsm component=lsm input=a2\n"
      "output-node name=output input=lsm\n";
  return NnetFromConfigString(config);
}

TEST(DecodableNnetSimple, GetOutputEqualsFrameByFrame) {
  RandomSource rs(17);
  for (bool online : {false, true})
    for (int32 f : {1, 3})
      for (int32 chunk : {6, 50})
        for (int32 frames : {1, 13, 50, 131}) {
          Nnet nnet = SplicedNnet(online);
          NnetSimpleComputationOptions opts;
          opts.frames_per_chunk = chunk;
          opts.frame_subsampling_factor = f;
          opts.extra_left_context = 2;
          CheckAndFixSimpleComputationOptions(nnet, &opts);
          CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                             opts.compiler_config);
          Matrix<BaseFloat> feats = RandomGaussMatrix(frames, 3, &rs);
          const int32 period = 4;
          Matrix<BaseFloat> ivecs =
              RandomGaussMatrix((frames + period - 1) / period, 2, &rs);
          const MatrixBase<BaseFloat> *iv = online ? &ivecs : nullptr;
          Vector<BaseFloat> priors;
          SCOPED_TRACE("online=" + std::to_string(online) + " f=" +
                       std::to_string(f) + " chunk=" + std::to_string(chunk) +
                       " frames=" + std::to_string(frames));

          DecodableNnetSimple by_frame(opts, nnet, priors, feats, &compiler,
                                       nullptr, iv, period);
          Matrix<BaseFloat> expected(by_frame.NumFrames(),
                                     by_frame.OutputDim());
          for (int32 t = 0; t < by_frame.NumFrames(); t++) {
            SubVector<BaseFloat> row(expected, t);
            by_frame.GetOutputForFrame(t, &row);
          }

          DecodableNnetSimple whole(opts, nnet, priors, feats, &compiler,
                                    nullptr, iv, period);
          Matrix<BaseFloat> got(whole.NumFrames(), whole.OutputDim());
          got.Set(-12345.0);
          whole.GetOutput(&got);
          EXPECT_TRUE(got.Equal(expected));

          // Per-frame access first (the first chunk is then computed and
          // copied to the host), then everything.
          DecodableNnetSimple mixed(opts, nnet, priors, feats, &compiler,
                                    nullptr, iv, period);
          Vector<BaseFloat> row0(mixed.OutputDim());
          mixed.GetOutputForFrame(0, &row0);
          Matrix<BaseFloat> got2(mixed.NumFrames(), mixed.OutputDim());
          mixed.GetOutput(&got2);
          EXPECT_TRUE(got2.Equal(expected));

          // Sized by the decodable, after its first chunk; also after a
          // later chunk was computed for a single frame.
          DecodableNnetSimple sized(opts, nnet, priors, feats, &compiler,
                                    nullptr, iv, period);
          Matrix<BaseFloat> got3(2, 2);
          sized.ComputeOutput(&got3);
          EXPECT_TRUE(got3.Equal(expected));
          DecodableNnetSimple late(opts, nnet, priors, feats, &compiler,
                                   nullptr, iv, period);
          late.GetOutputForFrame(late.NumFrames() - 1, &row0);
          Matrix<BaseFloat> got4;
          late.ComputeOutput(&got4);
          EXPECT_TRUE(got4.Equal(expected));

          // Where one chunk covers the utterance its matrix is handed over;
          // the decodable must then compute it again when asked again,
          // whole or by frame.
          Matrix<BaseFloat> got5;
          sized.ComputeOutput(&got5);
          EXPECT_TRUE(got5.Equal(expected));
          // (With online iVectors the values depend on where the chunk
          // starts, which depends on what was asked before; without them
          // every chunking gives the same values.)
          if (!online) {
            const int32 last = sized.NumFrames() - 1;
            sized.GetOutputForFrame(last, &row0);
            EXPECT_TRUE(
                row0.ApproxEqual(SubVector<BaseFloat>(expected, last), 0.0));
          }
          // The chunk on the host (after a per-frame call), then handed over.
          DecodableNnetSimple host_first(opts, nnet, priors, feats, &compiler,
                                         nullptr, iv, period);
          host_first.GetOutputForFrame(0, &row0);
          Matrix<BaseFloat> got6;
          host_first.ComputeOutput(&got6);
          EXPECT_TRUE(got6.Equal(expected));
          host_first.GetOutputForFrame(0, &row0);
          EXPECT_TRUE(row0.ApproxEqual(SubVector<BaseFloat>(expected, 0), 0.0));
        }
}

}  // namespace
}  // namespace nnet3
