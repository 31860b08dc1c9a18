// bin/inference-tool.h
// What nnet3-compute and nnet3-compute-batch share: their common options
// (--apply-exp, --use-priors, --use-gpu, the iVector inputs), reading the
// network ready for inference (test-mode BatchNorm and dropout, collapsed),
// and looking up each utterance's iVector inputs; also, for them and the
// x-vector tool, the spliced-affine option. The tools then differ only in
// how they compute.
// Invariants: the options are checked (Check) before any input is read; an
// utterance whose iVector input is missing is reported once as a warning
// and skipped, as Kaldi's tools do; so is an utterance with no frames.
#ifndef NNET3_BIN_INFERENCE_TOOL_H_
#define NNET3_BIN_INFERENCE_TOOL_H_

#include <string>

#include "matrix/table-types.h"
#include "nnet3/nnet/nnet-splice-tdnn.h"
#include "nnet3/nnet/nnet.h"
#include "util/options.h"
#include "util/random-access-reader.h"

namespace nnet3 {

struct InferenceToolOptions {
  bool apply_exp = false;
  bool use_priors = false;
  std::string use_gpu = "yes";
  std::string ivector_rspecifier, online_ivector_rspecifier,
      utt2spk_rspecifier;
  int32 online_ivector_period = 0;
  // Affines reading a node at least this wide at several time offsets are
  // computed as TdnnComponents (nnet3/nnet/nnet-splice-tdnn.h); 0: never.
  int32 spliced_affine_min_dim = kMinSplicedPartDimForTdnn;

  void Register(ParseOptions *po);
  // Applies --use-gpu and checks the iVector options.
  void Apply() const;
};

// --spliced-affine-min-dim, for the tools that compute a network: registers
// it, and applies it (after CollapseModel; checks the value).
void RegisterSplicedAffineMinDim(ParseOptions *po, int32 *min_dim);
void ComputeSplicedAffinesForTool(int32 min_dim, Nnet *nnet);

// Reads the raw network (or the network and priors of a .mdl with
// --use-priors), checks that it is a simple network, and prepares it for
// inference (test mode, collapsed, spliced affines as TdnnComponents).
void ReadInferenceNnet(const std::string &rxfilename,
                       const InferenceToolOptions &opts, Nnet *nnet,
                       Vector<BaseFloat> *priors);

// The inputs of each utterance besides its features: the iVectors.
class InferenceInputs {
 public:
  explicit InferenceInputs(const InferenceToolOptions &opts);
  // Sets the iVector pointers (nullptr where not asked for). False, with a
  // warning, when "utt" cannot be computed: no frames, or an asked-for
  // iVector input is missing.
  bool Get(const std::string &utt, const MatrixBase<BaseFloat> &features,
           const Vector<BaseFloat> **ivector,
           const Matrix<BaseFloat> **online_ivectors);

 private:
  const InferenceToolOptions &opts_;
  RandomAccessBaseFloatMatrixReader online_reader_;
  RandomAccessTableReaderMapped<KaldiObjectHolder<Vector<BaseFloat> > >
      ivector_reader_;
};

}  // namespace nnet3

#endif  // NNET3_BIN_INFERENCE_TOOL_H_
