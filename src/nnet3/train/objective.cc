// nnet3/train/objective.cc
#include "nnet3/train/objective.h"

#include <limits>

namespace nnet3 {

void ComputeObjective(const GeneralMatrix &supervision,
                      ObjectiveType objective_type,
                      const std::string &output_name,
                      const CuMatrixBase<BaseFloat> &output,
                      BaseFloat *tot_weight, BaseFloat *tot_objf,
                      CuMatrix<BaseFloat> *deriv) {
  if (output.NumCols() != supervision.NumCols())
    NNET3_ERR << "Nnet versus example output dimension (num-classes) "
              << "mismatch for '" << output_name << "': " << output.NumCols()
              << " (nnet) vs. " << supervision.NumCols() << " (egs)";
  if (output.NumRows() != supervision.NumRows())
    NNET3_ERR << "Nnet output for '" << output_name << "' has "
              << output.NumRows() << " rows but the supervision has "
              << supervision.NumRows();
  switch (objective_type) {
    case kLinear: {
      if (supervision.Type() == kSparseMatrix) {
        CuSparseMatrix<BaseFloat> post(supervision.GetSparseMatrix());
        *tot_weight = post.Sum();
        *tot_objf = TraceMatSmat(output, post, kTrans);
        if (deriv != nullptr) {
          deriv->Resize(output.NumRows(), output.NumCols());
          post.CopyToMat(deriv);
        }
      } else {
        CuMatrix<BaseFloat> post(supervision.NumRows(), supervision.NumCols(),
                                 kUndefined);
        post.CopyFromGeneralMat(supervision);
        *tot_weight = post.Sum();
        *tot_objf = TraceMatMat(output, post, kTrans);
        if (deriv != nullptr) deriv->Swap(&post);
      }
      break;
    }
    case kQuadratic: {
      CuMatrix<BaseFloat> diff(supervision.NumRows(), supervision.NumCols(),
                               kUndefined);
      diff.CopyFromGeneralMat(supervision);
      diff.AddMat(-1.0, output);
      *tot_weight = diff.NumRows();
      *tot_objf = -0.5 * TraceMatMat(diff, diff, kTrans);
      if (deriv != nullptr) deriv->Swap(&diff);
      break;
    }
    default:
      NNET3_ERR << "Objective function type " << static_cast<int>(objective_type)
                << " not handled (output '" << output_name << "')";
  }
}

void ComputeObjectiveFunction(const GeneralMatrix &supervision,
                              ObjectiveType objective_type,
                              const std::string &output_name,
                              bool supply_deriv, NnetComputer *computer,
                              BaseFloat *tot_weight, BaseFloat *tot_objf) {
  const CuMatrixBase<BaseFloat> &output = computer->GetOutput(output_name);
  CuMatrix<BaseFloat> deriv;
  ComputeObjective(supervision, objective_type, output_name, output,
                   tot_weight, tot_objf, supply_deriv ? &deriv : nullptr);
  if (supply_deriv) computer->AcceptOutputDeriv(output_name, &deriv);
}

namespace {
// Index of the first largest element of a dense row.
int32 RowArgMax(const BaseFloat *row, int32 dim) {
  BaseFloat best = -std::numeric_limits<BaseFloat>::infinity();
  int32 best_index = 0;
  for (int32 j = 0; j < dim; j++)
    if (row[j] > best) {
      best = row[j];
      best_index = j;
    }
  return best_index;
}
}  // namespace

void ComputeAccuracy(const GeneralMatrix &supervision,
                     const CuMatrixBase<BaseFloat> &output,
                     BaseFloat *tot_weight_out, BaseFloat *tot_accuracy_out,
                     Vector<BaseFloat> *tot_weight_vec,
                     Vector<BaseFloat> *tot_accuracy_vec) {
  const int32 num_rows = output.NumRows(), num_cols = output.NumCols();
  if (supervision.NumRows() != num_rows || supervision.NumCols() != num_cols)
    NNET3_ERR << "Computing accuracy: output is " << num_rows << " x "
              << num_cols << " but the supervision is "
              << supervision.NumRows() << " x " << supervision.NumCols();
  NNET3_ASSERT((tot_weight_vec == nullptr) == (tot_accuracy_vec == nullptr));
  if (tot_weight_vec != nullptr)
    NNET3_ASSERT(tot_weight_vec->Dim() == num_cols &&
                 tot_accuracy_vec->Dim() == num_cols);
  double tot_weight = 0.0, tot_accuracy = 0.0;
  Matrix<BaseFloat> dense;
  const SparseMatrix<BaseFloat> *sparse = nullptr;
  if (supervision.Type() == kSparseMatrix)
    sparse = &supervision.GetSparseMatrix();
  else
    supervision.GetMatrix(&dense);
  CuArray<int32> best_ids;
  output.FindRowMaxId(&best_ids);
  std::vector<int32> hyp;
  best_ids.CopyToVec(&hyp);
  for (int32 r = 0; r < num_rows; r++) {
    BaseFloat row_sum;
    int32 ref_index = 0;
    if (sparse != nullptr) {
      const SparseVector<BaseFloat> &row = sparse->Row(r);
      row_sum = row.Sum();
      row.Max(&ref_index);
    } else {
      SubVector<BaseFloat> row(dense, r);
      row_sum = row.Sum();
      ref_index = RowArgMax(row.Data(), num_cols);
    }
    int32 hyp_index = hyp[r];
    tot_weight += row_sum;
    if (tot_weight_vec != nullptr) (*tot_weight_vec)(ref_index) += row_sum;
    if (ref_index == hyp_index) {
      tot_accuracy += row_sum;
      if (tot_accuracy_vec != nullptr)
        (*tot_accuracy_vec)(ref_index) += row_sum;
    }
  }
  *tot_weight_out = tot_weight;
  *tot_accuracy_out = tot_accuracy;
}

}  // namespace nnet3
