// nnet3/compile/shortcut.h
// "Shortcut" compilation: a request whose inputs and outputs are regular in
// n (sequences n = 0..N-1, N >= 3, each with the same (t, x) values laid out
// the same way) is compiled for just n in {0, 1}, and the small computation
// is then expanded to N sequences. Compiling two sequences instead of N
// saves most of the compilation time for large minibatches.
//
// The layouts handled ("regular in n with stride s"): the rows form blocks
// of N*s rows; inside a block, rows [n*s, (n+1)*s) hold sequence n, and the
// j-th row of every sub-block has the same (t, x). n-fastest ordering is
// s = 1 (each (t, x) repeated for n = 0..N-1), n-slowest ordering is one
// block (s = rows / N), and mixtures (e.g. t outermost, then n, then x) lie
// in between. The mini request keeps s and the (t, x) pattern with N = 2.
//
// Invariants of the expansion: it is done only when every matrix of the
// small computation (known from its debug info) is regular in n in the
// sense above, every submatrix is a whole number of blocks of its matrix,
// and every row-index list maps the n = 1 rows exactly as it maps the n = 0
// rows shifted by the strides; otherwise TryExpandComputation() declines
// and the caller compiles directly. The expanded computation has the same
// commands, matrices and submatrices (with N/2 times the rows), so its
// outputs equal those of the directly compiled computation.
#ifndef NNET3_NNET3_COMPILE_SHORTCUT_H_
#define NNET3_NNET3_COMPILE_SHORTCUT_H_

#include "nnet3/compile/compiler.h"
#include "nnet3/compile/computation.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// True if every input and output of 'request' is regular in n (see above)
// with the same number N >= 3 of n values; then *mini_request is the same
// request with n in {0, 1} only and *num_n_values = N.
bool RequestIsDecomposable(const ComputationRequest &request,
                           ComputationRequest *mini_request,
                           int32 *num_n_values);

// Expands 'computation', compiled (with debug info) for a mini request
// from RequestIsDecomposable(), to num_n_values sequences. Returns false,
// leaving *expanded cleared, if the computation lacks debug info or is not
// regular enough to be expanded. Debug info is kept in *expanded (expanded
// too) if need_debug_info.
bool TryExpandComputation(const Nnet &nnet,
                          const MiscComputationInfo &misc_info,
                          const NnetComputation &computation,
                          bool need_debug_info, int32 num_n_values,
                          NnetComputation *expanded);

// As TryExpandComputation(), but a failure is an error.
void ExpandComputation(const Nnet &nnet, const MiscComputationInfo &misc_info,
                       const NnetComputation &computation,
                       bool need_debug_info, int32 num_n_values,
                       NnetComputation *expanded);

// Compiles 'request' through the mini request and expansion when the
// request is decomposable and the expansion succeeds, else directly. The
// result has debug info only if opts.output_debug_info.
void CompileWithShortcut(const Nnet &nnet, const ComputationRequest &request,
                         const CompilerOptions &opts,
                         NnetComputation *computation);

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_SHORTCUT_H_
