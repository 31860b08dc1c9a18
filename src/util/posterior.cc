// util/posterior.cc
#include "util/posterior.h"

#include <sstream>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

void WritePosterior(std::ostream &os, bool binary, const Posterior &post) {
  if (binary) {
    WriteBasicType(os, binary, static_cast<int32>(post.size()));
    for (const auto &frame : post) {
      WriteBasicType(os, binary, static_cast<int32>(frame.size()));
      for (const auto &p : frame) {
        WriteBasicType(os, binary, p.first);
        WriteBasicType(os, binary, p.second);
      }
    }
  } else {
    for (const auto &frame : post) {
      os << "[ ";
      for (const auto &p : frame) os << p.first << ' ' << p.second << ' ';
      os << "] ";
    }
    os << '\n';
  }
  if (os.fail()) NNET3_ERR << "Write failure writing a Posterior";
}

void ReadPosterior(std::istream &is, bool binary, Posterior *post) {
  post->clear();
  if (binary) {
    int32 num_frames;
    ReadBasicType(is, true, &num_frames);
    if (num_frames < 0)
      NNET3_ERR << "Reading Posterior: negative frame count " << num_frames;
    post->reserve(internal::ReserveSize(num_frames));
    for (int32 t = 0; t < num_frames; t++) {
      int32 n;
      ReadBasicType(is, true, &n);
      if (n < 0)
        NNET3_ERR << "Reading Posterior: negative pair count " << n
                  << " for frame " << t;
      std::vector<std::pair<int32, BaseFloat> > frame;
      frame.reserve(internal::ReserveSize(n));
      for (int32 i = 0; i < n; i++) {
        std::pair<int32, BaseFloat> p;
        ReadBasicType(is, true, &p.first);
        ReadBasicType(is, true, &p.second);
        frame.push_back(p);
      }
      post->push_back(std::move(frame));
    }
    return;
  }
  std::string line = internal::ReadHolderLine(is, "Posterior");
  std::istringstream line_is(line);
  while (true) {
    line_is >> std::ws;
    if (line_is.eof()) break;
    std::string bracket;
    line_is >> bracket;
    if (bracket != "[")
      NNET3_ERR << "Reading Posterior: expected '[', got '"
                << PrintableString(bracket) << "' in line '"
                << PrintableString(line, 100) << "'";
    std::vector<std::pair<int32, BaseFloat> > frame;
    while (true) {
      line_is >> std::ws;
      if (line_is.peek() == ']') {
        line_is.get();
        break;
      }
      std::pair<int32, BaseFloat> p;
      line_is >> p.first >> p.second;
      if (line_is.fail())
        NNET3_ERR << "Reading Posterior: expected 'id weight' pairs or ']' "
                  << "in line '" << PrintableString(line, 100) << "'";
      frame.push_back(p);
    }
    post->push_back(std::move(frame));
  }
}

bool PosteriorHolder::Write(std::ostream &os, bool binary, const T &t) {
  InitKaldiOutputStream(os, binary);
  WritePosterior(os, binary, t);
  return true;
}

bool PosteriorHolder::Read(std::istream &is) {
  t_.clear();
  bool binary = internal::ReadHolderHeader(is, "PosteriorHolder");
  ReadPosterior(is, binary, &t_);
  return true;
}

}  // namespace nnet3
