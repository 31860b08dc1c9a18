// tests/fuzz/table.cc
// Fuzz target: the table readers (util/table.h) over every holder that the
// tools read: float and double matrices (whichever of FM, DM, CM, CM2, CM3
// the data holds), compressed matrices, float and double vectors, int32
// vectors, posteriors, and the smaller holders (int32 vector-vector and
// pair-vector, float, token vector); binary or text as the data says;
// "ark:" and "scp:" (script lines with offsets and row/column ranges),
// read in order (SequentialTableReader) or by key (RandomAccessTableReader).
//
// Input layout:
//   byte 0     selector: bits 0-3 the holder (list in kHolders below,
//              modulo its size), bit 4 scp instead of ark, bit 5 random
//              access, bits 6-7 rspecifier options ("", "p,", "s,cs,",
//              "o,")
//   ark:       the rest is the archive file "a"
//   scp:       the script text up to the first NUL byte, then the file "a"
//              (script lines such as "k1 a:3[0:1,2:4]" read from it)
// Random access first reads the table in order to learn up to 8 keys (as
// far as that goes), then looks each up (in sorted order for "cs") with
// HasKey and Value. Every value read is written back in binary and text
// (the holder's Write), as copy-* tools do. Script text naming a pipe ('|')
// or a path ('/') is skipped; relative names are files in the scratch
// folder.
#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/fuzz-common.h"
#include "matrix/table-types.h"
#include "util/table.h"

namespace {

using namespace nnet3;

template <class Holder>
void WriteBack(const typename Holder::T &value) {
  std::ostringstream binary_os, text_os;
  Holder::Write(binary_os, true, value);
  Holder::Write(text_os, false, value);
}

template <class Holder>
void ReadTable(const std::string &rspecifier, bool random_access,
               bool sorted_access) {
  std::vector<std::string> keys;
  try {
    SequentialTableReader<Holder> reader(rspecifier);
    for (; !reader.Done(); reader.Next()) {
      if (keys.size() < 8) keys.push_back(reader.Key());
      WriteBack<Holder>(reader.Value());
    }
    reader.Close();
  } catch (const UserError &) {
    if (!random_access) throw;
  }
  if (!random_access) return;
  keys.push_back("zz");  // a key that is usually absent
  if (sorted_access) std::sort(keys.begin(), keys.end());
  RandomAccessTableReader<Holder> reader(rspecifier);
  for (const std::string &key : keys)
    if (reader.HasKey(key)) WriteBack<Holder>(reader.Value(key));
  reader.Close();
}

typedef void (*TableFunction)(const std::string &, bool, bool);
const TableFunction kHolders[] = {
    ReadTable<KaldiObjectHolder<Matrix<BaseFloat> > >,
    ReadTable<KaldiObjectHolder<Matrix<double> > >,
    ReadTable<KaldiObjectHolder<CompressedMatrix> >,
    ReadTable<KaldiObjectHolder<Vector<BaseFloat> > >,
    ReadTable<KaldiObjectHolder<Vector<double> > >,
    ReadTable<BasicVectorHolder<int32> >,
    ReadTable<PosteriorHolder>,
    ReadTable<BasicVectorVectorHolder<int32> >,
    ReadTable<BasicPairVectorHolder<int32> >,
    ReadTable<BasicHolder<BaseFloat> >,
    ReadTable<TokenVectorHolder>,
};
const size_t kNumHolders = sizeof(kHolders) / sizeof(kHolders[0]);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  const uint8_t selector = data[0];
  std::string rest(reinterpret_cast<const char *>(data) + 1, size - 1);
  const bool scp = (selector & 0x10) != 0, random = (selector & 0x20) != 0;
  static const char *const kOptions[] = {"", "p,", "s,cs,", "o,"};
  const char *options = kOptions[selector >> 6];
  std::string script, archive = rest;
  if (scp) {
    size_t nul = rest.find('\0');
    script = rest.substr(0, nul);
    archive = nul == std::string::npos ? "" : rest.substr(nul + 1);
    if (fuzz::Contains(script, '|') || fuzz::Contains(script, '/')) return 0;
  }
  fuzz::Guarded("table", [&]() {
    fuzz::ScopedQuiet quiet;
    fuzz::WriteScratchFile("a", archive);
    std::string rspecifier;
    if (scp) {
      fuzz::WriteScratchFile("s", script);
      rspecifier = std::string(options) + "scp:s";
    } else {
      rspecifier = std::string(options) + "ark:a";
    }
    kHolders[(selector & 0x0f) % kNumHolders](rspecifier, random,
                                              (selector >> 6) == 2);
  });
  return 0;
}
