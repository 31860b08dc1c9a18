// hmm/topology.cc
// Reading, writing and checking HMM topologies (see topology.h).
#include "hmm/topology.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "base/io.h"
#include "base/log.h"
#include "util/text.h"

namespace nnet3 {

namespace {
// Phone ids index a vector; larger ones are taken for corrupt input.
const int32 kMaxPhone = 10000000;
}  // namespace

void HmmTopology::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<Topology>");
  phones_.clear();
  phone2idx_.clear();
  entries_.clear();
  if (binary)
    ReadBinary(is);
  else
    ReadText(is);
  Check();
}

void HmmTopology::ReadText(std::istream &is) {
  std::string token;
  while (true) {
    if (!(is >> token))
      NNET3_ERR << "HmmTopology: end of file before </Topology>";
    if (token == "</Topology>") break;
    if (token != "<TopologyEntry>")
      NNET3_ERR << "HmmTopology: expected <TopologyEntry> or </Topology>, got "
                << PrintableString(token) << " at file position "
                << StreamPosition(is);
    ExpectToken(is, false, "<ForPhones>");
    std::vector<int32> phones;
    while (true) {
      std::string s;
      if (!(is >> s))
        NNET3_ERR << "HmmTopology: end of file in the phone list of an entry";
      if (s == "</ForPhones>") break;
      int32 phone;
      if (!ConvertStringToInteger(s, &phone) || phone <= 0 ||
          phone > kMaxPhone)
        NNET3_ERR << "HmmTopology: expected a phone (an integer from 1 to "
                  << kMaxPhone << ") in <ForPhones>, got "
                  << PrintableString(s);
      phones.push_back(phone);
    }
    TopologyEntry entry;
    ReadToken(is, false, &token);
    while (token != "</TopologyEntry>") {
      if (token != "<State>")
        NNET3_ERR << "HmmTopology: expected <State> or </TopologyEntry>, got "
                  << PrintableString(token) << " at file position "
                  << StreamPosition(is);
      int32 state;
      ReadBasicType(is, false, &state);
      if (state != static_cast<int32>(entry.size()))
        NNET3_ERR << "HmmTopology: states must be numbered from 0 in order; "
                  << "expected state " << entry.size() << ", got " << state;
      ReadToken(is, false, &token);
      if (token == "<PdfClass>") {
        int32 pdf_class;
        ReadBasicType(is, false, &pdf_class);
        entry.push_back(HmmState(pdf_class));
        ReadToken(is, false, &token);
        if (token == "<SelfLoopPdfClass>")
          NNET3_ERR << "HmmTopology: give either <PdfClass> or the pair "
                    << "<ForwardPdfClass> <SelfLoopPdfClass>, not both";
      } else if (token == "<ForwardPdfClass>") {
        int32 forward, self_loop;
        ReadBasicType(is, false, &forward);
        ExpectToken(is, false, "<SelfLoopPdfClass>");
        ReadBasicType(is, false, &self_loop);
        entry.push_back(HmmState(forward, self_loop));
        ReadToken(is, false, &token);
      } else {
        entry.push_back(HmmState());
      }
      while (token == "<Transition>") {
        int32 dst;
        BaseFloat prob;
        ReadBasicType(is, false, &dst);
        ReadBasicType(is, false, &prob);
        entry.back().transitions.push_back(std::make_pair(dst, prob));
        ReadToken(is, false, &token);
      }
      if (token == "<Final>")
        NNET3_ERR << "HmmTopology: <Final> belongs to an old topology format "
                  << "that Kaldi no longer reads; give the final state as a "
                  << "state without transitions";
      if (token != "</State>")
        NNET3_ERR << "HmmTopology: expected </State>, got "
                  << PrintableString(token);
      ReadToken(is, false, &token);
    }
    int32 index = static_cast<int32>(entries_.size());
    entries_.push_back(entry);
    for (int32 phone : phones) {
      if (static_cast<int32>(phone2idx_.size()) <= phone)
        phone2idx_.resize(phone + 1, -1);
      if (phone2idx_[phone] != -1)
        NNET3_ERR << "HmmTopology: phone " << phone
                  << " appears in more than one topology entry";
      phone2idx_[phone] = index;
      phones_.push_back(phone);
    }
  }
  std::sort(phones_.begin(), phones_.end());
}

