// tests/nnet3/compute/batch-compute-test.cc
// NnetBatchComputer / NnetBatchInference against DecodableNnetSimple (the
// chunked computation already checked against Kaldi) on random TDNN-like
// networks with left and right context: many utterance lengths (shorter
// than a chunk, exact multiples, ragged), frame-subsampling-factor 1 and
// 3, extra contexts with -initial / -final values (edge chunks), per-
// utterance and online iVectors, priors and acoustic scale, exact final
// context, and minibatch sizes that force several full and partial
// minibatches. These networks' outputs do not depend on the chunking, so
// the batch outputs must equal the oracle's within 1e-4 (relative). For
// online iVectors the oracle is run once per iVector row with that row as
// a whole-utterance iVector, and each frame is taken from the run of the
// row Kaldi's batch rule assigns to the frame's chunk (derived here on its
// own). The minibatch sizes chosen for partial minibatches are checked
// against hand-computed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/compute/batch-compute.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

const int32 kInputDim = 4, kIvectorDim = 3, kOutputDim = 5;

// A random TDNN: 2 or 3 spliced affine + ReLU layers with random offsets
// in [-3, 3], the iVector appended to the first layer's input if asked,
// then an affine output layer and a log-softmax.
Nnet RandomTdnn(RandomSource *rs, bool with_ivector, std::string *config_out) {
  std::ostringstream os;
  os << "input-node name=input dim=" << kInputDim << "\n";
  if (with_ivector) os << "input-node name=ivector dim=" << kIvectorDim << "\n";
  int32 num_layers = rs->Int(2, 3);
  std::string prev = "input";
  int32 prev_dim = kInputDim;
  for (int32 l = 1; l <= num_layers; l++) {
    std::set<int32> offsets;
    int32 num_offsets = rs->Int(1, 3);
    while (static_cast<int32>(offsets.size()) < num_offsets)
      offsets.insert(rs->Int(-3, 3));
    if (l == 1) offsets.insert(rs->Int(-3, -1));  // some context for sure
    std::ostringstream in;
    in << "Append(";
    bool first = true;
    for (int32 o : offsets) {
      in << (first ? "" : ", ") << "Offset(" << prev << ", " << o << ")";
      first = false;
    }
    int32 in_dim = prev_dim * offsets.size();
    if (l == 1 && with_ivector) {
      in << ", ReplaceIndex(ivector, t, 0)";
      in_dim += kIvectorDim;
    }
    in << ")";
    int32 dim = rs->Int(4, 8);
    os << "component name=a" << l << " type=AffineComponent input-dim="
       << in_dim << " output-dim=" << dim << " bias-stddev=0.5\n"
       << "component-node name=a" << l << " component=a" << l
       << " input=" << in.str() << "\n"
       << "component name=r" << l << " type=RectifiedLinearComponent dim="
       << dim << "\n"
       << "component-node name=r" << l << " component=r" << l
       << " input=a" << l << "\n";
    prev = "r" + std::to_string(l);
    prev_dim = dim;
  }
  os << "component name=out type=AffineComponent input-dim=" << prev_dim
     << " output-dim=" << kOutputDim << " bias-stddev=0.5\n"
     << "component-node name=out component=out input=" << prev << "\n"
     << "component name=lsm type=LogSoftmaxComponent dim=" << kOutputDim
     << "\n"
     << "component-node name=lsm component=lsm input=out\n"
     << "output-node name=output input=lsm\n";
  *config_out = os.str();
  return NnetFromConfigString(os.str());
}

struct Utt {
  std::string id;
  Matrix<BaseFloat> feats;
  Vector<BaseFloat> ivector;          // per-utterance iVector (may be empty)
  Matrix<BaseFloat> online_ivectors;  // (may be empty)
};

enum IvectorKind { kNoIvector, kUttIvector, kOnlineIvector };

std::vector<Utt> MakeUtts(const std::vector<int32> &lengths, IvectorKind kind,
                          int32 period, RandomSource *rs) {
  std::vector<Utt> utts;
  for (size_t u = 0; u < lengths.size(); u++) {
    Utt utt;
    utt.id = "utt" + std::to_string(u);
    utt.feats = RandomGaussMatrix(lengths[u], kInputDim, rs);
    if (kind == kUttIvector)
      utt.ivector = RandomGaussMatrix(1, kIvectorDim, rs).Row(0);
    if (kind == kOnlineIvector)
      utt.online_ivectors = RandomGaussMatrix(
          (lengths[u] + period - 1) / period, kIvectorDim, rs);
    utts.push_back(std::move(utt));
  }
  return utts;
}

