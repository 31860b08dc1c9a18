// nnet3/nnet/nnet-io.cc
// Reading and writing Kaldi's raw nnet3 format, and nnet3-info's text.
#include <sstream>

#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

namespace {
// Consumes a Kaldi transition model (the part of a .mdl before the nnet) up
// to and including its closing token. The opening token has been read.
void SkipTransitionModel(std::istream &is) {
  const std::string end = "</TransitionModel>";
  size_t matched = 0;
  int c;
  while ((c = is.get()) != EOF) {
    if (static_cast<char>(c) == end[matched]) {
      if (++matched == end.size()) {
        if (std::isspace(is.peek())) is.get();
        return;
      }
    } else {
      matched = (static_cast<char>(c) == end[0]) ? 1 : 0;
    }
  }
  NNET3_ERR << "Reading a .mdl file: no </TransitionModel> before end of file";
}
}  // namespace

void Nnet::Read(std::istream &is, bool binary) {
  Destroy();
  std::string token;
  ReadToken(is, binary, &token);
  if (token == "<TransitionModel>") {
    SkipTransitionModel(is);
    ReadToken(is, binary, &token);
  }
  if (token != "<Nnet3>")
    NNET3_ERR << "Expected <Nnet3> at the start of a network, got "
              << PrintableString(token);
  // The node section: config lines up to a blank line (text even in
  // binary files).
  std::string line, config;
  std::getline(is, line);  // rest of the <Nnet3> line
  while (true) {
    if (!std::getline(is, line))
      NNET3_ERR << "Unexpected end of file in the node section of a network";
    if (line.empty() || line == "\r") break;
    config += line;
    config += '\n';
  }
  ExpectToken(is, binary, "<NumComponents>");
  int32 num_components;
  ReadBasicType(is, binary, &num_components);
  if (num_components < 0 || num_components > 100000)
    NNET3_ERR << "Bad <NumComponents> " << num_components;
  for (int32 c = 0; c < num_components; c++) {
    ExpectToken(is, binary, "<ComponentName>");
    std::string name;
    ReadToken(is, binary, &name);
    Component *component;
    try {
      component = Component::ReadNew(is, binary);
    } catch (const UserError &e) {
      NNET3_ERR << "Failed to read component " << name << ": " << e.message();
    }
    component_names_.push_back(name);
    components_.emplace_back(component);
  }
  ExpectToken(is, binary, "</Nnet3>");
  std::istringstream config_is(config);
  ReadConfig(config_is, "the network's node section");
}

void Nnet::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<Nnet3>");
  os << '\n';
  std::vector<std::string> lines;
  GetConfigLines(false, &lines);
  for (const std::string &l : lines) os << l << '\n';
  os << '\n';  // a blank line ends the node section
  WriteToken(os, binary, "<NumComponents>");
  WriteBasicType(os, binary, NumComponents());
  if (!binary) os << '\n';
  for (int32 c = 0; c < NumComponents(); c++) {
    WriteToken(os, binary, "<ComponentName>");
    WriteToken(os, binary, component_names_[c]);
    components_[c]->Write(os, binary);
    if (!binary) os << '\n';
  }
  WriteToken(os, binary, "</Nnet3>");
  if (!os.good()) NNET3_ERR << "Error writing the network";
}

std::string Nnet::Info() const {
  std::ostringstream os;
  if (IsSimpleNnet(*this)) {
    int32 left, right;
    ComputeSimpleNnetContext(*this, &left, &right);
    os << "left-context: " << left << "\n";
    os << "right-context: " << right << "\n";
  }
  os << "num-parameters: " << NumParameters(*this) << "\n";
  os << "modulus: " << Modulus() << "\n";
  std::vector<std::string> lines;
  GetConfigLines(true, &lines);
  for (const std::string &l : lines) os << l << "\n";
  for (int32 c = 0; c < NumComponents(); c++)
    os << "component name=" << component_names_[c]
       << " type=" << components_[c]->Info() << "\n";
  return os.str();
}

}  // namespace nnet3