void HmmTopology::ReadBinary(std::istream &is) {
  ReadIntegerVector(is, true, &phones_);
  ReadIntegerVector(is, true, &phone2idx_);
  int32 num_entries;
  ReadBasicType(is, true, &num_entries);
  bool is_hmm = true;
  if (num_entries == -1) {  // the marker of separate self-loop pdf-classes
    is_hmm = false;
    ReadBasicType(is, true, &num_entries);
  }
  // An entry takes at least its state count (5 bytes).
  CheckDeclaredSize(is, num_entries, 5, "HmmTopology: the entry count");
  entries_.resize(num_entries);
  for (TopologyEntry &entry : entries_) {
    int32 num_states;
    ReadBasicType(is, true, &num_states);
    // A state takes at least its pdf-class and transition count.
    CheckDeclaredSize(is, num_states, 10, "HmmTopology: a state count");
    entry.resize(num_states);
    for (HmmState &state : entry) {
      ReadBasicType(is, true, &state.forward_pdf_class);
      if (is_hmm)
        state.self_loop_pdf_class = state.forward_pdf_class;
      else
        ReadBasicType(is, true, &state.self_loop_pdf_class);
      int32 num_transitions;
      ReadBasicType(is, true, &num_transitions);
      CheckDeclaredSize(is, num_transitions, 10,
                        "HmmTopology: a transition count");
      state.transitions.resize(num_transitions);
      for (auto &t : state.transitions) {
        ReadBasicType(is, true, &t.first);
        ReadBasicType(is, true, &t.second);
      }
    }
  }
  ExpectToken(is, true, "</Topology>");
}

void HmmTopology::Write(std::ostream &os, bool binary) const {
  bool is_hmm = IsHmm();
  WriteToken(os, binary, "<Topology>");
  if (!binary) {
    os << "\n";
    for (size_t i = 0; i < entries_.size(); i++) {
      WriteToken(os, binary, "<TopologyEntry>");
      os << "\n";
      WriteToken(os, binary, "<ForPhones>");
      os << "\n";
      for (size_t phone = 0; phone < phone2idx_.size(); phone++)
        if (phone2idx_[phone] == static_cast<int32>(i)) os << phone << " ";
      os << "\n";
      WriteToken(os, binary, "</ForPhones>");
      os << "\n";
      for (size_t j = 0; j < entries_[i].size(); j++) {
        const HmmState &state = entries_[i][j];
        WriteToken(os, binary, "<State>");
        WriteBasicType(os, binary, static_cast<int32>(j));
        if (state.forward_pdf_class != kNoPdf) {
          if (is_hmm) {
            WriteToken(os, binary, "<PdfClass>");
            WriteBasicType(os, binary, state.forward_pdf_class);
          } else {
            WriteToken(os, binary, "<ForwardPdfClass>");
            WriteBasicType(os, binary, state.forward_pdf_class);
            WriteToken(os, binary, "<SelfLoopPdfClass>");
            WriteBasicType(os, binary, state.self_loop_pdf_class);
          }
        }
        for (const auto &t : state.transitions) {
          WriteToken(os, binary, "<Transition>");
          WriteBasicType(os, binary, t.first);
          WriteBasicType(os, binary, t.second);
        }
        WriteToken(os, binary, "</State>");
        os << "\n";
      }
      WriteToken(os, binary, "</TopologyEntry>");
      os << "\n";
    }
  } else {
    WriteIntegerVector(os, binary, phones_);
    WriteIntegerVector(os, binary, phone2idx_);
    if (!is_hmm) WriteBasicType(os, binary, static_cast<int32>(-1));
    WriteBasicType(os, binary, static_cast<int32>(entries_.size()));
    for (const TopologyEntry &entry : entries_) {
      WriteBasicType(os, binary, static_cast<int32>(entry.size()));
      for (const HmmState &state : entry) {
        WriteBasicType(os, binary, state.forward_pdf_class);
        if (!is_hmm) WriteBasicType(os, binary, state.self_loop_pdf_class);
        WriteBasicType(os, binary,
                       static_cast<int32>(state.transitions.size()));
        for (const auto &t : state.transitions) {
          WriteBasicType(os, binary, t.first);
          WriteBasicType(os, binary, t.second);
        }
      }
    }
  }
  WriteToken(os, binary, "</Topology>");
  if (!binary) os << "\n";
}

