// nnet3/nnet/am-nnet-simple.cc
// Reading a .mdl's network and priors (see am-nnet-simple.h).
#include "nnet3/nnet/am-nnet-simple.h"

#include "base/io.h"
#include "base/log.h"
#include "util/stream.h"

namespace nnet3 {

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
