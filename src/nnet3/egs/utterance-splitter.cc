// nnet3/egs/utterance-splitter.cc
#include "nnet3/egs/utterance-splitter.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "base/log.h"
#include "util/text.h"

namespace nnet3 {

// glibc's TYPE_3 generator: r[0] = seed, r[i] = 16807 r[i-1] mod (2^31-1)
// for i < 31, r[i] = r[i-31] for i in 31..33, then r[i] = r[i-31] + r[i-3]
// (mod 2^32); the k'th output is r[k + 344] >> 1.
void KaldiRand::Seed(uint32 seed) {
  if (seed == 0) seed = 1;
  int32 r[344];
  r[0] = static_cast<int32>(seed);
  // glibc keeps the running value in an int32, so a seed >= 2^31 starts
  // negative.
  int32 word = r[0];
  for (int32 i = 1; i < 31; i++) {
    int64 hi = word / 127773, lo = word % 127773;
    int64 next = 16807 * lo - 2836 * hi;
    word = static_cast<int32>(next);
    if (word < 0) word += 2147483647;
    r[i] = word;
  }
  for (int32 i = 31; i < 34; i++) r[i] = r[i - 31];
  for (int32 i = 34; i < 344; i++)
    r[i] = static_cast<int32>(static_cast<uint32>(r[i - 31]) +
                              static_cast<uint32>(r[i - 3]));
  // Keep the last 34 values, r[310..343], in a ring indexed by i % 34.
  for (int32 i = 310; i < 344; i++) r_[i % 34] = r[i];
  pos_ = 344 % 34;
}

int32 KaldiRand::Rand() {
  // pos_ is i % 34 for the next i; r[i-31] is at (i+3) % 34, r[i-3] at
  // (i+31) % 34.
  uint32 value = static_cast<uint32>(r_[(pos_ + 3) % 34]) +
                 static_cast<uint32>(r_[(pos_ + 31) % 34]);
  r_[pos_] = static_cast<int32>(value);
  pos_ = (pos_ + 1) % 34;
  return static_cast<int32>(value >> 1);
}

int32 KaldiRand::RandInt(int32 lo, int32 hi) {
  if (hi <= lo) return lo;
  return lo + static_cast<int32>(static_cast<uint32>(Rand()) %
                                 static_cast<uint32>(hi + 1 - lo));
}

bool KaldiRand::WithProb(float prob) {
  const int32 kRandMax = 2147483647;
  if (prob == 0.0f) return false;
  if (prob == 1.0f) return true;
  // kRandMax as a float is 2^31, as in Kaldi's float arithmetic.
  const float rand_max = static_cast<float>(kRandMax);
  if (prob * rand_max < 128.0f) {
    if (Rand() < kRandMax / 128) return WithProb(prob * 128.0f);
    return false;
  }
  return static_cast<float>(Rand()) < (rand_max + 1.0f) * prob;
}

void ExampleGenerationConfig::Register(OptionsItf *opts) {
  opts->Register("left-context", &left_context,
                 "Input frames before the first labelled frame that each "
                 "example carries");
  opts->Register("right-context", &right_context,
                 "Input frames after the last labelled frame that each "
                 "example carries");
  opts->Register("left-context-initial", &left_context_initial,
                 "Left context of an utterance's first example instead of "
                 "--left-context (negative: use --left-context)");
  opts->Register("right-context-final", &right_context_final,
                 "Right context of an utterance's last example instead of "
                 "--right-context (negative: use --right-context)");
  opts->Register("num-frames", &num_frames_str,
                 "Number of frames with labels in each example (context is "
                 "added to this). An integer (e.g. 8), or a principal value "
                 "followed by alternatives that are used at most twice per "
                 "utterance to fit odd lengths (e.g. 40,25,50). Values are "
                 "rounded up to multiples of --frame-subsampling-factor.");
  opts->Register("num-frames-overlap", &num_frames_overlap,
                 "Number of frames of overlap between adjacent examples "
                 "(for chunks of the principal --num-frames; advisory)");
  opts->Register("frame-subsampling-factor", &frame_subsampling_factor,
                 "Input frames per output label: above 1 when the labels "
                 "come at a lower frame rate than the features (chain "
                 "models: 3)");
}

void ExampleGenerationConfig::ComputeDerived() {
  if (!SplitStringToIntegers(num_frames_str, ",", false, &num_frames) ||
      num_frames.empty())
    NNET3_ERR << "Invalid option (expected comma-separated list of "
              << "integers): --num-frames=" << num_frames_str;
  int32 m = frame_subsampling_factor;
  if (m < 1) NNET3_ERR << "Invalid value --frame-subsampling-factor=" << m;
  bool changed = false;
  for (int32 &value : num_frames) {
    if (value <= 0)
      NNET3_ERR << "Invalid option --num-frames=" << num_frames_str;
    if (value % m != 0) {
      value = m * (value / m + 1);
      changed = true;
    }
  }
  if (changed) {
    std::ostringstream rounded;
    for (size_t i = 0; i < num_frames.size(); i++)
      rounded << (i > 0 ? "," : "") << num_frames[i];
    NNET3_LOG << "Rounding up --num-frames=" << num_frames_str
              << " to multiples of --frame-subsampling-factor=" << m
              << ", to: " << rounded.str();
  }
}

UtteranceSplitter::UtteranceSplitter(const ExampleGenerationConfig &config,
                                     KaldiRand *rand)
    : config_(config), rand_(rand != nullptr ? rand : &own_rand_) {
  if (config_.num_frames.empty())
    NNET3_ERR << "ExampleGenerationConfig: ComputeDerived() was not called";
  if (config_.num_frames_overlap < 0 ||
      config_.num_frames_overlap >= config_.num_frames[0])
    NNET3_ERR << "Invalid --num-frames-overlap=" << config_.num_frames_overlap
              << " (must be >= 0 and < the principal --num-frames="
              << config_.num_frames[0] << ")";
  InitSplitForLength();
}

UtteranceSplitter::~UtteranceSplitter() {
  NNET3_LOG << "Split " << total_num_utterances_ << " utts, with "
            << "total length " << total_input_frames_ << " frames ("
            << (total_input_frames_ / 360000.0) << " hours assuming "
            << "100 frames per second)";
  if (total_num_chunks_ == 0 || total_input_frames_ == 0) return;
  float average_chunk_length =
            total_frames_in_chunks_ * 1.0f / total_num_chunks_,
        overlap_percent = total_frames_overlap_ * 100.0f / total_input_frames_,
        output_percent =
            total_frames_in_chunks_ * 100.0f / total_input_frames_;
  NNET3_LOG << "Average chunk length was " << average_chunk_length
            << " frames; overlap between adjacent chunks was "
            << overlap_percent << "% of input length; length of output was "
            << output_percent << "% of input length (minus overlap = "
            << (output_percent - overlap_percent) << "%).";
  if (chunk_size_to_count_.size() > 1) {
    std::ostringstream os;
    os << std::setprecision(4);
    for (auto it = chunk_size_to_count_.begin();
         it != chunk_size_to_count_.end(); ++it) {
      if (it != chunk_size_to_count_.begin()) os << ", ";
      os << it->first << " = "
         << (it->first * it->second * 100.0f / total_frames_in_chunks_)
         << "%";
    }
    NNET3_LOG << "Output frames are distributed among chunk-sizes as "
              << "follows: " << os.str();
  }
}

float UtteranceSplitter::DefaultDurationOfSplit(
    const std::vector<int32> &split) const {
  if (split.empty()) return 0.0f;
  float principal = config_.num_frames[0],
        overlap_proportion = config_.num_frames_overlap / principal;
  float ans = std::accumulate(split.begin(), split.end(), int32(0));
  for (size_t i = 0; i + 1 < split.size(); i++)
    ans -= overlap_proportion * std::min(split[i], split[i + 1]);
  NNET3_ASSERT(ans > 0.0f);
  return ans;
}

int32 UtteranceSplitter::MaxUtteranceLength() const {
  int32 primary = config_.num_frames[0], max_length = primary;
  for (int32 n : config_.num_frames) max_length = std::max(max_length, n);
  return 2 * max_length + primary;
}

void UtteranceSplitter::InitSplits(
    std::vector<std::vector<int32> > *splits) const {
  int32 primary = config_.num_frames[0],
        ceiling = MaxUtteranceLength() + primary;
  std::set<std::vector<int32> > split_set;
  int32 num_lengths = static_cast<int32>(config_.num_frames.size());
  // Zero, one or two alternative sizes (i, j > 0), plus any number of
  // principal-size chunks.
  for (int32 i = 0; i < num_lengths; i++) {
    for (int32 j = 0; j < num_lengths; j++) {
      std::vector<int32> vec;
      if (i > 0) vec.push_back(config_.num_frames[i]);
      if (j > 0) vec.push_back(config_.num_frames[j]);
      while (DefaultDurationOfSplit(vec) <= ceiling) {
        if (!vec.empty()) split_set.insert(vec);
        vec.push_back(primary);
        std::sort(vec.begin(), vec.end());
      }
    }
  }
  splits->assign(split_set.begin(), split_set.end());
}

void UtteranceSplitter::InitSplitForLength() {
  int32 max_length = MaxUtteranceLength();
  std::vector<std::vector<int32> > splits;
  InitSplits(&splits);
  splits_for_length_.assign(max_length + 1,
                            std::vector<std::vector<int32> >());
  const float infinity = std::numeric_limits<float>::max();
  std::vector<std::vector<float> > costs(max_length + 1);
  for (const std::vector<int32> &split : splits) {
    float duration = DefaultDurationOfSplit(split);
    int32 max_chunk = *std::max_element(split.begin(), split.end());
    for (int32 u = 0; u <= max_length; u++) {
      float c = duration > static_cast<float>(u)
                    ? duration - static_cast<float>(u)
                    : 2.0f * (static_cast<float>(u) - duration);
      if (u < max_chunk) c = infinity;
      costs[u].push_back(c);
    }
  }
  for (int32 u = 0; u <= max_length; u++) {
    float min_cost = *std::min_element(costs[u].begin(), costs[u].end());
    if (min_cost == infinity) continue;
    for (size_t s = 0; s < splits.size(); s++)
      if (costs[u][s] < min_cost + 1.9999f)
        splits_for_length_[u].push_back(splits[s]);
  }
}

bool UtteranceSplitter::LengthsMatch(const std::string &utt,
                                     int32 utterance_length,
                                     int32 supervision_length,
                                     int32 length_tolerance) const {
  int32 sf = config_.frame_subsampling_factor,
        expected = (utterance_length + sf - 1) / sf;
  if (std::abs(supervision_length - expected) <= length_tolerance)
    return true;
  if (sf == 1) {
    NNET3_WARN << "Supervision does not have expected length for utterance "
               << utt << ": expected length = " << utterance_length
               << ", got " << supervision_length;
  } else {
    NNET3_WARN << "Supervision does not have expected length for utterance "
               << utt << ": expected length = (" << utterance_length << " + "
               << sf << " - 1) / " << sf << " = " << expected << ", got: "
               << supervision_length << " (note: --frame-subsampling-factor="
               << sf << ")";
  }
  return false;
}

void UtteranceSplitter::GetChunkSizesForUtterance(
    int32 utterance_length, std::vector<int32> *chunk_sizes) {
  NNET3_ASSERT(utterance_length >= 0);
  int32 primary = config_.num_frames[0],
        step = primary - config_.num_frames_overlap,
        max_tabulated = static_cast<int32>(splits_for_length_.size()) - 1,
        num_repeats = 0;
  while (utterance_length > max_tabulated) {
    utterance_length -= step;
    num_repeats++;
  }
  const std::vector<std::vector<int32> > &possible =
      splits_for_length_[utterance_length];
  if (possible.empty()) {
    chunk_sizes->clear();
    return;
  }
  int32 chosen =
      rand_->RandInt(0, static_cast<int32>(possible.size()) - 1);
  *chunk_sizes = possible[chosen];
  for (int32 i = 0; i < num_repeats; i++) chunk_sizes->push_back(primary);
  std::sort(chunk_sizes->begin(), chunk_sizes->end());
  if (rand_->RandInt(0, 1) == 0)
    std::reverse(chunk_sizes->begin(), chunk_sizes->end());
}

void UtteranceSplitter::DistributeRandomlyUniform(int32 n,
                                                  std::vector<int32> *vec) {
  NNET3_ASSERT(!vec->empty());
  int32 size = static_cast<int32>(vec->size());
  if (n < 0) {
    DistributeRandomlyUniform(-n, vec);
    for (int32 &v : *vec) v = -v;
    return;
  }
  int32 common = n / size, remainder = n % size;
  for (int32 i = 0; i < size; i++) (*vec)[i] = common + (i < remainder);
  // Fisher-Yates shuffle with the gap generator.
  for (int32 i = size - 1; i > 0; i--)
    std::swap((*vec)[i], (*vec)[gap_rand_.Int(0, i)]);
}

void UtteranceSplitter::DistributeRandomly(
    int32 n, const std::vector<int32> &magnitudes, std::vector<int32> *vec) {
  NNET3_ASSERT(!vec->empty() && vec->size() == magnitudes.size());
  int32 size = static_cast<int32>(vec->size());
  if (n < 0) {
    DistributeRandomly(-n, magnitudes, vec);
    for (int32 &v : *vec) v = -v;
    return;
  }
  float total = std::accumulate(magnitudes.begin(), magnitudes.end(),
                                int32(0));
  NNET3_ASSERT(total > 0);
  // Kaldi stores each fractional part in an int32, so every one is 0 and
  // the sort below orders the places by position.
  std::vector<std::pair<float, int32> > partial;
  int32 total_count = 0;
  for (int32 i = 0; i < size; i++) {
    float count = n * static_cast<float>(magnitudes[i]) / total;
    int32 whole = static_cast<int32>(count);
    int32 fraction = static_cast<int32>(count - whole);
    (*vec)[i] = whole;
    total_count += whole;
    partial.push_back(std::make_pair(-static_cast<float>(fraction), i));
  }
  NNET3_ASSERT(total_count <= n && total_count + size >= n);
  std::sort(partial.begin(), partial.end());
  for (int32 i = 0; total_count < n; i++, total_count++)
    (*vec)[partial[i].second]++;
}

void UtteranceSplitter::GetGapSizes(int32 utterance_length,
                                    bool enforce_subsampling_factor,
                                    const std::vector<int32> &chunk_sizes,
                                    std::vector<int32> *gap_sizes) {
  if (chunk_sizes.empty()) {
    gap_sizes->clear();
    return;
  }
  int32 num_chunks = static_cast<int32>(chunk_sizes.size());
  int32 sf = config_.frame_subsampling_factor;
  if (enforce_subsampling_factor && sf > 1) {
    std::vector<int32> reduced(chunk_sizes);
    for (int32 &c : reduced) {
      NNET3_ASSERT(c % sf == 0);
      c /= sf;
    }
    GetGapSizes((utterance_length + sf - 1) / sf, false, reduced, gap_sizes);
    for (int32 &g : *gap_sizes) g *= sf;
    return;
  }
  int32 total_gap =
      utterance_length -
      std::accumulate(chunk_sizes.begin(), chunk_sizes.end(), int32(0));
  gap_sizes->resize(num_chunks);
  if (total_gap < 0) {
    if (num_chunks == 1)
      NNET3_ERR << "Chunk size is " << chunk_sizes[0]
                << " but utterance length is only " << utterance_length;
    std::vector<int32> magnitudes(num_chunks - 1), overlaps(num_chunks - 1);
    for (int32 i = 0; i + 1 < num_chunks; i++)
      magnitudes[i] = std::min(chunk_sizes[i], chunk_sizes[i + 1]);
    DistributeRandomly(total_gap, magnitudes, &overlaps);
    (*gap_sizes)[0] = 0;
    for (int32 i = 1; i < num_chunks; i++) (*gap_sizes)[i] = overlaps[i - 1];
  } else {
    std::vector<int32> gaps(num_chunks + 1);
    DistributeRandomlyUniform(total_gap, &gaps);
    for (int32 i = 0; i < num_chunks; i++) (*gap_sizes)[i] = gaps[i];
  }
}

void UtteranceSplitter::GetChunksForUtterance(
    int32 utterance_length, std::vector<ChunkTimeInfo> *chunk_info) {
  std::vector<int32> chunk_sizes;
  GetChunkSizesForUtterance(utterance_length, &chunk_sizes);
  std::vector<int32> gaps;
  GetGapSizes(utterance_length, true, chunk_sizes, &gaps);
  int32 num_chunks = static_cast<int32>(chunk_sizes.size());
  chunk_info->assign(num_chunks, ChunkTimeInfo());
  int32 t = 0;
  for (int32 i = 0; i < num_chunks; i++) {
    t += gaps[i];
    ChunkTimeInfo &info = (*chunk_info)[i];
    info.first_frame = t;
    info.num_frames = chunk_sizes[i];
    info.left_context = (i == 0 && config_.left_context_initial >= 0)
                            ? config_.left_context_initial
                            : config_.left_context;
    info.right_context =
        (i == num_chunks - 1 && config_.right_context_final >= 0)
            ? config_.right_context_final
            : config_.right_context;
    t += chunk_sizes[i];
  }
  SetOutputWeights(utterance_length, chunk_info);
  AccStatsForUtterance(utterance_length, *chunk_info);
  NNET3_ASSERT(t - utterance_length < config_.frame_subsampling_factor);
}

void UtteranceSplitter::SetOutputWeights(
    int32 utterance_length, std::vector<ChunkTimeInfo> *chunk_info) const {
  int32 sf = config_.frame_subsampling_factor;
  int32 num_output_frames = (utterance_length + sf - 1) / sf;
  std::vector<int32> count(num_output_frames, 0);
  for (const ChunkTimeInfo &chunk : *chunk_info)
    for (int32 t = chunk.first_frame / sf;
         t < (chunk.first_frame + chunk.num_frames) / sf; t++)
      count[t]++;
  for (ChunkTimeInfo &chunk : *chunk_info) {
    int32 t_start = chunk.first_frame / sf;
    chunk.output_weights.resize(chunk.num_frames / sf);
    for (int32 t = t_start; t < (chunk.first_frame + chunk.num_frames) / sf;
         t++)
      chunk.output_weights[t - t_start] = 1.0f / count[t];
  }
}

void UtteranceSplitter::AccStatsForUtterance(
    int32 utterance_length, const std::vector<ChunkTimeInfo> &chunk_info) {
  total_num_utterances_++;
  total_input_frames_ += utterance_length;
  for (size_t c = 0; c < chunk_info.size(); c++) {
    if (c > 0) {
      int32 last_end =
          chunk_info[c - 1].first_frame + chunk_info[c - 1].num_frames;
      if (last_end > chunk_info[c].first_frame)
        total_frames_overlap_ += last_end - chunk_info[c].first_frame;
    }
    chunk_size_to_count_[chunk_info[c].num_frames]++;
    total_num_chunks_++;
    total_frames_in_chunks_ += chunk_info[c].num_frames;
  }
}

}  // namespace nnet3
