// nnet3/train/objective.h
// Objective functions of an output node, and classification accuracy
// (Kaldi's ComputeObjectiveFunction and ComputeAccuracy):
//  - kLinear: objective = sum_ij supervision(i,j) * output(i,j) (with a
//    LogSoftmax output and posterior targets this is the cross-entropy's
//    log-likelihood); weight = sum of the supervision; derivative w.r.t. the
//    output = supervision.
//  - kQuadratic: objective = -0.5 * ||supervision - output||^2; weight =
//    number of rows; derivative = supervision - output.
// Supervision may be sparse, full or compressed (GeneralMatrix).
// Invariant: the output and the supervision have the same shape; otherwise
// a UserError names the output and both dimensions.
#ifndef NNET3_NNET3_TRAIN_OBJECTIVE_H_
#define NNET3_NNET3_TRAIN_OBJECTIVE_H_

#include <string>

#include "cudamatrix/cu-matrix.h"
#include "matrix/general.h"
#include "nnet3/compute/nnet-computer.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// On matrices: sets *tot_weight and *tot_objf and, if deriv is non-null,
// resizes it to the derivative of the objective w.r.t. output.
void ComputeObjective(const GeneralMatrix &supervision,
                      ObjectiveType objective_type,
                      const std::string &output_name,
                      const CuMatrixBase<BaseFloat> &output,
                      BaseFloat *tot_weight, BaseFloat *tot_objf,
                      CuMatrix<BaseFloat> *deriv);

// Takes the output from the computer and, with supply_deriv, gives it the
// derivative (AcceptOutputDeriv) for the backward pass.
void ComputeObjectiveFunction(const GeneralMatrix &supervision,
                              ObjectiveType objective_type,
                              const std::string &output_name,
                              bool supply_deriv, NnetComputer *computer,
                              BaseFloat *tot_weight, BaseFloat *tot_objf);

// Accuracy: for each row, the weight is the row sum of the supervision and
// the row counts as correct when the largest supervision entry (first on
// ties) and the largest output (first on ties) are in the same column.
// With tot_weight_vec/tot_accuracy_vec (dim = number of columns, added to),
// the per-dimension totals indexed by the supervision's best column.
void ComputeAccuracy(const GeneralMatrix &supervision,
                     const CuMatrixBase<BaseFloat> &output,
                     BaseFloat *tot_weight, BaseFloat *tot_accuracy,
                     Vector<BaseFloat> *tot_weight_vec = nullptr,
                     Vector<BaseFloat> *tot_accuracy_vec = nullptr);

}  // namespace nnet3

#endif  // NNET3_NNET3_TRAIN_OBJECTIVE_H_