// The oracle: DecodableNnetSimple on the whole utterance with one iVector.
Matrix<BaseFloat> SimpleOutput(const NnetSimpleComputationOptions &opts,
                               const Nnet &nnet,
                               const Vector<BaseFloat> &priors,
                               const Matrix<BaseFloat> &feats,
                               const Vector<BaseFloat> *ivector) {
  NnetSimpleComputationOptions o = opts;
  CheckAndFixSimpleComputationOptions(nnet, &o);
  CachingOptimizingCompiler compiler(nnet, o.optimize_config,
                                     o.compiler_config);
  DecodableNnetSimple d(o, nnet, priors, feats, &compiler, ivector);
  Matrix<BaseFloat> out(d.NumFrames(), d.OutputDim());
  for (int32 t = 0; t < d.NumFrames(); t++) {
    SubVector<BaseFloat> row(out, t);
    d.GetOutputForFrame(t, &row);
  }
  return out;
}

// The online-iVector row used for each output frame under Kaldi's batch
// rule: the chunk's middle output frame, (begin + num_out / 2) * f, over
// the period, capped at the last row.
std::vector<int32> OnlineRows(const NnetBatchComputerOptions &opts,
                              int32 num_frames, int32 period, int32 rows) {
  int32 f = opts.frame_subsampling_factor, s = (num_frames + f - 1) / f,
        c = opts.frames_per_chunk / f, n = (s + c - 1) / c;
  std::vector<int32> out(s);
  for (int32 k = 0; k < s; k++) {
    int32 chunk = std::min(k / c, n - 1);
    int32 begin = (chunk == n - 1 && n > 1) ? s - c : chunk * c;
    int32 num_out = (n == 1 && opts.ensure_exact_final_context) ? s : c;
    out[k] = std::min((begin + num_out / 2) * f / period, rows - 1);
  }
  return out;
}

Matrix<BaseFloat> OracleOutput(const NnetBatchComputerOptions &opts,
                               const Nnet &nnet,
                               const Vector<BaseFloat> &priors,
                               const Utt &utt, int32 period) {
  if (utt.online_ivectors.NumRows() == 0)
    return SimpleOutput(opts, nnet, priors, utt.feats,
                        utt.ivector.Dim() != 0 ? &utt.ivector : nullptr);
  NnetBatchComputerOptions fixed = opts;
  CheckAndFixBatchComputerOptions(nnet, &fixed);
  std::vector<int32> rows = OnlineRows(fixed, utt.feats.NumRows(), period,
                                       utt.online_ivectors.NumRows());
  Matrix<BaseFloat> out;
  std::map<int32, Matrix<BaseFloat> > per_row;
  for (size_t k = 0; k < rows.size(); k++) {
    int32 r = rows[k];
    if (per_row.count(r) == 0) {
      Vector<BaseFloat> iv(utt.online_ivectors.Row(r));
      per_row[r] = SimpleOutput(opts, nnet, priors, utt.feats, &iv);
    }
    if (out.NumRows() == 0)
      out.Resize(rows.size(), per_row[r].NumCols());
    out.Row(k).CopyFromVec(per_row[r].Row(k));
  }
  return out;
}

double RelDiff(const MatrixBase<BaseFloat> &a, const MatrixBase<BaseFloat> &b) {
  double diff = 0.0, scale = 1.0;
  for (int32 r = 0; r < a.NumRows(); r++)
    for (int32 c = 0; c < a.NumCols(); c++) {
      diff = std::max(diff, std::fabs(double(a(r, c)) - b(r, c)));
      scale = std::max(scale, std::fabs(double(a(r, c))));
    }
  return diff / scale;
}

// Runs all utterances through NnetBatchInference (taking outputs as they
// become ready, as the tool does) and compares each with the oracle.
// Returns the computer's minibatch statistics.
std::string CheckAgainstOracle(const NnetBatchComputerOptions &opts,
                               const Nnet &nnet,
                               const Vector<BaseFloat> &priors,
                               const std::vector<Utt> &utts, int32 period,
                               const std::string &what) {
  SCOPED_TRACE(what);
  NnetBatchInference inference(opts, nnet, priors);
  std::vector<std::pair<std::string, Matrix<BaseFloat> > > got;
  std::string id;
  Matrix<BaseFloat> out;
  for (const Utt &utt : utts) {
    inference.AcceptInput(
        utt.id, utt.feats, utt.ivector.Dim() != 0 ? &utt.ivector : nullptr,
        utt.online_ivectors.NumRows() != 0 ? &utt.online_ivectors : nullptr,
        period);
    while (inference.GetOutput(&id, &out)) got.emplace_back(id, out);
  }
  inference.Finished();
  while (inference.GetOutput(&id, &out)) got.emplace_back(id, out);
  EXPECT_EQ(inference.Computer().NumPendingTasks(), 0);
  EXPECT_EQ(got.size(), utts.size());
  for (size_t u = 0; u < got.size() && u < utts.size(); u++) {
    EXPECT_EQ(got[u].first, utts[u].id);
    Matrix<BaseFloat> ref = OracleOutput(opts, nnet, priors, utts[u], period);
    int32 f = opts.frame_subsampling_factor;
    EXPECT_EQ(ref.NumRows(), (utts[u].feats.NumRows() + f - 1) / f);
    EXPECT_EQ(got[u].second.NumRows(), ref.NumRows())
        << utts[u].id << " of length " << utts[u].feats.NumRows();
    EXPECT_EQ(got[u].second.NumCols(), ref.NumCols());
    if (got[u].second.NumRows() != ref.NumRows() ||
        got[u].second.NumCols() != ref.NumCols())
      continue;
    EXPECT_LT(RelDiff(ref, got[u].second), 1e-4)
        << utts[u].id << " of length " << utts[u].feats.NumRows();
  }
  return inference.Computer().MinibatchStats();
}

