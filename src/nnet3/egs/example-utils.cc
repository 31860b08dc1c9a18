// nnet3/egs/example-utils.cc
#include "nnet3/egs/example-utils.h"

#include <algorithm>
#include <map>
#include <unordered_set>

#include "base/log.h"

namespace nnet3 {

void MergeExamples(const std::vector<NnetExample> &src, bool compress,
                   NnetExample *merged) {
  NNET3_ASSERT(!src.empty());
  // Names in sorted order, with the total row count and the dim of each.
  std::map<std::string, std::pair<int32, int32> > sizes_dims;
  for (const NnetExample &eg : src) {
    for (const NnetIo &io : eg.io) {
      if (static_cast<size_t>(io.features.NumRows()) != io.indexes.size())
        NNET3_ERR << "Merging examples: NnetIo '" << io.name << "' has "
                  << io.indexes.size() << " indexes but "
                  << io.features.NumRows() << " rows";
      auto it = sizes_dims.find(io.name);
      if (it == sizes_dims.end()) {
        sizes_dims[io.name] =
            std::make_pair(static_cast<int32>(io.indexes.size()),
                           io.features.NumCols());
      } else {
        if (it->second.second != io.features.NumCols())
          NNET3_ERR << "Merging examples with inconsistent feature dims: "
                    << it->second.second << " vs. " << io.features.NumCols()
                    << " for '" << io.name << "'.";
        it->second.first += static_cast<int32>(io.indexes.size());
      }
    }
  }
  int32 num_names = static_cast<int32>(sizes_dims.size());
  std::vector<NnetIo> out(num_names);
  std::map<std::string, int32> position;
  std::vector<std::vector<const GeneralMatrix *> > pieces(num_names);
  {
    int32 f = 0;
    for (const auto &p : sizes_dims) {
      out[f].name = p.first;
      out[f].indexes.reserve(p.second.first);
      position[p.first] = f++;
    }
  }
  for (size_t n = 0; n < src.size(); n++) {
    for (const NnetIo &io : src[n].io) {
      int32 f = position[io.name];
      pieces[f].push_back(&io.features);
      for (const Index &index : io.indexes) {
        if (index.n != 0)
          NNET3_ERR << "Merging examples that are already merged (NnetIo '"
                    << io.name << "' has n = " << index.n << ")";
        out[f].indexes.push_back(
            Index(static_cast<int32>(n), index.t, index.x));
      }
    }
  }
  for (int32 f = 0; f < num_names; f++) {
    AppendGeneralMatrixRows(pieces[f], &out[f].features);
    if (compress) out[f].features.Compress();
  }
  merged->io.swap(out);
}

void ShiftExampleTimes(int32 t_offset,
                       const std::vector<std::string> &exclude_names,
                       NnetExample *eg) {
  if (t_offset == 0) return;
  for (NnetIo &io : eg->io) {
    if (std::find(exclude_names.begin(), exclude_names.end(), io.name) !=
        exclude_names.end())
      continue;
    for (Index &index : io.indexes) index.t += t_offset;
  }
}

void GetComputationRequest(const Nnet &nnet, const NnetExample &eg,
                           bool need_model_derivative,
                           bool store_component_stats,
                           ComputationRequest *request) {
  request->inputs.clear();
  request->outputs.clear();
  request->need_model_derivative = need_model_derivative;
  request->store_component_stats = store_component_stats;
  for (const NnetIo &io : eg.io) {
    int32 node = nnet.GetNodeIndex(io.name);
    bool is_input = node >= 0 && nnet.IsInputNode(node),
         is_output = node >= 0 && nnet.IsOutputNode(node);
    if (!is_input && !is_output)
      NNET3_ERR << "The example's input/output '" << io.name
                << "' matches no input or output node of the network";
    std::vector<IoSpecification> &dest =
        is_input ? request->inputs : request->outputs;
    dest.push_back(IoSpecification(io.name, io.indexes,
                                   is_output && need_model_derivative));
  }
  if (request->inputs.empty())
    NNET3_ERR << "No inputs in computation request.";
  if (request->outputs.empty())
    NNET3_ERR << "No outputs in computation request.";
}

int32 GetNnetExampleSize(const NnetExample &eg) {
  int32 ans = 0;
  for (const NnetIo &io : eg.io)
    ans = std::max(ans, static_cast<int32>(io.indexes.size()));
  return ans;
}

int32 GetNumNvalues(const std::vector<NnetIo> &io) {
  std::unordered_set<int32> n_values;
  for (const NnetIo &item : io)
    for (const Index &index : item.indexes) n_values.insert(index.n);
  return static_cast<int32>(n_values.size());
}

int32 NumIndexesForIo(const NnetExample &eg, const std::string &name) {
  for (const NnetIo &io : eg.io)
    if (io.name == name) return static_cast<int32>(io.indexes.size());
  return -1;
}

}  // namespace nnet3
