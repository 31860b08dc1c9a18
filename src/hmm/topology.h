// hmm/topology.h
// HmmTopology: Kaldi's <Topology> object, the HMM of every phone. Each
// topology entry (shared by a list of phones) is a list of states; a state
// has a forward pdf-class and a self-loop pdf-class (equal in ordinary
// HMMs; -1 = kNoPdf for the non-emitting final state) and transitions
// (destination state, probability).
// Formats, as Kaldi reads and writes them:
//  - text: "<Topology>" then per entry "<TopologyEntry> <ForPhones> phones
//    </ForPhones>" and "<State> n [<PdfClass> c | <ForwardPdfClass> c
//    <SelfLoopPdfClass> d] (<Transition> dst prob)* </State>" lines, then
//    "</TopologyEntry>", and finally "</Topology>";
//  - binary: the sorted phone list and the phone -> entry index vector as
//    integer vectors, then (only when some state's two pdf-classes differ)
//    the int32 -1, the entry count and per state the pdf-class(es) and
//    transitions.
// Invariants after Read (checked; a violation is a UserError): every listed
// phone maps to an entry, every entry is used, has at least two states,
// ends in a non-emitting state without transitions, has valid, unique and
// positive-probability transitions, every state but the first has an
// incoming transition, and the pdf-classes of an entry are 0..n-1.
#ifndef NNET3_HMM_TOPOLOGY_H_
#define NNET3_HMM_TOPOLOGY_H_

#include <istream>
#include <ostream>
#include <utility>
#include <vector>

#include "base/types.h"

namespace nnet3 {

// The pdf-class of a non-emitting state.
const int32 kNoPdf = -1;

class HmmTopology {
 public:
  struct HmmState {
    int32 forward_pdf_class = kNoPdf;
    int32 self_loop_pdf_class = kNoPdf;
    std::vector<std::pair<int32, BaseFloat> > transitions;
    HmmState() {}
    explicit HmmState(int32 pdf_class)
        : forward_pdf_class(pdf_class), self_loop_pdf_class(pdf_class) {}
    HmmState(int32 forward, int32 self_loop)
        : forward_pdf_class(forward), self_loop_pdf_class(self_loop) {}
    bool operator==(const HmmState &other) const {
      return forward_pdf_class == other.forward_pdf_class &&
             self_loop_pdf_class == other.self_loop_pdf_class &&
             transitions == other.transitions;
    }
  };
  typedef std::vector<HmmState> TopologyEntry;

  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;

  // The entry of "phone"; a phone the topology does not cover is a
  // UserError.
  const TopologyEntry &TopologyForPhone(int32 phone) const;
  // One plus the largest pdf-class of the phone's entry.
  int32 NumPdfClasses(int32 phone) const;
  // Sorted, unique.
  const std::vector<int32> &GetPhones() const { return phones_; }
  // Indexed by phone (size: largest phone + 1), -1 for phones not covered.
  void GetPhoneToNumPdfClasses(std::vector<int32> *phone2num_pdf_classes) const;
  // True if every state's forward and self-loop pdf-classes are equal.
  bool IsHmm() const;

  bool operator==(const HmmTopology &other) const {
    return phones_ == other.phones_ && phone2idx_ == other.phone2idx_ &&
           entries_ == other.entries_;
  }

 private:
  void ReadText(std::istream &is);
  void ReadBinary(std::istream &is);
  void Check() const;

  std::vector<int32> phones_;     // sorted, unique
  std::vector<int32> phone2idx_;  // phone -> entry index, or -1
  std::vector<TopologyEntry> entries_;
};

}  // namespace nnet3

#endif  // NNET3_HMM_TOPOLOGY_H_