void HmmTopology::Check() const {
  if (entries_.empty() || phones_.empty() || phone2idx_.empty())
    NNET3_ERR << "HmmTopology: no phones or no topology entries";
  for (size_t i = 1; i < phones_.size(); i++)
    if (phones_[i - 1] >= phones_[i])
      NNET3_ERR << "HmmTopology: the phone list is not sorted and unique";
  std::vector<bool> is_seen(entries_.size(), false);
  size_t num_mapped = 0;
  for (size_t phone = 0; phone < phone2idx_.size(); phone++) {
    int32 idx = phone2idx_[phone];
    if (idx == -1) continue;
    num_mapped++;
    if (idx < 0 || static_cast<size_t>(idx) >= entries_.size() ||
        !std::binary_search(phones_.begin(), phones_.end(),
                            static_cast<int32>(phone)))
      NNET3_ERR << "HmmTopology: phone " << phone
                << " has an invalid topology entry index " << idx;
    is_seen[idx] = true;
  }
  if (num_mapped != phones_.size() || phones_.front() <= 0)
    NNET3_ERR << "HmmTopology: the phone list and the phone-to-entry map "
              << "disagree";
  for (size_t i = 0; i < entries_.size(); i++) {
    const TopologyEntry &entry = entries_[i];
    if (!is_seen[i])
      NNET3_ERR << "HmmTopology: topology entry " << i << " has no phones";
    int32 num_states = static_cast<int32>(entry.size());
    if (num_states <= 1)
      NNET3_ERR << "HmmTopology: entry " << i << " has " << num_states
                << " state(s); it needs at least one emitting state and the "
                << "final state";
    const HmmState &last = entry.back();
    if (!last.transitions.empty() || last.forward_pdf_class != kNoPdf ||
        last.self_loop_pdf_class != kNoPdf)
      NNET3_ERR << "HmmTopology: the last state of entry " << i
                << " must be non-emitting and have no transitions";
    std::vector<bool> has_input(num_states, false);
    std::vector<int32> pdf_classes;
    for (int32 j = 0; j < num_states; j++) {
      const HmmState &state = entry[j];
      if ((state.forward_pdf_class == kNoPdf) !=
          (state.self_loop_pdf_class == kNoPdf))
        NNET3_ERR << "HmmTopology: state " << j << " of entry " << i
                  << " has only one of its two pdf-classes";
      if (state.forward_pdf_class != kNoPdf) {
        if (state.forward_pdf_class < 0 || state.self_loop_pdf_class < 0)
          NNET3_ERR << "HmmTopology: negative pdf-class in state " << j
                    << " of entry " << i;
        pdf_classes.push_back(state.forward_pdf_class);
        pdf_classes.push_back(state.self_loop_pdf_class);
      }
      double total = 0.0;
      std::set<int32> seen;
      for (const auto &t : state.transitions) {
        int32 dst = t.first;
        if (!(t.second > 0.0))
          NNET3_ERR << "HmmTopology: transition probability " << t.second
                    << " (must be positive) in state " << j << " of entry "
                    << i;
        if (dst < 0 || dst >= num_states)
          NNET3_ERR << "HmmTopology: invalid destination state " << dst
                    << " in state " << j << " of entry " << i;
        if (dst == num_states - 1 && state.forward_pdf_class == kNoPdf)
          NNET3_ERR << "HmmTopology: non-emitting state " << j << " of entry "
                    << i << " goes straight to the final state, which Kaldi "
                    << "does not allow";
        if (dst == j && state.self_loop_pdf_class == kNoPdf)
          NNET3_ERR << "HmmTopology: non-emitting state " << j << " of entry "
                    << i << " has a self-loop";
        if (!seen.insert(dst).second)
          NNET3_ERR << "HmmTopology: two transitions from state " << j
                    << " to state " << dst << " in entry " << i;
        has_input[dst] = true;
        total += t.second;
      }
      if (j + 1 < num_states) {
        if (!(total > 0.0))
          NNET3_ERR << "HmmTopology: state " << j << " of entry " << i
                    << " has no transitions out";
        if (std::fabs(total - 1.0) > 0.01)
          NNET3_WARN << "HmmTopology: the transition probabilities of state "
                     << j << " of entry " << i << " sum to " << total;
      }
    }
    for (int32 j = 1; j < num_states; j++)
      if (!has_input[j])
        NNET3_ERR << "HmmTopology: state " << j << " of entry " << i
                  << " has no incoming transitions";
    std::sort(pdf_classes.begin(), pdf_classes.end());
    pdf_classes.erase(std::unique(pdf_classes.begin(), pdf_classes.end()),
                      pdf_classes.end());
    if (pdf_classes.empty() || pdf_classes.front() != 0 ||
        pdf_classes.back() != static_cast<int32>(pdf_classes.size()) - 1)
      NNET3_ERR << "HmmTopology: the pdf-classes of entry " << i
                << " must be 0, 1, ... without gaps";
  }
}

const HmmTopology::TopologyEntry &HmmTopology::TopologyForPhone(
    int32 phone) const {
  if (phone < 0 || static_cast<size_t>(phone) >= phone2idx_.size() ||
      phone2idx_[phone] == -1)
    NNET3_ERR << "The HMM topology does not cover phone " << phone;
  return entries_[phone2idx_[phone]];
}

int32 HmmTopology::NumPdfClasses(int32 phone) const {
  const TopologyEntry &entry = TopologyForPhone(phone);
  int32 max_pdf_class = 0;
  for (const HmmState &state : entry) {
    max_pdf_class = std::max(max_pdf_class, state.forward_pdf_class);
    max_pdf_class = std::max(max_pdf_class, state.self_loop_pdf_class);
  }
  return max_pdf_class + 1;
}

void HmmTopology::GetPhoneToNumPdfClasses(
    std::vector<int32> *phone2num_pdf_classes) const {
  phone2num_pdf_classes->assign(phones_.empty() ? 0 : phones_.back() + 1, -1);
  for (int32 phone : phones_)
    (*phone2num_pdf_classes)[phone] = NumPdfClasses(phone);
}

bool HmmTopology::IsHmm() const {
  for (const TopologyEntry &entry : entries_)
    for (const HmmState &state : entry)
      if (state.forward_pdf_class != state.self_loop_pdf_class) return false;
  return true;
}

}  // namespace nnet3
