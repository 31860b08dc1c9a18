// nnet3/egs/example-merging.cc
#include "nnet3/egs/example-merging.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <sstream>

#include "base/log.h"
#include "nnet3/egs/example-utils.h"
#include "util/text.h"

namespace nnet3 {

int32 ExampleMergingConfig::IntSet::LargestValueInRange(
    int32 max_value) const {
  NNET3_ASSERT(!ranges.empty());
  int32 ans = 0;
  for (const auto &range : ranges) {
    if (max_value < range.first) continue;
    ans = std::max(ans, std::min(max_value, range.second));
  }
  return ans;
}

void ExampleMergingConfig::Register(OptionsItf *opts) {
  opts->Register("compress", &compress,
                 "Store the merged examples' input matrices compressed "
                 "(worth it only for examples written to disk)");
  opts->Register("measure-output-frames", &measure_output_frames,
                 "This value will be ignored (included for back-"
                 "compatibility)");
  opts->Register("discard-partial-minibatches", &discard_partial_minibatches,
                 "This value will be ignored (included for back-"
                 "compatibility)");
  opts->Register("minibatch-size", &minibatch_size,
                 "String controlling the minibatch size. May be a single "
                 "integer (e.g. 256), a list of sizes and ranges of sizes "
                 "(e.g. 64,128 or 32:64,128; the largest applies while "
                 "input continues, the others are for the end of the input), "
                 "or a list of rules EGSIZE=SIZES separated by '/', e.g. "
                 "128=64:128,256/256=32:64, where EGSIZE is an example size "
                 "(its largest number of indexes) and the rule with the "
                 "nearest EGSIZE applies.");
}

bool ExampleMergingConfig::ParseIntSet(const std::string &str,
                                       IntSet *int_set) {
  std::vector<std::string> parts;
  SplitStringToVector(str, ",", false, &parts);
  if (parts.empty()) return false;
  int_set->largest_size = 0;
  int_set->ranges.resize(parts.size());
  for (size_t i = 0; i < parts.size(); i++) {
    std::vector<int32> range;
    if (!SplitStringToIntegers(parts[i], ":", false, &range)) return false;
    if (range.size() < 1 || range.size() > 2 || range[0] > range.back() ||
        range[0] <= 0)
      return false;
    int_set->ranges[i] = std::make_pair(range[0], range.back());
    int_set->largest_size = std::max(int_set->largest_size, range.back());
  }
  return true;
}

void ExampleMergingConfig::ComputeDerived() {
  if (measure_output_frames != "deprecated")
    NNET3_WARN << "The --measure-output-frames option is deprecated and "
               << "will be ignored.";
  if (discard_partial_minibatches != "deprecated")
    NNET3_WARN << "The --discard-partial-minibatches option is deprecated "
               << "and will be ignored.";
  std::vector<std::string> rule_strs;
  SplitStringToVector(minibatch_size, "/", false, &rule_strs);
  if (rule_strs.empty())
    NNET3_ERR << "Invalid option --minibatch-size=" << minibatch_size;
  rules.assign(rule_strs.size(), std::make_pair(0, IntSet()));
  for (size_t i = 0; i < rule_strs.size(); i++) {
    const std::string &rule = rule_strs[i];
    if (rule.find('=') != std::string::npos) {
      std::vector<std::string> halves;
      SplitStringToVector(rule, "=", false, &halves);
      if (halves.size() != 2 ||
          !ConvertStringToInteger(halves[0], &rules[i].first) ||
          !ParseIntSet(halves[1], &rules[i].second))
        NNET3_ERR << "Could not parse option --minibatch-size="
                  << minibatch_size;
    } else {
      if (rule_strs.size() != 1)
        NNET3_ERR << "Could not parse option --minibatch-size="
                  << minibatch_size << " (all rules must have "
                  << "eg-size specified if >1 rule)";
      if (!ParseIntSet(rule, &rules[i].second))
        NNET3_ERR << "Could not parse option --minibatch-size="
                  << minibatch_size;
    }
  }
  std::vector<int32> eg_sizes;
  for (const auto &rule : rules) eg_sizes.push_back(rule.first);
  std::sort(eg_sizes.begin(), eg_sizes.end());
  if (std::adjacent_find(eg_sizes.begin(), eg_sizes.end()) != eg_sizes.end())
    NNET3_ERR << "Invalid --minibatch-size=" << minibatch_size
              << " (repeated example-sizes)";
}

int32 ExampleMergingConfig::MinibatchSize(int32 size_of_eg,
                                          int32 num_available_egs,
                                          bool input_ended) const {
  NNET3_ASSERT(num_available_egs > 0 && size_of_eg > 0);
  if (rules.empty())
    NNET3_ERR << "ExampleMergingConfig: ComputeDerived() was not called";
  int32 min_distance = std::numeric_limits<int32>::max(), closest = 0;
  for (size_t i = 0; i < rules.size(); i++) {
    int32 distance = std::abs(size_of_eg - rules[i].first);
    if (distance < min_distance) {
      min_distance = distance;
      closest = static_cast<int32>(i);
    }
  }
  const IntSet &set = rules[closest].second;
  if (!input_ended)
    return set.largest_size <= num_available_egs ? set.largest_size : 0;
  return set.LargestValueInRange(num_available_egs);
}

void ExampleMergingStats::WroteExample(int32 example_size,
                                       size_t structure_hash,
                                       int32 minibatch_size) {
  stats_[std::make_pair(example_size, structure_hash)]
      .minibatch_to_num_written[minibatch_size]++;
}

void ExampleMergingStats::DiscardedExamples(int32 example_size,
                                            size_t structure_hash,
                                            int32 num_discarded) {
  stats_[std::make_pair(example_size, structure_hash)].num_discarded +=
      num_discarded;
}

void ExampleMergingStats::PrintStats() const {
  NNET3_LOG << "Merged specific eg types as follows [format: <eg-size1>="
            << "{<mb-size1>-><num-minibatches1>,<mbsize2>-><num-minibatches2>"
            << ".../d=<num-discarded>},<egs-size2>={...},... (note,egs-size "
            << "== number of input frames including context).";
  std::ostringstream specific;
  int64 num_types = 0, discarded = 0, discarded_size = 0, kept = 0,
        kept_size = 0, num_minibatches = 0, num_mb_types = 0;
  for (auto it = stats_.begin(); it != stats_.end(); ++it) {
    int32 eg_size = it->first.first;
    if (it != stats_.begin()) specific << ",";
    specific << eg_size << "={";
    const StatsForExampleSize &s = it->second;
    num_types++;
    discarded += s.num_discarded;
    discarded_size += static_cast<int64>(s.num_discarded) * eg_size;
    bool first = true;
    for (const auto &mb : s.minibatch_to_num_written) {
      if (!first) specific << ",";
      first = false;
      specific << mb.first << "->" << mb.second;
      num_mb_types++;
      num_minibatches += mb.second;
      kept += static_cast<int64>(mb.second) * mb.first;
      kept_size += static_cast<int64>(mb.second) * mb.first * eg_size;
    }
    specific << ",d=" << s.num_discarded << "}";
  }
  NNET3_LOG << specific.str();
  int64 total = discarded + kept;
  std::ostringstream os;
  os << std::setprecision(4);
  os << "Processed " << total << " egs of avg. size "
     << (total > 0 ? (discarded_size + kept_size) * 1.0f / total : 0.0f)
     << " into " << num_minibatches << " minibatches, discarding "
     << (total > 0 ? discarded * 100.0f / total : 0.0f)
     << "% of egs.  Avg minibatch size was "
     << (num_minibatches > 0 ? kept * 1.0f / num_minibatches : 0.0f)
     << ", #distinct types of egs/minibatches was " << num_types << "/"
     << num_mb_types;
  NNET3_LOG << os.str();
}

ExampleMerger::ExampleMerger(const ExampleMergingConfig &config,
                             NnetExampleWriter *writer)
    : config_(config), writer_(writer) {}

ExampleMerger::~ExampleMerger() {}

void ExampleMerger::AcceptExample(NnetExample *eg) {
  NNET3_ASSERT(!finished_);
  NnetExampleStructureHasher hasher;
  NnetExampleStructureCompare compare;
  size_t hash = hasher(*eg);
  Group *group = nullptr;
  size_t g = 0;
  for (; g < groups_.size(); g++) {
    if (groups_[g]->hash == hash && compare(groups_[g]->egs[0], *eg)) {
      group = groups_[g].get();
      break;
    }
  }
  if (group == nullptr) {
    groups_.emplace_back(new Group());
    group = groups_.back().get();
    group->hash = hash;
  }
  group->egs.emplace_back();
  group->egs.back().Swap(eg);
  int32 eg_size = GetNnetExampleSize(group->egs[0]);
  int32 minibatch_size = config_.MinibatchSize(
      eg_size, static_cast<int32>(group->egs.size()), false);
  if (minibatch_size != 0) {
    NNET3_ASSERT(minibatch_size == static_cast<int32>(group->egs.size()));
    std::vector<NnetExample> egs;
    egs.swap(group->egs);
    groups_.erase(groups_.begin() + g);
    WriteMinibatch(&egs);
  }
}

void ExampleMerger::WriteMinibatch(std::vector<NnetExample> *egs) {
  NNET3_ASSERT(!egs->empty());
  int32 eg_size = GetNnetExampleSize((*egs)[0]);
  size_t hash = NnetExampleStructureHasher()((*egs)[0]);
  int32 minibatch_size = static_cast<int32>(egs->size());
  stats_.WroteExample(eg_size, hash, minibatch_size);
  NnetExample merged;
  MergeExamples(*egs, config_.compress, &merged);
  std::ostringstream key;
  key << "merged-" << (num_egs_written_++) << "-" << minibatch_size;
  writer_->Write(key.str(), merged);
}

void ExampleMerger::Finish() {
  if (finished_) return;
  finished_ = true;
  std::vector<std::unique_ptr<Group> > groups;
  groups.swap(groups_);
  for (auto &group : groups) {
    std::vector<NnetExample> &vec = group->egs;
    int32 eg_size = GetNnetExampleSize(vec[0]);
    size_t begin = 0;
    int32 minibatch_size;
    while (begin < vec.size() &&
           (minibatch_size = config_.MinibatchSize(
                eg_size, static_cast<int32>(vec.size() - begin), true)) != 0) {
      std::vector<NnetExample> egs(minibatch_size);
      for (int32 i = 0; i < minibatch_size; i++) egs[i].Swap(&vec[begin + i]);
      begin += minibatch_size;
      WriteMinibatch(&egs);
    }
    if (begin < vec.size())
      stats_.DiscardedExamples(eg_size, group->hash,
                               static_cast<int32>(vec.size() - begin));
  }
  stats_.PrintStats();
}

}  // namespace nnet3