// Lengths around the chunk size (input frames): shorter than a chunk,
// exact multiples, one more or less, and random ragged ones.
std::vector<int32> Lengths(int32 fpc, RandomSource *rs) {
  std::vector<int32> l = {1, 2, fpc - 1, fpc, fpc + 1, 2 * fpc, 2 * fpc + 1,
                          3 * fpc - 1, 5 * fpc};
  for (int32 i = 0; i < 8; i++) l.push_back(rs->Int(1, 6 * fpc));
  l.erase(std::remove_if(l.begin(), l.end(), [](int32 x) { return x < 1; }),
          l.end());
  return l;
}

TEST(NnetBatchComputer, SameOutputsAsDecodableNnetSimple) {
  for (uint64 seed = 1; seed <= 6; seed++) {
    RandomSource rs(seed);
    std::string config;
    Nnet nnet = RandomTdnn(&rs, false, &config);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + config);
    for (int32 f : {1, 3}) {
      for (int32 minibatch : {1, 3, 128}) {
        NnetBatchComputerOptions opts;
        opts.frame_subsampling_factor = f;
        opts.frames_per_chunk = (f == 1 ? rs.Int(5, 20) : 3 * rs.Int(2, 7));
        opts.minibatch_size = minibatch;
        opts.edge_minibatch_size = std::max(1, minibatch / 2);
        opts.partial_minibatch_factor = (seed % 2 == 0 ? 0.5 : 0.0);
        std::vector<Utt> utts =
            MakeUtts(Lengths(opts.frames_per_chunk, &rs), kNoIvector, 1, &rs);
        CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), utts, 1,
                           "f=" + std::to_string(f) + " minibatch=" +
                               std::to_string(minibatch) + " fpc=" +
                               std::to_string(opts.frames_per_chunk));
      }
    }
  }
}

TEST(NnetBatchComputer, ExtraContextsMakeEdgeChunks) {
  for (uint64 seed = 11; seed <= 14; seed++) {
    RandomSource rs(seed);
    std::string config;
    Nnet nnet = RandomTdnn(&rs, false, &config);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + config);
    for (int32 f : {1, 3}) {
      NnetBatchComputerOptions opts;
      opts.frame_subsampling_factor = f;
      opts.frames_per_chunk = 12;
      opts.extra_left_context = 3;
      opts.extra_right_context = 2;
      opts.extra_left_context_initial = 0;
      opts.extra_right_context_final = 4;
      opts.minibatch_size = 4;
      opts.edge_minibatch_size = 2;
      std::vector<Utt> utts = MakeUtts(Lengths(12, &rs), kNoIvector, 1, &rs);
      CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), utts, 1,
                         "extra contexts, f=" + std::to_string(f));
      // Extra contexts only at the edges.
      opts.extra_left_context = 0;
      opts.extra_right_context = 0;
      opts.extra_left_context_initial = 2;
      opts.extra_right_context_final = -1;
      CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), utts, 1,
                         "initial context only, f=" + std::to_string(f));
    }
  }
}

TEST(NnetBatchComputer, IvectorsPerUtterance) {
  for (uint64 seed = 21; seed <= 24; seed++) {
    RandomSource rs(seed);
    std::string config;
    Nnet nnet = RandomTdnn(&rs, true, &config);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + config);
    for (int32 f : {1, 3}) {
      NnetBatchComputerOptions opts;
      opts.frame_subsampling_factor = f;
      opts.frames_per_chunk = 15;
      opts.minibatch_size = 5;
      std::vector<Utt> utts = MakeUtts(Lengths(15, &rs), kUttIvector, 1, &rs);
      CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), utts, 1,
                         "ivectors, f=" + std::to_string(f));
    }
  }
}

