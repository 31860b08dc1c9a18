// nnet3/components/convolution-compute.h
// Planning and execution of a time-height convolution over the regular
// (t, image) grid of one computation step (Kaldi's nnet3/convolution.h).
//
// Matrix layout: the input and output matrices have one row per (t, image)
// pair, t the slower index (see convolution-io.h for the input's
// reorder_t_in blocks). The computation is a sum of "steps", one per
// distinct time offset of the kernel: a step takes the input rows shifted by
// input_time_shift frames, gathers, for every output height, the input
// heights that the offsets with this time offset read (height_map; -1 is a
// zero-padded height) into a temporary matrix, and multiplies that matrix,
// viewed as (rows * height_out) x (columns / height_out), by the matching
// column block of the filter matrix.
//
// Planning (CompileConvolutionComputation) works in stages, as Kaldi's does:
// the input time grid is padded to cover every time offset (stage 1); the
// model is padded in height so no height falls outside the input (stage 2);
// when the output time step is r times the input's, r consecutive input
// frames are read as one frame of r times the height (stage 3, the input
// rows then come in blocks, reorder_t_in = r); the steps are made for that
// model (stage 4); then stage 2 is undone by turning padded heights into -1.
// The temporary matrix gets fewer rows than the output when it would exceed
// max_memory_mb; execution then walks the output in row chunks. A model
// whose offsets start with the image-average pair (kNoTime, kNoTime) gets
// no step for it: the first step's params_start_col is then num_filters_in,
// and execution adds the average term over the whole matrices itself.
//
// Invariants of a ConvolutionComputation (Check()): num_t_in >= num_t_out,
// each step's input_time_shift in [0, num_t_in - num_t_out] with the
// smallest 0 and the largest num_t_in - num_t_out, consecutive steps with
// different shifts, params_start_col a multiple of num_filters_in, height_map
// entries in [-1, height_in) and not all -1; the derived fields (columns,
// backward_columns, columns_are_contiguous, first_column) follow from
// height_map; temp_cols is the widest step that needs the temporary matrix
// (0 if none does), temp_rows a multiple of num_images.
//
// Write()/Read() use Kaldi's <ConvComputation> format.
#ifndef NNET3_NNET3_COMPONENTS_CONVOLUTION_COMPUTE_H_
#define NNET3_NNET3_COMPONENTS_CONVOLUTION_COMPUTE_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "nnet3/components/convolution-io.h"
#include "nnet3/components/convolution-model.h"

namespace nnet3 {
namespace time_height_convolution {

struct ConvolutionComputation {
  // height_in may be a multiple of the model's (appended input frames) and
  // num_t_in then counts appended frames.
  int32 num_filters_in = 0, num_filters_out = 0;
  int32 height_in = 0, height_out = 0;
  int32 num_t_in = 0, num_t_out = 0;
  int32 num_images = 0;
  // Size of the temporary matrix; both 0 if no step needs it.
  int32 temp_rows = 0, temp_cols = 0;

  struct ConvolutionStep {
    int32 input_time_shift = 0;  // input frames skipped at the start
    int32 params_start_col = 0;  // first filter-matrix column of this step
    // For each (output height, offset of this step): the input height read,
    // or -1 (zero padding). Its size times num_filters_in is the number of
    // temporary-matrix columns the step fills.
    std::vector<int32> height_map;

    // Derived by ComputeDerived():
    // input column of each temporary column (-1: zero).
    CuArray<int32> columns;
    // The inverse map split into layers so that no input column appears
    // twice in one layer: backward_columns[k][c] is a temporary column
    // copied from input column c, or -1.
    std::vector<CuArray<int32> > backward_columns;
    bool columns_are_contiguous = false;  // height_map is h0, h0+1, ... (no -1)
    int32 first_column = 0;               // columns[0]
  };
  std::vector<ConvolutionStep> steps;

