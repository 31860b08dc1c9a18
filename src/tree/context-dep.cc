// tree/context-dep.cc
// The decision tree file and its queries (see context-dep.h).
#include "tree/context-dep.h"

#include <algorithm>
#include <string>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

ContextDependency::ContextDependency(int32 N, int32 P, EventMap *to_pdf)
    : N_(N), P_(P), to_pdf_(to_pdf) {
  NNET3_ASSERT(to_pdf_ && N_ > 0 && P_ >= 0 && P_ < N_);
}

int32 ContextDependency::NumPdfs() const {
  if (!to_pdf_) return 0;
  EventAnswerType max_result = to_pdf_->MaxResult();
  return max_result < 0 ? 0 : max_result + 1;
}

bool ContextDependency::Compute(const std::vector<int32> &phones,
                                int32 pdf_class, int32 *pdf_id) const {
  if (static_cast<int32>(phones.size()) != N_)
    NNET3_ERR << "ContextDependency::Compute: a window of " << phones.size()
              << " phones for a tree of context width " << N_;
  EventType event;
  event.reserve(N_ + 1);
  event.push_back(std::make_pair(kPdfClass, pdf_class));
  for (int32 i = 0; i < N_; i++) event.push_back(std::make_pair(i, phones[i]));
  return to_pdf_->Map(event, pdf_id);
}

void ContextDependency::GetPdfInfo(
    const std::vector<int32> &phones,
    const std::vector<int32> &num_pdf_classes,
    std::vector<std::vector<std::pair<int32, int32> > > *pdf_info) const {
  pdf_info->clear();
  pdf_info->resize(NumPdfs());
  for (int32 phone : phones) {
    if (phone < 0 || static_cast<size_t>(phone) >= num_pdf_classes.size())
      NNET3_ERR << "ContextDependency::GetPdfInfo: no pdf-class count for "
                << "phone " << phone;
    for (int32 pdf_class = 0; pdf_class < num_pdf_classes[phone];
         pdf_class++) {
      EventType event;
      event.push_back(std::make_pair(kPdfClass, pdf_class));
      event.push_back(std::make_pair(P_, phone));
      std::sort(event.begin(), event.end());
      std::vector<EventAnswerType> pdfs;
      to_pdf_->MultiMap(event, &pdfs);
      std::sort(pdfs.begin(), pdfs.end());
      pdfs.erase(std::unique(pdfs.begin(), pdfs.end()), pdfs.end());
      if (pdfs.empty())
        NNET3_WARN << "The tree gives no pdf for pdf-class " << pdf_class
                   << " of phone " << phone;
      for (int32 pdf : pdfs) {
        if (pdf < 0)
          NNET3_ERR << "The tree gives a negative pdf-id " << pdf
                    << " for pdf-class " << pdf_class << " of phone "
                    << phone;
        (*pdf_info)[pdf].push_back(std::make_pair(phone, pdf_class));
      }
    }
  }
  for (auto &v : *pdf_info) std::sort(v.begin(), v.end());
}

void ContextDependency::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "ContextDependency");
  int32 N, P;
  ReadBasicType(is, binary, &N);
  ReadBasicType(is, binary, &P);
  if (N <= 0 || P < 0 || P >= N)
    NNET3_ERR << "ContextDependency: bad context width " << N
              << " and central position " << P;
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "ToLength") {  // an old section, not used any more
    delete EventMap::Read(is, binary);
    ReadToken(is, binary, &token);
  }
  if (token != "ToPdf")
    NNET3_ERR << "ContextDependency: expected ToPdf, got "
              << PrintableString(token);
  std::unique_ptr<EventMap> to_pdf(EventMap::Read(is, binary));
  if (!to_pdf) NNET3_ERR << "ContextDependency: the tree is NULL";
  ExpectToken(is, binary, "EndContextDependency");
  N_ = N;
  P_ = P;
  to_pdf_ = std::move(to_pdf);
}

void ContextDependency::Write(std::ostream &os, bool binary) const {
  NNET3_ASSERT(to_pdf_);
  WriteToken(os, binary, "ContextDependency");
  WriteBasicType(os, binary, N_);
  WriteBasicType(os, binary, P_);
  WriteToken(os, binary, "ToPdf");
  to_pdf_->Write(os, binary);
  WriteToken(os, binary, "EndContextDependency");
}

}  // namespace nnet3
