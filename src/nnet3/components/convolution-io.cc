// nnet3/components/convolution-io.cc
// The regular time grid of TDNN/convolution/attention steps; see
// convolution-io.h.
#include "nnet3/components/convolution-io.h"

#include <algorithm>
#include <unordered_set>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {
namespace time_height_convolution {

int32 Gcd(int32 a, int32 b) {
  NNET3_ASSERT(!(a == 0 && b == 0));
  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  while (b != 0) {
    int32 r = a % b;
    a = b;
    b = r;
  }
  return a;
}

int32 DivideRoundingDown(int32 a, int32 b) {
  NNET3_ASSERT(b > 0);
  int32 q = a / b;
  if (a % b != 0 && a < 0) q--;
  return q;
}

void ConvolutionComputationIo::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<ConvCompIo>");
  const int32 fields[8] = {num_images,  start_t_in, t_step_in,
                           num_t_in,    start_t_out, t_step_out,
                           num_t_out,   reorder_t_in};
  for (int32 v : fields) WriteBasicType(os, binary, v);
  WriteToken(os, binary, "</ConvCompIo>");
}

void ConvolutionComputationIo::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<ConvCompIo>");
  int32 *fields[8] = {&num_images,  &start_t_in, &t_step_in,
                      &num_t_in,    &start_t_out, &t_step_out,
                      &num_t_out,   &reorder_t_in};
  for (int32 *p : fields) ReadBasicType(is, binary, p);
  ExpectToken(is, binary, "</ConvCompIo>");
}

void GetNxList(const std::vector<Index> &indexes,
               std::vector<std::pair<int32, int32> > *pairs) {
  pairs->clear();
  pairs->reserve(indexes.size());
  for (const Index &ix : indexes) pairs->emplace_back(ix.n, ix.x);
  std::sort(pairs->begin(), pairs->end());
  pairs->erase(std::unique(pairs->begin(), pairs->end()), pairs->end());
}

void GetTList(const std::vector<Index> &indexes,
              std::vector<int32> *t_values) {
  t_values->clear();
  t_values->reserve(indexes.size());
  for (const Index &ix : indexes)
    if (ix.t != kNoTime) t_values->push_back(ix.t);
  std::sort(t_values->begin(), t_values->end());
  t_values->erase(std::unique(t_values->begin(), t_values->end()),
                  t_values->end());
}

namespace {

// Describes a sorted, duplicate-free list of t values as the smallest
// arithmetic progression containing it: first value, common step (gcd of
// the successive differences, 0 for a single value) and length.
void FitProgression(const std::vector<int32> &t_values, int32 *start,
                    int32 *step, int32 *count) {
  NNET3_ASSERT(!t_values.empty());
  *start = t_values.front();
  int32 g = 0;
  for (size_t i = 1; i < t_values.size(); i++) {
    int32 diff = t_values[i] - t_values[i - 1];
    NNET3_ASSERT(diff > 0);
    g = Gcd(g, diff);
  }
  *step = g;
  if (g == 0) {
    *count = 1;
  } else {
    int32 span = t_values.back() - *start;
    NNET3_ASSERT(span % g == 0);
    *count = span / g + 1;
  }
}

// Fills 'indexes' with every (n, x) pair of 'nx' at each of the 'count' t
// values start, start + step, ...; 'block' consecutive t values are grouped,
// and within a group each pair lists its t values contiguously (block == 1
// gives the plain t-major order).
void BuildGrid(const std::vector<std::pair<int32, int32> > &nx, int32 start,
               int32 step, int32 count, int32 block,
               std::vector<Index> *indexes) {
  NNET3_ASSERT(block >= 1 && step >= 0 && count % block == 0);
  if (step == 0) {
    NNET3_ASSERT(count == 1);
    step = 1;
  }
  indexes->clear();
  indexes->reserve(nx.size() * static_cast<size_t>(count));
  for (int32 b = 0; b < count; b += block) {
    for (const auto &p : nx) {
      for (int32 j = 0; j < block; j++)
        indexes->push_back(Index(p.first, start + (b + j) * step, p.second));
    }
  }
}

// Sets t = kNoTime in every element of 'indexes' that is absent from
// 'present'.
void BlankMissing(const std::vector<Index> &present,
                  std::vector<Index> *indexes) {
  std::unordered_set<Index, IndexHasher> have(present.begin(), present.end());
  for (Index &ix : *indexes)
    if (have.count(ix) == 0) ix.t = kNoTime;
}

}  // namespace

void GetComputationIo(const std::vector<Index> &input_indexes,
                      const std::vector<Index> &output_indexes,
                      ConvolutionComputationIo *io) {
  std::vector<std::pair<int32, int32> > nx;
  GetNxList(input_indexes, &nx);
  NNET3_ASSERT(!nx.empty());
  io->num_images = static_cast<int32>(nx.size());
  std::vector<int32> ts;
  GetTList(input_indexes, &ts);
  FitProgression(ts, &io->start_t_in, &io->t_step_in, &io->num_t_in);
  GetTList(output_indexes, &ts);
  FitProgression(ts, &io->start_t_out, &io->t_step_out, &io->num_t_out);
  io->reorder_t_in = 1;
}

void ModifyComputationIo(ConvolutionComputationIo *io) {
  if (io->t_step_out == 0) {
    // One output frame: any stride describes it; use the input's.
    if (io->t_step_in == 0) io->t_step_in = 1;
    io->t_step_out = io->t_step_in;
  }
  if (io->t_step_in == 0) {
    // One input frame but several output frames. Not reachable for a
    // component whose outputs each need an input at a fixed offset; kept
    // consistent anyway.
    io->t_step_in = io->t_step_out;
  }
  NNET3_ASSERT(io->t_step_out % io->t_step_in == 0);
  int32 r = io->t_step_out / io->t_step_in;
  io->reorder_t_in = r;
  io->num_t_in = ((io->num_t_in + r - 1) / r) * r;
}

void GetIndexesForComputation(const ConvolutionComputationIo &io,
                              const std::vector<Index> &orig_input_indexes,
                              const std::vector<Index> &orig_output_indexes,
                              std::vector<Index> *input_indexes,
                              std::vector<Index> *output_indexes) {
  std::vector<std::pair<int32, int32> > nx;
  GetNxList(orig_input_indexes, &nx);
  NNET3_ASSERT(static_cast<int32>(nx.size()) == io.num_images);
  BuildGrid(nx, io.start_t_in, io.t_step_in, io.num_t_in, io.reorder_t_in,
            input_indexes);
  BlankMissing(orig_input_indexes, input_indexes);
  BuildGrid(nx, io.start_t_out, io.t_step_out, io.num_t_out, 1,
            output_indexes);
  BlankMissing(orig_output_indexes, output_indexes);
}

}  // namespace time_height_convolution
}  // namespace nnet3
