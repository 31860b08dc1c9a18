// tree/context-dep.h
// ContextDependency: Kaldi's decision tree ("tree" files). It maps a window
// of N phones (the phone being modelled at position P, e.g. N=3, P=1 for
// triphones, N=1, P=0 for monophones) and a pdf-class to a pdf-id, through
// an EventMap whose events have key -1 = pdf-class and keys 0..N-1 = the
// phones of the window.
// File layout (binary or text, as Kaldi writes it):
//   ContextDependency N P ToPdf <EventMap> EndContextDependency
// Reading also accepts the old "ToLength <EventMap>" section before ToPdf
// and skips it. After a successful Read the object always has a tree.
#ifndef NNET3_TREE_CONTEXT_DEP_H_
#define NNET3_TREE_CONTEXT_DEP_H_

#include <istream>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

#include "tree/event-map.h"

namespace nnet3 {

class ContextDependency {
 public:
  ContextDependency() {}
  // Takes ownership of to_pdf (non-null). Requires 0 <= P < N.
  ContextDependency(int32 N, int32 P, EventMap *to_pdf);

  int32 ContextWidth() const { return N_; }
  int32 CentralPosition() const { return P_; }
  // One plus the largest pdf-id the tree can return (0 for a tree with no
  // answers).
  int32 NumPdfs() const;
  const EventMap &ToPdfMap() const { return *to_pdf_; }

  // The pdf-id of "pdf_class" in the window "phones" (size N, 0 meaning no
  // phone at a sentence edge); false if the tree gives no answer.
  bool Compute(const std::vector<int32> &phones, int32 pdf_class,
               int32 *pdf_id) const;

  // For each pdf-id, the sorted (phone, pdf-class) pairs that can reach it
  // when the central phone is one of "phones" (sorted) and pdf-classes run
  // from 0 to num_pdf_classes[phone] - 1; other context positions match
  // anything. Output size: NumPdfs(). Used to build a TransitionModel.
  void GetPdfInfo(
      const std::vector<int32> &phones,
      const std::vector<int32> &num_pdf_classes,
      std::vector<std::vector<std::pair<int32, int32> > > *pdf_info) const;

  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;

 private:
  int32 N_ = 0;
  int32 P_ = 0;
  std::unique_ptr<EventMap> to_pdf_;
};

}  // namespace nnet3

#endif  // NNET3_TREE_CONTEXT_DEP_H_
