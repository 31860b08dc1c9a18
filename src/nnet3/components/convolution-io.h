// nnet3/components/convolution-io.h
// The regular time grid shared by the components that operate on whole
// sequences of frames (TdnnComponent, TimeHeightConvolutionComponent,
// RestrictedAttentionComponent). A step's input and output Indexes are
// described as "num_images" distinct (n, x) pairs crossed with an arithmetic
// progression of t values, one progression for the input and one for the
// output; gaps in the t values become "blank" Indexes (t == kNoTime) so the
// matrices are regular and can be addressed by row arithmetic.
//
// Row layout produced by GetIndexesForComputation (Kaldi's): the output has t
// as the slow index and the (n, x) pairs, sorted, as the fast one. The input
// is the same when reorder_t_in == 1; when reorder_t_in == r > 1 the input
// t values are taken in blocks of r consecutive values, and within a block
// each (n, x) pair lists its r t values next to each other. That lets a
// component with output stride r times the input stride reshape the input
// into rows holding r frames each.
//
// Names, fields, the <ConvCompIo> serialization and the algorithms follow
// Kaldi's nnet3/convolution.{h,cc} exactly (namespace
// time_height_convolution) so that other components can rely on them.
#ifndef NNET3_NNET3_COMPONENTS_CONVOLUTION_IO_H_
#define NNET3_NNET3_COMPONENTS_CONVOLUTION_IO_H_

#include <istream>
#include <ostream>
#include <utility>
#include <vector>

#include "nnet3/core/index.h"

namespace nnet3 {
namespace time_height_convolution {

// The input/output time structure of one computation step.
//   input t values:  start_t_in + i * t_step_in,   i = 0 .. num_t_in - 1
//   output t values: start_t_out + i * t_step_out, i = 0 .. num_t_out - 1
// A step of 0 means there was a single t value (the stride is unknown).
// reorder_t_in (>= 1) is the input row-ordering block size described in the
// file comment; num_t_in is a multiple of it.
struct ConvolutionComputationIo {
  int32 num_images = 0;  // number of distinct (n, x) pairs
  int32 start_t_in = 0;
  int32 t_step_in = 0;
  int32 num_t_in = 0;
  int32 start_t_out = 0;
  int32 t_step_out = 0;
  int32 num_t_out = 0;
  int32 reorder_t_in = 1;

  // "<ConvCompIo>" followed by the eight integers in the order above, then
  // "</ConvCompIo>".
  void Write(std::ostream &os, bool binary) const;
  void Read(std::istream &is, bool binary);

  bool operator==(const ConvolutionComputationIo &o) const {
    return num_images == o.num_images && start_t_in == o.start_t_in &&
           t_step_in == o.t_step_in && num_t_in == o.num_t_in &&
           start_t_out == o.start_t_out && t_step_out == o.t_step_out &&
           num_t_out == o.num_t_out && reorder_t_in == o.reorder_t_in;
  }
};

// Greatest common divisor, always >= 0; Gcd(0, n) = |n|. Both zero is an
// internal error.
int32 Gcd(int32 a, int32 b);

// Floor division (rounds towards minus infinity); b > 0.
int32 DivideRoundingDown(int32 a, int32 b);

// Sorted list of the distinct (n, x) pairs occurring in 'indexes'
// (including those of blank Indexes).
void GetNxList(const std::vector<Index> &indexes,
               std::vector<std::pair<int32, int32> > *pairs);

// Sorted list of the distinct t values in 'indexes', kNoTime excluded.
void GetTList(const std::vector<Index> &indexes, std::vector<int32> *t_values);

// Works out the regular grid that covers the given input and output
// Indexes: num_images from the input's (n, x) pairs, each side's start as
// its smallest t, its step as the gcd of the differences between
// consecutive distinct t values (0 if only one), and its count so that the
// grid reaches the largest t. reorder_t_in is set to 1.
void GetComputationIo(const std::vector<Index> &input_indexes,
                      const std::vector<Index> &output_indexes,
                      ConvolutionComputationIo *io);

// The adjustment TdnnComponent makes (Kaldi's TdnnComponent::
// ModifyComputationIo): a zero t_step_out (single output frame) becomes
// t_step_in (itself set to 1 if also zero); then t_step_out must be a
// multiple of t_step_in, reorder_t_in becomes their ratio, and num_t_in is
// rounded up to a multiple of reorder_t_in (the extra frames are blanks).
void ModifyComputationIo(ConvolutionComputationIo *io);

// Creates the Index lists in the layout described by 'io' (see the file
// comment), using the (n, x) pairs of orig_input_indexes; every Index not
// present in the corresponding original list gets t = kNoTime.
void GetIndexesForComputation(const ConvolutionComputationIo &io,
                              const std::vector<Index> &orig_input_indexes,
                              const std::vector<Index> &orig_output_indexes,
                              std::vector<Index> *input_indexes,
                              std::vector<Index> *output_indexes);

}  // namespace time_height_convolution
}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_CONVOLUTION_IO_H_
