// nnet3/egs/utterance-splitter.h
// How an utterance is cut into chunks for training examples (Kaldi's
// ExampleGenerationConfig / UtteranceSplitter, nnet-example-utils.cc).
//
// --num-frames=P[,A1,A2...]: chunks have the principal size P, except that
// at most two chunks per utterance may have an alternative size Ai. All
// sizes are rounded up to multiples of --frame-subsampling-factor. For each
// utterance length the candidate splits (multisets of sizes) are scored by
// how far their total ("default duration", less the nominal overlap) is
// from the length, gaps counting twice as much as overlaps; a split whose
// largest chunk is longer than the utterance is impossible. One of the
// splits within 1.9999 of the best cost is chosen at random, sorted, and
// reversed with probability 1/2. Lengths above 2 * max(sizes) + P are
// reduced by P - overlap (adding a P chunk) until they are tabulated.
// Gaps: a positive total gap is spread uniformly at random over the
// num_chunks + 1 places before, between and after the chunks; an overlap is
// shared among the num_chunks - 1 places between chunks in proportion to the
// smaller neighbouring chunk, exactly as Kaldi does (whole parts first, the
// remainder one frame each to the earliest places: Kaldi keeps the
// fractional parts as integers, i.e. zero, so ties go by position). With
// --frame-subsampling-factor F the gaps are computed on lengths divided by
// F and multiplied back. Output frames covered by k chunks get weight 1/k.
//
// Randomness: Kaldi draws the split choice and order from glibc rand()
// (seed 1 unless the program calls srand) and the gap placement from
// std::random_device. Here the split choice and order come from KaldiRand,
// a generator that reproduces glibc's rand() sequence (shared with
// nnet3-get-egs's choice of iVector row), and the gap placement from a
// separate RandomSource (fixed seed), which, like Kaldi's, leaves the
// rand() sequence alone. So the chunks, their order and the iVector rows
// equal Kaldi's whenever no positive gap occurs (gaps are Kaldi's
// unreproducible case).
#ifndef NNET3_NNET3_EGS_UTTERANCE_SPLITTER_H_
#define NNET3_NNET3_EGS_UTTERANCE_SPLITTER_H_

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "base/random.h"
#include "base/types.h"
#include "util/options.h"

namespace nnet3 {

// The sequence of glibc's rand() (the TYPE_3 additive generator) for a
// seed; seed 0 behaves as 1, as in glibc.
class KaldiRand {
 public:
  explicit KaldiRand(uint32 seed = 1) { Seed(seed); }
  void Seed(uint32 seed);
  // Next value in [0, 2^31 - 1].
  int32 Rand();
  // Kaldi's RandInt: lo if hi <= lo (no draw), else lo + Rand() % (hi-lo+1).
  int32 RandInt(int32 lo, int32 hi);
  // Kaldi's WithProb: no draw for prob 0 or 1; for prob * RAND_MAX < 128 a
  // 1/128 draw and then WithProb(prob * 128); else one draw compared with
  // (RAND_MAX + 1) * prob (in float).
  bool WithProb(float prob);

 private:
  int32 r_[34];
  int32 pos_ = 0;
};

// Kaldi's in-memory shuffle (nnet3-shuffle-egs, nnet3-subset-egs):
// std::shuffle driven by a std::mt19937 seeded with --srand. The engine's
// outputs are fixed by the C++ standard, the way std::shuffle and
// std::uniform_int_distribution turn them into swaps is the standard
// library's own: built with libstdc++ (as Kaldi is with g++) this gives
// Kaldi's order; another library gives another order. rand() is not used.
template <class T>
void KaldiShuffle(uint32 seed, std::vector<T> *vec) {
  std::mt19937 engine(seed);
  std::shuffle(vec->begin(), vec->end(), engine);
}

struct ExampleGenerationConfig {
  int32 left_context = 0;
  int32 right_context = 0;
  int32 left_context_initial = -1;  // < 0: same as left_context
  int32 right_context_final = -1;   // < 0: same as right_context
  int32 num_frames_overlap = 0;
  int32 frame_subsampling_factor = 1;
  std::string num_frames_str = "1";
  // Derived from num_frames_str by ComputeDerived().
  std::vector<int32> num_frames;

