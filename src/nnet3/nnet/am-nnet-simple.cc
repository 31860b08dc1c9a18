// nnet3/nnet/am-nnet-simple.cc
// The network-and-priors part of a .mdl (see am-nnet-simple.h).
#include "nnet3/nnet/am-nnet-simple.h"

#include <sstream>

#include "base/io.h"
#include "base/log.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/stream.h"

namespace nnet3 {

AmNnetSimple::AmNnetSimple(const Nnet &nnet) : nnet_(nnet) { SetContext(); }

void AmNnetSimple::SetContext() {
  if (!IsSimpleNnet(nnet_))
    NNET3_ERR << "An acoustic model needs a simple network (one input named "
              << "'input', optionally 'ivector', and an output named "
              << "'output'); this one is not";
  ComputeSimpleNnetContext(nnet_, &left_context_, &right_context_);
}

int32 AmNnetSimple::NumPdfs() const {
  int32 ans = nnet_.OutputDim("output");
  if (ans <= 0) NNET3_ERR << "The acoustic model's network has no output";
  return ans;
}

void AmNnetSimple::SetNnet(const Nnet &nnet) {
  nnet_ = nnet;
  SetContext();
  if (priors_.Dim() != 0 && priors_.Dim() != nnet_.OutputDim("output")) {
    NNET3_WARN << "Dropping the priors: they have dimension " << priors_.Dim()
               << " but the new network's output has dimension "
               << nnet_.OutputDim("output");
    priors_.Resize(0);
  }
}

void AmNnetSimple::SetPriors(const VectorBase<BaseFloat> &priors) {
  if (priors.Dim() != 0 && priors.Dim() != nnet_.OutputDim("output"))
    NNET3_ERR << "Priors of dimension " << priors.Dim() << " for a network "
              << "with output dimension " << nnet_.OutputDim("output");
  priors_.Resize(priors.Dim());
  priors_.CopyFromVec(priors);
}

void AmNnetSimple::Read(std::istream &is, bool binary) {
  nnet_.Read(is, binary);
  ExpectToken(is, binary, "<LeftContext>");
  ReadBasicType(is, binary, &left_context_);
  ExpectToken(is, binary, "<RightContext>");
  ReadBasicType(is, binary, &right_context_);
  // The stored values are not trusted: they are recomputed.
  SetContext();
  ExpectToken(is, binary, "<Priors>");
  Vector<BaseFloat> priors;
  priors.Read(is, binary);
  SetPriors(priors);
}

void AmNnetSimple::Write(std::ostream &os, bool binary) const {
  nnet_.Write(os, binary);
  WriteToken(os, binary, "<LeftContext>");
  WriteBasicType(os, binary, left_context_);
  WriteToken(os, binary, "<RightContext>");
  WriteBasicType(os, binary, right_context_);
  WriteToken(os, binary, "<Priors>");
  priors_.Write(os, binary);
}

std::string AmNnetSimple::Info() const {
  std::ostringstream os;
  os << "input-dim: " << nnet_.InputDim("input") << "\n";
  os << "ivector-dim: " << nnet_.InputDim("ivector") << "\n";
  os << "num-pdfs: " << nnet_.OutputDim("output") << "\n";
  os << "prior-dimension: " << priors_.Dim() << "\n";
  if (priors_.Dim() != 0) {
    os << "prior-sum: " << priors_.Sum() << "\n";
    os << "prior-min: " << priors_.Min() << "\n";
    os << "prior-max: " << priors_.Max() << "\n";
  }
  os << "# Nnet info follows.\n";
  return os.str() + nnet_.Info();
}

void ReadAmNnetSimple(const std::string &rxfilename, Nnet *nnet,
                      Vector<BaseFloat> *priors) {
  bool binary;
  Input ki(rxfilename, &binary);
  nnet->Read(ki.Stream(), binary);
  int32 left_context, right_context;
  std::string token;
  ki.Stream() >> std::ws;
  if (ki.Stream().peek() != EOF) ReadToken(ki.Stream(), binary, &token);
  if (token != "<LeftContext>")
    NNET3_ERR << "Reading " << PrintableRxfilename(rxfilename)
              << " with --use-priors: expected <LeftContext> after the "
              << "network (is it a .mdl file?), got "
              << (token.empty() ? std::string("end of file")
                                : PrintableString(token));
  ReadBasicType(ki.Stream(), binary, &left_context);
  ExpectToken(ki.Stream(), binary, "<RightContext>");
  ReadBasicType(ki.Stream(), binary, &right_context);
  ExpectToken(ki.Stream(), binary, "<Priors>");
  priors->Read(ki.Stream(), binary);
}

}  // namespace nnet3