TEST(NnetBatchComputer, OnlineIvectorsTakeTheChunksMiddleRow) {
  for (uint64 seed = 31; seed <= 34; seed++) {
    RandomSource rs(seed);
    std::string config;
    Nnet nnet = RandomTdnn(&rs, true, &config);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + config);
    for (int32 f : {1, 3}) {
      for (int32 period : {1, 4, 10}) {
        for (bool exact : {false, true}) {
          NnetBatchComputerOptions opts;
          opts.frame_subsampling_factor = f;
          opts.frames_per_chunk = 12;
          opts.minibatch_size = 3;
          opts.ensure_exact_final_context = exact;
          std::vector<Utt> utts =
              MakeUtts(Lengths(12, &rs), kOnlineIvector, period, &rs);
          CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), utts, period,
                             "online ivectors, f=" + std::to_string(f) +
                                 " period=" + std::to_string(period) +
                                 (exact ? " exact" : ""));
        }
      }
    }
  }
}

TEST(NnetBatchComputer, ExactFinalContextPriorsAndScale) {
  RandomSource rs(41);
  std::string config;
  Nnet nnet = RandomTdnn(&rs, false, &config);
  SCOPED_TRACE(config);
  Vector<BaseFloat> priors(kOutputDim);
  for (int32 i = 0; i < kOutputDim; i++) priors(i) = 0.1 + 0.05 * i;
  for (bool exact : {false, true}) {
    NnetBatchComputerOptions opts;
    opts.frames_per_chunk = 10;
    opts.minibatch_size = 4;
    opts.acoustic_scale = 0.3;
    opts.ensure_exact_final_context = exact;
    std::vector<Utt> utts = MakeUtts(Lengths(10, &rs), kNoIvector, 1, &rs);
    CheckAgainstOracle(opts, nnet, priors, utts, 1,
                       exact ? "exact final context" : "padded final chunk");
  }
}

// Kaldi's partial minibatch sizes, worked out by hand: with full size 8
// and factor 0.5, 3 chunks left run as one minibatch of 4 (3 < 4, 3 >= 2);
// with factor 0 the size stays 8; 13 chunks give one full minibatch and
// then 5 in one of 8 (5 >= 4).
TEST(NnetBatchComputer, PartialMinibatchSizes) {
  RandomSource rs(51);
  std::string config;
  Nnet nnet = RandomTdnn(&rs, false, &config);
  NnetBatchComputerOptions opts;
  opts.frames_per_chunk = 10;
  opts.minibatch_size = 8;
  // Utterances of one chunk each.
  std::vector<Utt> three = MakeUtts({6, 9, 10}, kNoIvector, 1, &rs);
  std::string stats =
      CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), three, 1, "3 of 8");
  EXPECT_NE(stats.find(" * 4 = 1 (75%)"), std::string::npos) << stats;
  EXPECT_EQ(stats.find(" * 8 = "), std::string::npos) << stats;
  opts.partial_minibatch_factor = 0.0;
  stats = CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), three, 1,
                             "3 of 8, factor 0");
  EXPECT_NE(stats.find(" * 8 = 1 (37%)"), std::string::npos) << stats;
  opts.partial_minibatch_factor = 0.5;
  std::vector<Utt> thirteen = MakeUtts(std::vector<int32>(13, 7), kNoIvector,
                                       1, &rs);
  stats = CheckAgainstOracle(opts, nnet, Vector<BaseFloat>(), thirteen, 1,
                             "13 of 8");
  EXPECT_NE(stats.find(" * 8 = 2 (81%)"), std::string::npos) << stats;
  EXPECT_NE(stats.find("Did 13 chunks in 2 minibatches"), std::string::npos)
      << stats;
}

TEST(NnetBatchComputer, BadInputIsAUserError) {
  RandomSource rs(61);
  std::string config;
  Nnet nnet = RandomTdnn(&rs, true, &config);
  NnetBatchComputerOptions opts;
  NnetBatchInference inference(opts, nnet, Vector<BaseFloat>());
  Matrix<BaseFloat> feats = RandomGaussMatrix(20, kInputDim, &rs),
                    wrong = RandomGaussMatrix(20, kInputDim + 1, &rs);
  Vector<BaseFloat> ivector(kIvectorDim);
  EXPECT_THROW(inference.AcceptInput("a", wrong, &ivector, nullptr, 1),
               UserError);
  EXPECT_THROW(inference.AcceptInput("b", feats, nullptr, nullptr, 1),
               UserError);
  Matrix<BaseFloat> short_online(1, kIvectorDim);
  EXPECT_THROW(inference.AcceptInput("c", feats, nullptr, &short_online, 1),
               UserError);
  opts.partial_minibatch_factor = 1.6;
  EXPECT_THROW(NnetBatchComputer(opts, nnet, Vector<BaseFloat>()), UserError);
  opts.partial_minibatch_factor = 0.5;
  opts.minibatch_size = 0;
  EXPECT_THROW(NnetBatchComputer(opts, nnet, Vector<BaseFloat>()), UserError);
}

}  // namespace
}  // namespace nnet3