  void Write(std::ostream &os, bool binary) const;
  // Accepts the stream before or after "<ConvComputation>"; an inconsistent
  // computation is a UserError.
  void Read(std::istream &is, bool binary);
  // Fills the derived fields of the steps from their height maps.
  void ComputeDerived();
  // True if the invariants listed in the file comment hold; otherwise false,
  // with a description in *why if non-null.
  bool Check(std::string *why = nullptr) const;
};

struct ConvolutionComputationOptions {
  // Memory allowed for the temporary matrix, in megabytes (10^6 bytes, 4
  // bytes per element).
  BaseFloat max_memory_mb = 200.0;
};

// Errors (UserError) if the input grid in 'io' lacks a time that a
// required time offset needs for some output frame, or (unless
// allow_extra_input) if the input reaches beyond what the offsets can use.
void CheckModelAndIo(const ConvolutionModel &model,
                     const ConvolutionComputationIo &io,
                     bool allow_extra_input = false);

// Plans the convolution for these input and output Indexes (any order; all
// times that required offsets need must be present). Writes the computation
// and the Indexes in the order and with the blanks the computation expects
// (what ReorderIndexes() must produce).
void CompileConvolutionComputation(
    const ConvolutionModel &model, const std::vector<Index> &input_indexes,
    const std::vector<Index> &output_indexes,
    const ConvolutionComputationOptions &opts,
    ConvolutionComputation *computation,
    std::vector<Index> *input_indexes_modified,
    std::vector<Index> *output_indexes_modified);

// The stages, exposed for testing.
// Stage 1: widens the input grid (start, step, count) so that it contains
// every time an output frame may read.
void PadComputationInputTime(const ConvolutionModel &model,
                             ConvolutionComputationIo *io);
// Stage 2: the same model with height_in enlarged and height offsets shifted
// so that no output height reads outside the input.
void PadModelHeight(const ConvolutionModel &model,
                    ConvolutionModel *model_padded);
// Stage 3: if the output time step is a multiple r > 1 of the input's,
// makes io's input rows come in blocks of r frames (reorder_t_in = r,
// num_t_in rounded up to a multiple of r) and gives the model and io that
// see r appended frames as one; otherwise copies them.
void AppendInputFrames(const ConvolutionModel &model,
                       ConvolutionComputationIo *io,
                       ConvolutionModel *model_appended,
                       ConvolutionComputationIo *io_appended);
// Stage 4: the steps for a model that needs no height padding and an io
// with equal input and output time steps.
void MakeComputation(const ConvolutionModel &model,
                     const ConvolutionComputationIo &io,
                     const ConvolutionComputationOptions &opts,
                     ConvolutionComputation *computation);
// Undoes stage 2 on the computation: padded heights become -1.
void UnPadModelHeight(const ConvolutionComputationOptions &opts,
                      const ConvolutionModel &model,
                      const ConvolutionModel &model_padded,
                      ConvolutionComputation *computation);

// output += convolution of input with params (no bias). input is
// (num_t_in * num_images * r) x (height_in * num_filters_in / r) for the
// appending factor r (reshaped internally), output is (num_t_out *
// num_images) x (height_out * num_filters_out); both must have stride ==
// num-cols. params is num_filters_out x (num-offsets * num_filters_in).
void ConvolveForward(const ConvolutionComputation &cc,
                     const CuMatrixBase<BaseFloat> &input,
                     const CuMatrixBase<BaseFloat> &params,
                     CuMatrixBase<BaseFloat> *output);

// input_deriv += the derivative with respect to the input, given the
// derivative with respect to the output.
void ConvolveBackwardData(const ConvolutionComputation &cc,
                          const CuMatrixBase<BaseFloat> &params,
                          const CuMatrixBase<BaseFloat> &output_deriv,
                          CuMatrixBase<BaseFloat> *input_deriv);

// params_deriv += alpha * the derivative with respect to the filter matrix.
void ConvolveBackwardParams(const ConvolutionComputation &cc,
                            const CuMatrixBase<BaseFloat> &input,
                            const CuMatrixBase<BaseFloat> &output_deriv,
                            BaseFloat alpha,
                            CuMatrixBase<BaseFloat> *params_deriv);

}  // namespace time_height_convolution
}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_CONVOLUTION_COMPUTE_H_