  void Register(OptionsItf *opts);
  // Parses --num-frames and rounds each value up to a multiple of
  // --frame-subsampling-factor (logging when it does). UserError on a bad
  // list, a value <= 0 or a factor < 1.
  void ComputeDerived();
};

struct ChunkTimeInfo {
  int32 first_frame = 0;   // first output frame of the chunk (input frames)
  int32 num_frames = 0;    // output frames (at the input frame rate)
  int32 left_context = 0;
  int32 right_context = 0;
  // One weight per output frame after subsampling (num_frames / F).
  std::vector<float> output_weights;
};

class UtteranceSplitter {
 public:
  // config must have had ComputeDerived() called; it is copied. rand, if
  // given, must outlive this object; else an own KaldiRand(1) is used.
  explicit UtteranceSplitter(const ExampleGenerationConfig &config,
                             KaldiRand *rand = nullptr);
  // Logs the statistics (utterances, frames, chunk sizes), as Kaldi does.
  ~UtteranceSplitter();

  const ExampleGenerationConfig &Config() const { return config_; }

  // True if supervision_length is within length_tolerance of
  // ceil(utterance_length / F); else warns (naming utt) and returns false.
  bool LengthsMatch(const std::string &utt, int32 utterance_length,
                    int32 supervision_length,
                    int32 length_tolerance = 0) const;

  // The chunks for an utterance of this many frames (empty if it is shorter
  // than every chunk size).
  void GetChunksForUtterance(int32 utterance_length,
                             std::vector<ChunkTimeInfo> *chunk_info);

  // The sizes of the chunks for this length, before placement.
  void GetChunkSizesForUtterance(int32 utterance_length,
                                 std::vector<int32> *chunk_sizes);
  // gap_sizes[i] = frames skipped (negative: overlapped) before chunk i.
  void GetGapSizes(int32 utterance_length, bool enforce_subsampling_factor,
                   const std::vector<int32> &chunk_sizes,
                   std::vector<int32> *gap_sizes);

  // Splits n (may be negative) into vec->size() parts differing by at most
  // one, in random order.
  void DistributeRandomlyUniform(int32 n, std::vector<int32> *vec);
  // Splits n (may be negative) in proportion to magnitudes (see above).
  static void DistributeRandomly(int32 n, const std::vector<int32> &magnitudes,
                                 std::vector<int32> *vec);

  // 0 if any chunk was produced, else 1.
  int32 ExitStatus() const { return total_frames_in_chunks_ > 0 ? 0 : 1; }

  // For tests: the splits considered for a (tabulated) utterance length.
  const std::vector<std::vector<int32> > &SplitsForLength(int32 length) const {
    return splits_for_length_[length];
  }
  int32 MaxUtteranceLength() const;

 private:
  void InitSplitForLength();
  void InitSplits(std::vector<std::vector<int32> > *splits) const;
  float DefaultDurationOfSplit(const std::vector<int32> &split) const;
  void SetOutputWeights(int32 utterance_length,
                        std::vector<ChunkTimeInfo> *chunk_info) const;
  void AccStatsForUtterance(int32 utterance_length,
                            const std::vector<ChunkTimeInfo> &chunk_info);

  ExampleGenerationConfig config_;
  KaldiRand own_rand_;
  KaldiRand *rand_;
  RandomSource gap_rand_;
  std::vector<std::vector<std::vector<int32> > > splits_for_length_;

  int32 total_num_utterances_ = 0;
  int64 total_input_frames_ = 0;
  int64 total_frames_overlap_ = 0;
  int64 total_num_chunks_ = 0;
  int64 total_frames_in_chunks_ = 0;
  std::map<int32, int32> chunk_size_to_count_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_EGS_UTTERANCE_SPLITTER_H_
