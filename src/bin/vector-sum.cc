// bin/vector-sum.cc
// Adds vectors, in Kaldi's three forms chosen by the arguments:
//   tables to a table:  vector-sum ark:a ark:b ... ark:out  (per key of the
//                       first table; keys missing from the others warn);
//   one table to a file: vector-sum ark:vecs sum.vec  (the sum of all);
//   files to a file:     vector-sum 1.vec 2.vec ... sum.vec
// Sums of the table form are kept in double, then written as float.
#include <memory>
#include <vector>

#include "bin/cli.h"
#include "matrix/table-types.h"
#include "util/stream.h"
#include "util/table-spec.h"

namespace nnet3 {

namespace {

bool IsTable(const std::string &arg) {
  return ClassifyRspecifier(arg, nullptr, nullptr) != kNoRspecifier;
}

// Tables to a table, keyed by the first table.
int SumTables(const ParseOptions &po) {
  const int32 n = po.NumArgs();
  SequentialBaseFloatVectorReader first(po.GetArg(1));
  std::vector<std::unique_ptr<RandomAccessBaseFloatVectorReader> > others;
  for (int32 i = 2; i < n; i++)
    others.emplace_back(new RandomAccessBaseFloatVectorReader(po.GetArg(i)));
  BaseFloatVectorWriter writer(po.GetArg(n));
  int32 num_keys = 0, num_vectors = 0, num_missing = 0, num_mismatched = 0;
  for (; !first.Done(); first.Next(), num_keys++) {
    const std::string key = first.Key();
    Vector<BaseFloat> sum(first.Value());
    num_vectors++;
    for (size_t i = 0; i < others.size(); i++) {
      if (!others[i]->HasKey(key)) {
        NNET3_WARN << "No vector for key " << key << " in "
                   << po.GetArg(i + 2);
        num_missing++;
        continue;
      }
      const Vector<BaseFloat> &v = others[i]->Value(key);
      num_vectors++;
      if (v.Dim() != sum.Dim()) {
        NNET3_WARN << "Key " << key << ": dimension " << v.Dim() << " in "
                   << po.GetArg(i + 2) << " but " << sum.Dim() << " in "
                   << po.GetArg(1) << "; not added";
        num_mismatched++;
        continue;
      }
      sum.AddVec(1.0, v);
    }
    writer.Write(key, sum);
  }
  NNET3_LOG << "Processed " << num_keys << " utterances: with a total of "
            << num_vectors << " vectors across " << (n - 1)
            << " different systems";
  NNET3_LOG << "Produced output for " << num_keys << " utterances; "
            << num_missing << " total missing vectors";
  return (num_keys != 0 && num_missing < num_keys - num_missing) ? 0 : 1;
}

// All the vectors of one table into one file.
int SumTableToFile(const ParseOptions &po, bool binary) {
  SequentialBaseFloatVectorReader reader(po.GetArg(1));
  Vector<double> sum;
  int32 num_done = 0, num_err = 0;
  for (; !reader.Done(); reader.Next()) {
    const Vector<BaseFloat> &v = reader.Value();
    if (v.Dim() == 0) {
      NNET3_WARN << "Empty vector for key " << reader.Key();
      num_err++;
      continue;
    }
    if (sum.Dim() == 0) sum.Resize(v.Dim());
    if (v.Dim() != sum.Dim()) {
      NNET3_WARN << "Key " << reader.Key() << ": dimension " << v.Dim()
                 << ", the sum so far has " << sum.Dim() << "; skipped";
      num_err++;
      continue;
    }
    sum.AddVec(1.0, v);
    num_done++;
  }
  WriteKaldiObject(Vector<BaseFloat>(sum), po.GetArg(2), binary);
  NNET3_LOG << "Summed " << num_done << " vectors, " << num_err
            << " with errors; wrote sum to "
            << PrintableWxfilename(po.GetArg(2));
  return (num_done > 0 && num_err < num_done) ? 0 : 1;
}

// Single files into one file; a dimension mismatch is an error.
int SumFiles(const ParseOptions &po, bool binary) {
  const int32 n = po.NumArgs();
  Vector<BaseFloat> sum;
  for (int32 i = 1; i < n; i++) {
    if (IsTable(po.GetArg(i)))
      NNET3_ERR << "When the first and last arguments are files, the others "
                << "must be files too, not " << po.GetArg(i);
    bool binary_in;
    Input ki(po.GetArg(i), &binary_in);
    try {
      sum.Read(ki.Stream(), binary_in, true);
    } catch (const UserError &e) {
      NNET3_ERR << "Reading " << PrintableRxfilename(po.GetArg(i)) << ": "
                << e.message();
    }
  }
  WriteKaldiObject(sum, po.GetArg(n), binary);
  NNET3_LOG << "Summed " << (n - 1) << " vectors; wrote sum to "
            << PrintableWxfilename(po.GetArg(n));
  return 0;
}

}  // namespace

int VectorSum(int argc, char *argv[]) {
  const char *usage =
      "Adds vectors. Three forms, chosen by the arguments:\n"
      " tables to a table (per key of the first table):\n"
      "  vector-sum [options] <vector-in-rspecifier1> [<vector-in-rspecifier2> "
      "...] <vector-out-wspecifier>\n"
      "  e.g.: vector-sum ark:1.weights ark:2.weights ark:sum.weights\n"
      " all the vectors of one table to one file:\n"
      "  vector-sum [options] <vector-in-rspecifier> <vector-out-wxfilename>\n"
      "  e.g.: vector-sum --binary=false ark:vecs.ark sum.vec\n"
      " single files to one file:\n"
      "  vector-sum [options] <vector-in-rxfilename1> <vector-in-rxfilename2> "
      "... <vector-out-wxfilename>\n"
      "  e.g.: vector-sum 1.vec 2.vec 3.vec sum.vec\n"
      "See also: copy-vector, matrix-sum-rows\n";
  ParseOptions po(usage);
  bool binary = true;
  po.Register("binary", &binary,
              "Write a single-file output in binary (the file forms)");
  po.Read(argc, argv);
  const int32 n = po.NumArgs();
  if (n < 2) return UsageError(po);
  const std::string &last = po.GetArg(n);
  if (ClassifyWspecifier(last, nullptr, nullptr, nullptr) != kNoWspecifier)
    return SumTables(po);
  if (n == 2 && IsTable(po.GetArg(1))) return SumTableToFile(po, binary);
  if (!IsTable(po.GetArg(1))) return SumFiles(po, binary);
  return UsageError(po);
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::VectorSum);
}
