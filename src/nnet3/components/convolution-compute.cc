// nnet3/components/convolution-compute.cc
#include "nnet3/components/convolution-compute.h"

#include <algorithm>
#include <sstream>

#include "base/io.h"
#include "cudamatrix/cu-math-convolution.h"
#include "nnet3/components/component.h"

namespace nnet3 {
namespace time_height_convolution {

namespace {

// A contiguous matrix (stride == num-cols) seen with another shape of the
// same number of elements.
CuSubMatrix<BaseFloat> Reshaped(const CuMatrixBase<BaseFloat> &m, int32 rows,
                                int32 cols) {
  NNET3_ASSERT(m.Stride() == m.NumCols() &&
               static_cast<int64>(rows) * cols ==
                   static_cast<int64>(m.NumRows()) * m.NumCols());
  return CuSubMatrix<BaseFloat>(m.Data(), rows, cols, cols);
}

bool IsRunOfConsecutive(const std::vector<int32> &v) {
  for (size_t i = 1; i < v.size(); i++)
    if (v[i] != v[i - 1] + 1) return false;
  return !v.empty();
}

// The number of temporary columns a step needs (0 if it reads the input
// matrix directly: its heights are exactly 0 .. height_in - 1).
int32 TempColsOfStep(const ConvolutionComputation &cc,
                     const ConvolutionComputation::ConvolutionStep &step) {
  int32 num_cols = static_cast<int32>(step.height_map.size()) *
                   cc.num_filters_in;
  bool whole_input = step.height_map[0] == 0 &&
                     IsRunOfConsecutive(step.height_map) &&
                     static_cast<int32>(step.height_map.size()) == cc.height_in;
  return whole_input ? 0 : num_cols;
}

// Sets temp_cols to the widest step that needs the temporary matrix and
// temp_rows to the output rows, reduced (to a whole number of frames) so
// the matrix stays within opts.max_memory_mb. The arithmetic (float
// megabytes, rounding) follows Kaldi so that the plan is identical.
void SetTempMatrixSize(const ConvolutionComputationOptions &opts,
                       ConvolutionComputation *cc) {
  int32 cols = 0;
  for (const auto &step : cc->steps) cols = std::max(cols, TempColsOfStep(*cc, step));
  int32 rows = 0;
  if (cols > 0) {
    rows = cc->num_t_out * cc->num_images;
    BaseFloat megabytes = (4 * rows * cols) / 1000000.0;
    BaseFloat limit = opts.max_memory_mb;
    int32 num_pieces = static_cast<int32>(1.0 + megabytes / limit);
    int32 frames_per_piece = (cc->num_t_out + num_pieces - 1) / num_pieces;
    rows = frames_per_piece * cc->num_images;
  }
  cc->temp_rows = rows;
  cc->temp_cols = cols;
}

// Floor of i / n times n (n > 0).
int32 RoundDownToMultiple(int32 i, int32 n) {
  return n * DivideRoundingDown(i, n);
}

// Adds 'shift' to every time offset of the model (derived sets included).
void ShiftTimeOffsets(int32 shift, ConvolutionModel *model) {
  for (auto &o : model->offsets)
    if (o.time_offset != kNoTime) o.time_offset += shift;
  std::set<int32> req, all;
  for (int32 t : model->required_time_offsets) req.insert(t + shift);
  for (int32 t : model->all_time_offsets) all.insert(t + shift);
  model->required_time_offsets.swap(req);
  model->all_time_offsets.swap(all);
}

bool InInputGrid(const ConvolutionComputationIo &io, int32 t) {
  int32 step = std::max<int32>(1, io.t_step_in);
  return t >= io.start_t_in && t < io.start_t_in + step * io.num_t_in &&
         (t - io.start_t_in) % step == 0;
}

int32 FirstRealOffset(const ConvolutionModel &model) {
  return model.offsets[0].time_offset == kNoTime ? 1 : 0;
}

}  // namespace

// ---- ConvolutionComputation ------------------------------------------------

void ConvolutionComputation::ComputeDerived() {
  NNET3_ASSERT(!steps.empty());
  int32 input_dim = height_in * num_filters_in;
  for (ConvolutionStep &step : steps) {
    std::vector<int32> cols;
    cols.reserve(step.height_map.size() * num_filters_in);
    for (int32 h : step.height_map) {
      NNET3_ASSERT(h >= -1 && h < height_in);
      for (int32 f = 0; f < num_filters_in; f++)
        cols.push_back(h < 0 ? -1 : h * num_filters_in + f);
    }
    // Layer k of the inverse map holds, for each input column, its k-th
    // occurrence in 'cols'.
    std::vector<int32> seen(input_dim, 0);
    std::vector<std::vector<int32> > backward;
    for (int32 c = 0; c < static_cast<int32>(cols.size()); c++) {
      int32 j = cols[c];
      if (j < 0) continue;
      int32 layer = seen[j]++;
      if (layer == static_cast<int32>(backward.size()))
        backward.emplace_back(input_dim, -1);
      backward[layer][j] = c;
    }
    step.backward_columns.clear();
    for (const std::vector<int32> &layer : backward)
      step.backward_columns.emplace_back(layer);
    step.columns_are_contiguous =
        step.height_map[0] != -1 && IsRunOfConsecutive(step.height_map);
    step.first_column = cols[0];
    step.columns.CopyFromVec(cols);
  }
}

bool ConvolutionComputation::Check(std::string *why) const {
  std::ostringstream reason;
  auto fail = [&]() {
    if (why != nullptr) *why = reason.str();
    return false;
  };
  if (num_filters_in <= 0 || num_filters_out <= 0 || height_in <= 0 ||
      height_out <= 0 || num_t_out <= 0 || num_t_in < num_t_out ||
      num_images <= 0) {
    reason << "bad sizes (filters " << num_filters_in << "/"
           << num_filters_out << ", heights " << height_in << "/"
           << height_out << ", frames " << num_t_in << "/" << num_t_out
           << ", images " << num_images << ")";
    return fail();
  }
  if (steps.empty()) {
    reason << "no steps";
    return fail();
  }
  if (temp_rows < 0 || temp_cols < 0 || temp_rows % num_images != 0 ||
      temp_rows > num_t_out * num_images || (temp_rows == 0) != (temp_cols == 0)) {
    reason << "bad temporary matrix size " << temp_rows << " x " << temp_cols;
    return fail();
  }
  int32 extra = num_t_in - num_t_out, min_shift = extra, max_shift = 0,
        widest = 0;
  for (size_t s = 0; s < steps.size(); s++) {
    const ConvolutionStep &step = steps[s];
    if (step.input_time_shift < 0 || step.input_time_shift > extra ||
        (s > 0 && step.input_time_shift == steps[s - 1].input_time_shift)) {
      reason << "bad input time shift " << step.input_time_shift
             << " in step " << s;
      return fail();
    }
    min_shift = std::min(min_shift, step.input_time_shift);
    max_shift = std::max(max_shift, step.input_time_shift);
    if (step.params_start_col < 0 ||
        step.params_start_col % num_filters_in != 0) {
      reason << "bad params start column " << step.params_start_col;
      return fail();
    }
    if (step.height_map.empty() ||
        step.height_map.size() % height_out != 0) {
      reason << "height map of step " << s << " has size "
             << step.height_map.size() << ", not a multiple of height-out";
      return fail();
    }
    bool any_real = false;
    for (int32 h : step.height_map) {
      if (h < -1 || h >= height_in) {
        reason << "height " << h << " in the height map of step " << s
               << " is out of range";
        return fail();
      }
      if (h >= 0) any_real = true;
    }
    if (!any_real) {
      reason << "step " << s << " reads only padding";
      return fail();
    }
    if (static_cast<size_t>(step.columns.Dim()) !=
        step.height_map.size() * num_filters_in) {
      reason << "derived columns of step " << s << " are missing";
      return fail();
    }
    widest = std::max(widest, TempColsOfStep(*this, step));
  }
  if (min_shift != 0 || max_shift != extra) {
    reason << "the steps do not use all input frames";
    return fail();
  }
  if (widest != temp_cols) {
    reason << "temporary matrix has " << temp_cols << " columns, the steps need "
           << widest;
    return fail();
  }
  return true;
}

void ConvolutionComputation::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<ConvComputation>");
  WriteToken(os, binary, "<NumFiltersInOut>");
  WriteBasicType(os, binary, num_filters_in);
  WriteBasicType(os, binary, num_filters_out);
  WriteToken(os, binary, "<HeightInOut>");
  WriteBasicType(os, binary, height_in);
  WriteBasicType(os, binary, height_out);
  WriteToken(os, binary, "<NumTInOut>");
  WriteBasicType(os, binary, num_t_in);
  WriteBasicType(os, binary, num_t_out);
  WriteToken(os, binary, "<NumImages>");
  WriteBasicType(os, binary, num_images);
  WriteToken(os, binary, "<TempRowsCols>");
  WriteBasicType(os, binary, temp_rows);
  WriteBasicType(os, binary, temp_cols);
  WriteToken(os, binary, "<NumSteps>");
  WriteBasicType(os, binary, static_cast<int32>(steps.size()));
  for (const ConvolutionStep &step : steps) {
    WriteToken(os, binary, "<TimeShift>");
    WriteBasicType(os, binary, step.input_time_shift);
    WriteToken(os, binary, "<ParamsStartCol>");
    WriteBasicType(os, binary, step.params_start_col);
    WriteToken(os, binary, "<HeightMap>");
    WriteIntegerVector(os, binary, step.height_map);
  }
  WriteToken(os, binary, "</ConvComputation>");
}

void ConvolutionComputation::Read(std::istream &is, bool binary) {
  ExpectOneOrTwoTokens(is, binary, "<ConvComputation>", "<NumFiltersInOut>");
  ReadBasicType(is, binary, &num_filters_in);
  ReadBasicType(is, binary, &num_filters_out);
  ExpectToken(is, binary, "<HeightInOut>");
  ReadBasicType(is, binary, &height_in);
  ReadBasicType(is, binary, &height_out);
  ExpectToken(is, binary, "<NumTInOut>");
  ReadBasicType(is, binary, &num_t_in);
  ReadBasicType(is, binary, &num_t_out);
  ExpectToken(is, binary, "<NumImages>");
  ReadBasicType(is, binary, &num_images);
  ExpectToken(is, binary, "<TempRowsCols>");
  ReadBasicType(is, binary, &temp_rows);
  ReadBasicType(is, binary, &temp_cols);
  ExpectToken(is, binary, "<NumSteps>");
  int32 num_steps = 0;
  ReadBasicType(is, binary, &num_steps);
  if (num_steps <= 0 || num_steps > 100000)
    NNET3_ERR << "ConvComputation: bad <NumSteps> " << num_steps;
  steps.assign(num_steps, ConvolutionStep());
  for (ConvolutionStep &step : steps) {
    ExpectToken(is, binary, "<TimeShift>");
    ReadBasicType(is, binary, &step.input_time_shift);
    ExpectToken(is, binary, "<ParamsStartCol>");
    ReadBasicType(is, binary, &step.params_start_col);
    ExpectToken(is, binary, "<HeightMap>");
    ReadIntegerVector(is, binary, &step.height_map);
    if (step.height_map.empty())
      NNET3_ERR << "ConvComputation: empty <HeightMap>";
    for (int32 h : step.height_map)
      if (h < -1 || h >= height_in)
        NNET3_ERR << "ConvComputation: height " << h
                  << " in <HeightMap> is outside [-1, " << height_in << ")";
  }
  ExpectToken(is, binary, "</ConvComputation>");
  ComputeDerived();
  std::string why;
  if (!Check(&why)) NNET3_ERR << "ConvComputation read is inconsistent: " << why;
}

// ---- Planning --------------------------------------------------------------

void CheckModelAndIo(const ConvolutionModel &model,
                     const ConvolutionComputationIo &io,
                     bool allow_extra_input) {
  NNET3_ASSERT(!model.required_time_offsets.empty() &&
               !model.all_time_offsets.empty());
  if (io.num_t_in <= 0 || io.num_t_out <= 0)
    NNET3_ERR << "convolution: empty input or output (" << io.num_t_in
              << " input frames, " << io.num_t_out << " output frames)";
  if (!allow_extra_input) {
    int32 first_in = io.start_t_in, first_out = io.start_t_out,
          last_in = io.start_t_in + io.t_step_in * (io.num_t_in - 1),
          last_out = io.start_t_out + io.t_step_out * (io.num_t_out - 1);
    if (first_in < first_out + *model.all_time_offsets.begin() ||
        last_in > last_out + *model.all_time_offsets.rbegin())
      NNET3_ERR << "convolution: the input frames " << first_in << ".."
                << last_in << " reach beyond what outputs " << first_out
                << ".." << last_out << " can use";
  }
  // Every output frame must find every required input frame.
  int32 out_step = io.t_step_out;
  for (int32 i = 0; i < io.num_t_out; i++) {
    int32 t_out = io.start_t_out + i * out_step;
    for (int32 offset : model.required_time_offsets) {
      if (!InInputGrid(io, t_out + offset))
        NNET3_ERR << "convolution: input time " << t_out + offset
                  << " (output time " << t_out << ", required offset "
                  << offset << ") is not in the input";
    }
    if (out_step == 0) break;
  }
}

void PadComputationInputTime(const ConvolutionModel &model,
                             ConvolutionComputationIo *io) {
  if (model.time_offsets_modulus == 0) return;  // a single time offset
  int32 min_offset = *model.all_time_offsets.begin(),
        max_offset = *model.all_time_offsets.rbegin();
  // Make the input step divide both the offsets' modulus and the output
  // step; the grid may then have more (blank) frames than strictly needed.
  int32 old_step = io->t_step_in;
  io->t_step_in = Gcd(io->t_step_in, model.time_offsets_modulus);
  if (io->t_step_out != 0) io->t_step_in = Gcd(io->t_step_in, io->t_step_out);
  io->num_t_in = 1 + (old_step * (io->num_t_in - 1)) / io->t_step_in;
  // Extend at the start to the earliest time any output reads.
  int32 first_wanted = io->start_t_out + min_offset;
  if (first_wanted < io->start_t_in) {
    NNET3_ASSERT((io->start_t_in - first_wanted) % io->t_step_in == 0);
    io->num_t_in += (io->start_t_in - first_wanted) / io->t_step_in;
    io->start_t_in = first_wanted;
  }
  // ... and at the end to the latest.
  int32 last_wanted = io->start_t_out + (io->num_t_out - 1) * io->t_step_out +
                      max_offset,
        last_have = io->start_t_in + (io->num_t_in - 1) * io->t_step_in;
  NNET3_ASSERT(last_wanted >= last_have);
  if (last_wanted > last_have) {
    NNET3_ASSERT((last_wanted - last_have) % io->t_step_in == 0);
    io->num_t_in += (last_wanted - last_have) / io->t_step_in;
  }
}

void PadModelHeight(const ConvolutionModel &model,
                    ConvolutionModel *model_padded) {
  *model_padded = model;
  int32 first = FirstRealOffset(model), n = model.offsets.size();
  NNET3_ASSERT(first < n);
  int32 lowest = model.offsets[first].height_offset, highest = lowest;
  for (int32 i = first + 1; i < n; i++) {
    lowest = std::min(lowest, model.offsets[i].height_offset);
    highest = std::max(highest, model.offsets[i].height_offset);
  }
  int32 top_output_height = model.height_subsample_out * (model.height_out - 1);
  int32 pad_below = std::max(0, -lowest),
        pad_above = std::max(0, highest + top_output_height -
                                    (model.height_in - 1));
  model_padded->height_in += pad_below + pad_above;
  for (int32 i = first; i < n; i++)
    model_padded->offsets[i].height_offset += pad_below;
  std::string why;
  // Some middle heights may legitimately go unread; the extremes are read.
  NNET3_ASSERT(model_padded->Check(false, false, &why));
}

void AppendInputFrames(const ConvolutionModel &model,
                       ConvolutionComputationIo *io,
                       ConvolutionModel *model_appended,
                       ConvolutionComputationIo *io_appended) {
  // A single output frame: its step is free, take the input's.
  if (io->t_step_out == 0) {
    NNET3_ASSERT(io->num_t_out == 1);
    io->t_step_out = io->t_step_in;
  }
  if (io->t_step_out == io->t_step_in) {
    *io_appended = *io;
    *model_appended = model;
    return;
  }
  // PadComputationInputTime made the input step divide the output step.
  NNET3_ASSERT(io->t_step_in > 0 && io->t_step_out % io->t_step_in == 0);
  int32 ratio = io->t_step_out / io->t_step_in;
  io->reorder_t_in = ratio;
  if (io->num_t_in % ratio != 0) io->num_t_in += ratio - io->num_t_in % ratio;
  *io_appended = *io;
  io_appended->reorder_t_in = 1;
  io_appended->t_step_in = io->t_step_out;
  io_appended->num_t_in /= ratio;

  int32 step_out = io->t_step_out, step_in = io->t_step_in;
  int32 first_offset = *model.all_time_offsets.begin();
  NNET3_ASSERT(io->start_t_in - io->start_t_out == first_offset);
  // Work with the offsets shifted so the first is 0: an offset d then
  // becomes (d rounded down to a multiple of the output step) with the
  // remainder turned into a position among the appended frames.
  ConvolutionModel shifted(model);
  ShiftTimeOffsets(-first_offset, &shifted);
  model_appended->num_filters_in = model.num_filters_in;
  model_appended->num_filters_out = model.num_filters_out;
  model_appended->height_in = ratio * model.height_in;
  model_appended->height_out = model.height_out;
  model_appended->height_subsample_out = model.height_subsample_out;
  model_appended->offsets.resize(shifted.offsets.size());
  model_appended->all_time_offsets.clear();
  for (size_t i = 0; i < shifted.offsets.size(); i++) {
    const ConvolutionModel::Offset &src = shifted.offsets[i];
    ConvolutionModel::Offset &dst = model_appended->offsets[i];
    if (src.time_offset == kNoTime) {
      dst = src;
      continue;
    }
    dst.time_offset = RoundDownToMultiple(src.time_offset, step_out);
    int32 remainder = src.time_offset - dst.time_offset;
    NNET3_ASSERT(remainder % step_in == 0);
    dst.height_offset = src.height_offset + (remainder / step_in) * model.height_in;
    model_appended->all_time_offsets.insert(dst.time_offset);
  }
  // Time padding is done by now, so every offset can count as required.
  model_appended->required_time_offsets = model_appended->all_time_offsets;
  ShiftTimeOffsets(first_offset, model_appended);
  model_appended->ComputeDerived();
  std::string why;
  NNET3_ASSERT(model_appended->Check(false, false, &why));
}

void MakeComputation(const ConvolutionModel &model,
                     const ConvolutionComputationIo &io,
                     const ConvolutionComputationOptions &opts,
                     ConvolutionComputation *computation) {
  NNET3_ASSERT(io.t_step_in == io.t_step_out && io.reorder_t_in == 1);
  ConvolutionComputation &cc = *computation;
  cc.num_filters_in = model.num_filters_in;
  cc.num_filters_out = model.num_filters_out;
  cc.height_in = model.height_in;
  cc.height_out = model.height_out;
  cc.num_t_in = io.num_t_in;
  cc.num_t_out = io.num_t_out;
  cc.num_images = io.num_images;
  cc.steps.clear();
  int32 t_step = std::max<int32>(1, io.t_step_in),
        extra = io.num_t_in - io.num_t_out, n = model.offsets.size();
  // One step per run of offsets sharing a time offset.
  for (int32 begin = FirstRealOffset(model), end; begin < n; begin = end) {
    int32 time_offset = model.offsets[begin].time_offset;
    for (end = begin; end < n && model.offsets[end].time_offset == time_offset;
         end++) {}
    ConvolutionComputation::ConvolutionStep step;
    int32 rel = time_offset + io.start_t_out - io.start_t_in;
    NNET3_ASSERT(rel >= 0 && rel % t_step == 0);
    step.input_time_shift = rel / t_step;
    NNET3_ASSERT(step.input_time_shift <= extra);
    step.params_start_col = model.num_filters_in * begin;
    step.height_map.reserve(model.height_out * (end - begin));
    for (int32 j = 0; j < model.height_out; j++) {
      int32 h_base = j * model.height_subsample_out;
      for (int32 o = begin; o < end; o++) {
        int32 h = h_base + model.offsets[o].height_offset;
        NNET3_ASSERT(h >= 0 && h < model.height_in);  // padded model
        step.height_map.push_back(h);
      }
    }
    cc.steps.push_back(step);
  }
  SetTempMatrixSize(opts, &cc);
}

void UnPadModelHeight(const ConvolutionComputationOptions &opts,
                      const ConvolutionModel &model,
                      const ConvolutionModel &model_padded,
                      ConvolutionComputation *computation) {
  int32 first = FirstRealOffset(model_padded);
  int32 pad_below = model_padded.offsets[first].height_offset -
                    model.offsets[first].height_offset,
        pad_above = model_padded.height_in - model.height_in - pad_below;
  int32 padded_h = model_padded.height_in, real_h = model.height_in;
  NNET3_ASSERT(computation->height_in % padded_h == 0 &&
               computation->height_out == model.height_out);
  // The computation may see 'frames' appended input frames as one.
  int32 frames = computation->height_in / padded_h;
  computation->height_in = frames * real_h;
  for (auto &step : computation->steps) {
    for (int32 &c : step.height_map) {
      NNET3_ASSERT(c >= 0);
      int32 h = c % padded_h, frame = c / padded_h;
      if (h < pad_below || h >= padded_h - pad_above)
        c = -1;
      else
        c = (h - pad_below) + frame * real_h;
    }
  }
  SetTempMatrixSize(opts, computation);
  computation->ComputeDerived();
  std::string why;
  if (!computation->Check(&why))
    NNET3_ERR << "convolution planning produced an inconsistent computation: "
              << why;
}

void CompileConvolutionComputation(
    const ConvolutionModel &model, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes,
    const ConvolutionComputationOptions &opts,
    ConvolutionComputation *computation,
    std::vector<Index> *input_indexes_modified,
    std::vector<Index> *output_indexes_modified) {
  if (model.offsets.empty()) NNET3_ERR << "convolution: no offsets";
  if (input_indexes.empty() || output_indexes.empty())
    NNET3_ERR << "convolution: empty input or output Indexes";
  ConvolutionComputationIo io;
  GetComputationIo(input_indexes, output_indexes, &io);
  CheckModelAndIo(model, io, false);
  PadComputationInputTime(model, &io);                      // stage 1
  CheckModelAndIo(model, io, false);
  ConvolutionModel model_padded;
  PadModelHeight(model, &model_padded);                     // stage 2
  CheckModelAndIo(model_padded, io, false);
  ConvolutionModel model_appended;
  ConvolutionComputationIo io_appended;
  AppendInputFrames(model_padded, &io, &model_appended, &io_appended);  // 3
  CheckModelAndIo(model_appended, io_appended, true);
  MakeComputation(model_appended, io_appended, opts, computation);     // 4
  UnPadModelHeight(opts, model, model_padded, computation);
  GetIndexesForComputation(io, input_indexes, output_indexes,
                           input_indexes_modified, output_indexes_modified);
}

// ---- Execution -------------------------------------------------------------

namespace {

enum class ConvOp { kForward, kBackwardData, kBackwardParams };

// Copies the input columns a step reads into the first step.columns.size()
// columns of 'temp' (as a contiguous matrix) and returns that block.
CuSubMatrix<BaseFloat> Gather(
    const ConvolutionComputation::ConvolutionStep &step,
    const CuMatrixBase<BaseFloat> &in_rows, CuMatrixBase<BaseFloat> *temp) {
  int32 width = step.columns.Dim(), rows = in_rows.NumRows();
  NNET3_ASSERT(temp->NumRows() >= rows && temp->NumCols() >= width);
  CuSubMatrix<BaseFloat> t(temp->Data(), rows, width, width);
  if (step.columns_are_contiguous)
    t.CopyFromMat(in_rows.ColRange(step.first_column, width));
  else
    t.CopyCols(in_rows, step.columns);
  return t;
}

// One pass over the steps for a block of output frames. 'in' holds the
// block's input rows (its frames plus the extra context frames) and 'out'
// the block's output rows; both are views into the caller's matrices, and
// the one the operation writes is written through the view:
//   kForward:        out += conv(in)
//   kBackwardData:   in += conv^T(out)          ('out' is the derivative)
//   kBackwardParams: *params_deriv += alpha * d(objf)/d(params)
void RunSteps(const ConvolutionComputation &cc, ConvOp op,
              const CuSubMatrix<BaseFloat> &in,
              const CuSubMatrix<BaseFloat> &out,
              const CuMatrixBase<BaseFloat> &params, BaseFloat alpha,
              CuMatrixBase<BaseFloat> *temp,
              CuMatrixBase<BaseFloat> *params_deriv) {
  int32 rows = out.NumRows(), hout = cc.height_out;
  NNET3_ASSERT(rows <= in.NumRows() && rows % cc.num_images == 0);
  // Output rows seen as one row per (frame, image, output height).
  CuSubMatrix<BaseFloat> out_by_height =
      Reshaped(out, rows * hout, cc.num_filters_out);
  for (const auto &step : cc.steps) {
    CuSubMatrix<BaseFloat> in_rows =
        in.RowRange(step.input_time_shift * cc.num_images, rows);
    int32 width = step.columns.Dim(), block = width / hout;
    // A step covering all input columns in order reads the input directly.
    bool direct = step.columns_are_contiguous && width == in.NumCols();
    if (op == ConvOp::kBackwardData) {
      CuSubMatrix<BaseFloat> param_block =
          params.Range(0, params.NumRows(), step.params_start_col, block);
      if (direct) {
        Reshaped(in_rows, rows * hout, block)
            .AddMatMat(1.0, out_by_height, kNoTrans, param_block, kNoTrans,
                       1.0);
        continue;
      }
      CuSubMatrix<BaseFloat> t(temp->Data(), rows, width, width);
      Reshaped(t, rows * hout, block)
          .AddMatMat(1.0, out_by_height, kNoTrans, param_block, kNoTrans, 0.0);
      if (step.columns_are_contiguous) {
        in_rows.ColRange(step.first_column, width).AddMat(1.0, t);
      } else {
        for (const auto &layer : step.backward_columns)
          in_rows.AddCols(t, layer);
      }
      continue;
    }
    CuSubMatrix<BaseFloat> gathered =
        direct ? Reshaped(in_rows, rows * hout, block)
               : Reshaped(Gather(step, in_rows, temp), rows * hout, block);
    if (op == ConvOp::kForward) {
      CuSubMatrix<BaseFloat> param_block =
          params.Range(0, params.NumRows(), step.params_start_col, block);
      out_by_height.AddMatMat(1.0, gathered, kNoTrans, param_block, kTrans,
                              1.0);
    } else {
      params_deriv
          ->Range(0, params_deriv->NumRows(), step.params_start_col, block)
          .AddMatMat(alpha, out_by_height, kTrans, gathered, kNoTrans, 1.0);
    }
  }
}

// The (kNoTime, kNoTime) offset: every output pixel also sees, through the
// filter block W0 = params(:, 0:num_filters_in), the per-image average of
// each input filter over all input rows of the grid (blank rows included)
// and all heights. With a(i, f) that average and g(i, f') the per-image
// sum of the output derivative over frames and heights:
//   forward:     out(row of image i, height j, f') += sum_f W0(f', f) a(i, f)
//   backward:    in(row of image i, height h, f)  += s * sum_f' g(i, f') W0(f', f)
//   parameters:  W0(f', f) += alpha * s * sum_i g(i, f') sum(i, f)
// where s = 1 / (input frames * input heights) and sum(i, f) is the sum
// whose average a is.
void ImageAverageTerm(const ConvolutionComputation &cc, ConvOp op,
                      const CuMatrixBase<BaseFloat> &in_cu,
                      const CuMatrixBase<BaseFloat> &out_cu,
                      const CuMatrixBase<BaseFloat> &params_cu,
                      BaseFloat alpha,
                      CuMatrixBase<BaseFloat> *params_deriv_cu) {
  // The forward pass adds to "out", the data backprop to "in" (both passed
  // as const views of the buffers that receive the term).
  CuMatrixBase<BaseFloat> *in = const_cast<CuMatrixBase<BaseFloat> *>(&in_cu),
                          *out = const_cast<CuMatrixBase<BaseFloat> *>(&out_cu);
  int32 ni = cc.num_images, nfi = cc.num_filters_in, nfo = cc.num_filters_out;
  int32 in_blocks_h = in->NumCols() / nfi;
  BaseFloat scale = 1.0 / (static_cast<BaseFloat>(in->NumRows() / ni) *
                           in_blocks_h);
  // Per-image sums over frames and heights are the sums of the matrix onto
  // an (images x filters) tile (row r belongs to image r % ni, column c to
  // filter c % filters).
  CuSubMatrix<BaseFloat> w0 = params_cu.Range(0, nfo, 0, nfi);
  if (op == ConvOp::kForward) {
    CuMatrix<BaseFloat> avg(ni, nfi);
    cu::AddTiledBlockSums(*in, &avg);
    avg.Scale(scale);
    CuMatrix<BaseFloat> term(ni, nfo);
    term.AddMatMat(1.0, avg, kNoTrans, w0, kTrans, 0.0);
    cu::AddTiled(term, out);
    return;
  }
  CuMatrix<BaseFloat> g(ni, nfo);
  cu::AddTiledBlockSums(*out, &g);
  if (op == ConvOp::kBackwardData) {
    CuMatrix<BaseFloat> term(ni, nfi);
    term.AddMatMat(scale, g, kNoTrans, w0, kNoTrans, 0.0);
    cu::AddTiled(term, in);
    return;
  }
  CuMatrix<BaseFloat> sums(ni, nfi);
  cu::AddTiledBlockSums(*in, &sums);
  params_deriv_cu->Range(0, nfo, 0, nfi)
      .AddMatMat(alpha * scale, g, kTrans, sums, kNoTrans, 1.0);
}

// Splits the work into blocks of output frames as the temporary matrix
// allows and runs the steps on each. 'in_any' is the input (or input
// derivative) in any shape with the right number of elements, 'out' the
// output (or output derivative).
void Convolve(const ConvolutionComputation &cc, ConvOp op,
              const CuMatrixBase<BaseFloat> &in_any,
              const CuMatrixBase<BaseFloat> &out,
              const CuMatrixBase<BaseFloat> &params, BaseFloat alpha,
              CuMatrixBase<BaseFloat> *params_deriv) {
  NNET3_ASSERT(in_any.Stride() == in_any.NumCols() &&
               out.Stride() == out.NumCols());
  NNET3_ASSERT(out.NumRows() == cc.num_t_out * cc.num_images &&
               out.NumCols() == cc.height_out * cc.num_filters_out);
  int32 in_rows = cc.num_t_in * cc.num_images,
        in_cols = cc.height_in * cc.num_filters_in;
  // With appended frames, consecutive input rows form one wider row.
  CuSubMatrix<BaseFloat> in = Reshaped(in_any, in_rows, in_cols);
  // A kernel that starts with the image-average offset has its filter
  // block in the first num_filters_in columns, before any step's.
  if (cc.steps[0].params_start_col != 0)
    ImageAverageTerm(cc, op, in, out, params, alpha, params_deriv);
  CuMatrix<BaseFloat> temp(cc.temp_rows, cc.temp_cols, kSetZero,
                           kStrideEqualNumCols);
  int32 frames_per_block =
      cc.temp_rows > 0 ? cc.temp_rows / cc.num_images : cc.num_t_out;
  int32 extra = cc.num_t_in - cc.num_t_out;
  for (int32 t0 = 0; t0 < cc.num_t_out; t0 += frames_per_block) {
    int32 nt = std::min(frames_per_block, cc.num_t_out - t0);
    RunSteps(cc, op,
             in.RowRange(t0 * cc.num_images, (nt + extra) * cc.num_images),
             out.RowRange(t0 * cc.num_images, nt * cc.num_images), params,
             alpha, &temp, params_deriv);
  }
}

}  // namespace

void ConvolveForward(const ConvolutionComputation &cc,
                     const CuMatrixBase<BaseFloat> &input,
                     const CuMatrixBase<BaseFloat> &params,
                     CuMatrixBase<BaseFloat> *output) {
  NNET3_ASSERT(params.NumRows() == cc.num_filters_out);
  Convolve(cc, ConvOp::kForward, input, *output, params, 1.0, nullptr);
}

void ConvolveBackwardData(const ConvolutionComputation &cc,
                          const CuMatrixBase<BaseFloat> &params,
                          const CuMatrixBase<BaseFloat> &output_deriv,
                          CuMatrixBase<BaseFloat> *input_deriv) {
  NNET3_ASSERT(params.NumRows() == cc.num_filters_out);
  Convolve(cc, ConvOp::kBackwardData, *input_deriv, output_deriv, params, 1.0,
           nullptr);
}

void ConvolveBackwardParams(const ConvolutionComputation &cc,
                            const CuMatrixBase<BaseFloat> &input,
                            const CuMatrixBase<BaseFloat> &output_deriv,
                            BaseFloat alpha,
                            CuMatrixBase<BaseFloat> *params_deriv) {
  NNET3_ASSERT(params_deriv->NumRows() == cc.num_filters_out);
  Convolve(cc, ConvOp::kBackwardParams, input, output_deriv, *params_deriv,
           alpha, params_deriv);
}

}  // namespace time_height_convolution
}  // namespace nnet3
