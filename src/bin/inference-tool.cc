// bin/inference-tool.cc
#include "bin/inference-tool.h"

#include "cudamatrix/cu-device.h"
#include "nnet3/nnet/am-nnet-simple.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/stream.h"

namespace nnet3 {

void InferenceToolOptions::Register(ParseOptions *po) {
  po->Register("ivectors", &ivector_rspecifier,
               "iVectors as vectors, one per utterance (or one per speaker "
               "together with --utt2spk)");
  po->Register("utt2spk", &utt2spk_rspecifier,
               "Utterance-to-speaker map, for --ivectors keyed by speaker");
  po->Register("online-ivectors", &online_ivector_rspecifier,
               "Online iVectors as matrices, one row every "
               "--online-ivector-period frames (which must then be set)");
  po->Register("online-ivector-period", &online_ivector_period,
               "Frames per row of the --online-ivectors matrices");
  po->Register("apply-exp", &apply_exp,
               "Exponentiate the output before writing it");
  po->Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  po->Register("use-priors", &use_priors,
               "Subtract the log of the priors kept in the model's .mdl file "
               "(the input must then be a .mdl)");
  RegisterSplicedAffineMinDim(po, &spliced_affine_min_dim);
}

void RegisterSplicedAffineMinDim(ParseOptions *po, int32 *min_dim) {
  po->Register("spliced-affine-min-dim", min_dim,
               "Compute an affine layer whose input is one node at several "
               "time offsets, e.g. Append(Offset(x, -1), x, Offset(x, 1)), "
               "as one matrix product per offset without building the "
               "spliced matrix, when that node has at least this dimension "
               "(same outputs up to float rounding, less memory); 0 never "
               "does this");
}

void ComputeSplicedAffinesForTool(int32 min_dim, Nnet *nnet) {
  if (min_dim < 0) NNET3_ERR << "--spliced-affine-min-dim must be >= 0";
  int32 rewritten =
      min_dim == 0 ? 0 : ComputeSplicedAffinesAsTdnn(min_dim, nnet);
  NNET3_VLOG(1) << "Computing " << rewritten
                << " spliced affine layers as TdnnComponents";
}

void InferenceToolOptions::Apply() const {
  SelectGpuForTool(use_gpu);
  if (!ivector_rspecifier.empty() && !online_ivector_rspecifier.empty())
    NNET3_ERR << "You cannot give both --ivectors and --online-ivectors";
  if (!online_ivector_rspecifier.empty() && online_ivector_period <= 0)
    NNET3_ERR << "You need to set the --online-ivector-period option when "
              << "using --online-ivectors";
}

void ReadInferenceNnet(const std::string &rxfilename,
                       const InferenceToolOptions &opts, Nnet *nnet,
                       Vector<BaseFloat> *priors) {
  if (opts.use_priors)
    ReadAmNnetSimple(rxfilename, nnet, priors);
  else
    ReadKaldiObject(rxfilename, nnet);
  if (!IsSimpleNnet(*nnet))
    NNET3_ERR << "The network in " << PrintableRxfilename(rxfilename)
              << " is not a simple network (it needs an input named "
              << "'input' and an output named 'output')";
  SetBatchnormTestMode(true, nnet);
  SetDropoutTestMode(true, nnet);
  CollapseModel(CollapseModelConfig(), nnet);
  ComputeSplicedAffinesForTool(opts.spliced_affine_min_dim, nnet);
}

InferenceInputs::InferenceInputs(const InferenceToolOptions &opts)
    : opts_(opts) {
  if (!opts.online_ivector_rspecifier.empty())
    online_reader_.Open(opts.online_ivector_rspecifier);
  if (!opts.ivector_rspecifier.empty())
    ivector_reader_.Open(opts.ivector_rspecifier, opts.utt2spk_rspecifier);
}

bool InferenceInputs::Get(const std::string &utt,
                          const MatrixBase<BaseFloat> &features,
                          const Vector<BaseFloat> **ivector,
                          const Matrix<BaseFloat> **online_ivectors) {
  *ivector = nullptr;
  *online_ivectors = nullptr;
  if (features.NumRows() == 0) {
    NNET3_WARN << "Zero-length utterance: " << utt;
    return false;
  }
  if (!opts_.ivector_rspecifier.empty()) {
    if (!ivector_reader_.HasKey(utt)) {
      NNET3_WARN << "No iVector available for utterance " << utt;
      return false;
    }
    *ivector = &ivector_reader_.Value(utt);
  }
  if (!opts_.online_ivector_rspecifier.empty()) {
    if (!online_reader_.HasKey(utt)) {
      NNET3_WARN << "No online iVector available for utterance " << utt;
      return false;
    }
    *online_ivectors = &online_reader_.Value(utt);
  }
  return true;
}

}  // namespace nnet3
