// bin/nnet3-get-egs.cc
// Cuts features and per-frame targets (posteriors, or pdf alignments with
// --num-pdfs) into training examples, as Kaldi's nnet3-get-egs does: each
// chunk of --num-frames output frames gets an "input" with the context
// frames around it (utterance edges repeat the first/last frame), an
// optional one-row "ivector", and an "output" SparseMatrix of --num-pdfs
// columns whose rows are the chunk's posteriors, scaled by 1/k where k
// chunks overlap. Keys are "<utt>-<first output frame>".
#include <cmath>
#include <sstream>

#include "bin/cli.h"
#include "bin/egs-tool.h"
#include "matrix/table-types.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/egs/utterance-splitter.h"
#include "util/table.h"

namespace nnet3 {

namespace {

struct EgsOptions {
  bool compress = true;
  int32 num_pdfs = -1;
  int32 ivector_period = 1;
};

// Writes the examples of one utterance; false (after a warning) if it could
// not be used.
bool ProcessUtterance(const GeneralMatrix &feats,
                      const Matrix<BaseFloat> *ivectors,
                      const Posterior &post, const std::string &utt,
                      const EgsOptions &opts, int32 targets_length_tolerance,
                      UtteranceSplitter *splitter, KaldiRand *rand,
                      NnetExampleWriter *writer) {
  int32 num_input_frames = feats.NumRows();
  if (!splitter->LengthsMatch(utt, num_input_frames,
                              static_cast<int32>(post.size()),
                              targets_length_tolerance))
    return false;
  std::vector<ChunkTimeInfo> chunks;
  if (!ChunksForUtterance(utt, num_input_frames, splitter, &chunks))
    return false;
  int32 sf = splitter->Config().frame_subsampling_factor;
  for (const ChunkTimeInfo &chunk : chunks) {
    NnetExample eg;
    AddChunkInputs(feats, ivectors, opts.ivector_period, chunk, rand, &eg);
    int32 first_out = chunk.first_frame / sf,
          num_out = chunk.num_frames / sf;
    Posterior labels(num_out);
    for (int32 i = 0; i < num_out; i++) {
      size_t t = static_cast<size_t>(first_out + i);
      if (t < post.size()) labels[i] = post[t];
      for (auto &pair : labels[i]) pair.second *= chunk.output_weights[i];
    }
    try {
      eg.io.push_back(NnetIo("output", opts.num_pdfs, 0, labels, sf));
    } catch (const UserError &e) {
      NNET3_ERR << "Utterance " << utt << ": " << e.message()
                << " (is --num-pdfs=" << opts.num_pdfs << " right?)";
    }
    if (opts.compress) eg.Compress();
    std::ostringstream key;
    key << utt << "-" << chunk.first_frame;
    writer->Write(key.str(), eg);
  }
  return true;
}

}  // namespace

int Nnet3GetEgs(int argc, char *argv[]) {
  const char *usage =
      "Cuts features and per-frame targets into examples for nnet3 "
      "training:\n"
      "chunks of --num-frames labelled frames with --left-context and\n"
      "--right-context frames of input around them, an optional iVector,\n"
      "and the posteriors as sparse targets with --num-pdfs columns.\n"
      "\n"
      "Usage:  nnet3-get-egs [options] <features-rspecifier> "
      "<pdf-post-rspecifier> <egs-out>\n"
      "e.g.: nnet3-get-egs --num-pdfs=2658 --left-context=12 "
      "--right-context=9 --num-frames=8 scp:feats.scp \\\n"
      "   \"ark:ali-to-post ark:pdf_ali.ark ark:- |\" ark:egs.ark\n"
      "See also: nnet3-copy-egs, nnet3-merge-egs, ali-to-post\n";
  ParseOptions po(usage);
  EgsOptions opts;
  int32 length_tolerance = 100, targets_length_tolerance = 2;
  ExampleGenerationConfig eg_config;
  po.Register("compress", &opts.compress,
              "If true, write the input features of the examples compressed "
              "(recommended); features that are already compressed keep "
              "their compressed form either way.");
  po.Register("num-pdfs", &opts.num_pdfs,
              "Number of pdfs in the acoustic model (the number of columns "
              "of the targets); required.");
  EgsIvectors ivector_opts;
  ivector_opts.Register(&po);
  po.Register("length-tolerance", &length_tolerance,
              "Tolerance for the difference in frames between the features "
              "and the iVector matrix (times the period)");
  po.Register("targets-length-tolerance", &targets_length_tolerance,
              "Tolerance for the difference in frames (after subsampling) "
              "between the features and the posteriors");
  eg_config.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  if (opts.num_pdfs <= 0) NNET3_ERR << "--num-pdfs options is required.";
  ivector_opts.Open();
  opts.ivector_period = ivector_opts.Period();
  eg_config.ComputeDerived();
  // One glibc-compatible rand() stream, shared by the splitter and the
  // iVector choice, as Kaldi's single rand() state is.
  KaldiRand rand;
  UtteranceSplitter splitter(eg_config, &rand);

  std::string feature_rspecifier = po.GetArg(1),
              post_rspecifier = po.GetArg(2),
              egs_wspecifier = po.GetArg(3);
  SequentialGeneralMatrixReader feat_reader(feature_rspecifier);
  RandomAccessPosteriorReader post_reader(post_rspecifier);
  NnetExampleWriter writer(egs_wspecifier);

  int32 num_err = 0;
  for (; !feat_reader.Done(); feat_reader.Next()) {
    std::string key = feat_reader.Key();
    const GeneralMatrix &feats = feat_reader.Value();
    if (!post_reader.HasKey(key)) {
      NNET3_WARN << "No pdf-level posterior for key " << key;
      num_err++;
      continue;
    }
    const Posterior &post = post_reader.Value(key);
    const Matrix<BaseFloat> *ivectors = nullptr;
    if (!ivector_opts.Lookup(key, feats.NumRows(), opts.ivector_period,
                             length_tolerance, &ivectors)) {
      num_err++;
      continue;
    }
    int32 bad_row = FirstNonFiniteRow(feats);
    if (bad_row >= 0) {
      NNET3_WARN << "Utterance " << key << ": NaN or infinity in the "
                 << "features (row " << bad_row << "); not producing egs "
                 << "for it";
      num_err++;
      continue;
    }
    if (!ProcessUtterance(feats, ivectors, post, key, opts,
                          targets_length_tolerance, &splitter, &rand,
                          &writer))
      num_err++;
  }
  if (num_err > 0)
    NNET3_WARN << num_err << " utterances had errors and could not be "
               << "processed.";
  return splitter.ExitStatus();
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3GetEgs);
}
