// tree/event-map.cc
// Decision-tree nodes: lookup, enumeration and Kaldi-format I/O (see
// event-map.h).
#include "tree/event-map.h"

#include <algorithm>
#include <string>

#include "base/io.h"
#include "base/log.h"

namespace nnet3 {

namespace {

// Deeper trees than this are taken for corrupt input (real trees are a few
// dozen levels deep); the bound keeps the recursive reader off the end of
// the stack.
const int kMaxTreeDepth = 10000;

EventMap *ReadNode(std::istream &is, bool binary, int depth);

ConstantEventMap *ReadConstant(std::istream &is, bool binary) {
  ExpectToken(is, binary, "CE");
  EventAnswerType answer;
  ReadBasicType(is, binary, &answer);
  return new ConstantEventMap(answer);
}

TableEventMap *ReadTable(std::istream &is, bool binary, int depth) {
  ExpectToken(is, binary, "TE");
  EventKeyType key;
  ReadBasicType(is, binary, &key);
  uint32 size;
  ReadBasicType(is, binary, &size);
  // Every entry takes at least "CE " plus an integer, or "NULL ".
  CheckDeclaredSize(is, size, 5, "TableEventMap: the table size");
  ExpectToken(is, binary, "(");
  std::vector<EventMap *> table;
  table.reserve(BoundedReserve<EventMap *>(size));
  try {
    for (uint32 i = 0; i < size; i++)
      table.push_back(ReadNode(is, binary, depth + 1));
    ExpectToken(is, binary, ")");
  } catch (...) {
    for (EventMap *m : table) delete m;
    throw;
  }
  return new TableEventMap(key, std::move(table));
}

SplitEventMap *ReadSplit(std::istream &is, bool binary, int depth) {
  ExpectToken(is, binary, "SE");
  EventKeyType key;
  ReadBasicType(is, binary, &key);
  std::vector<EventValueType> yes_set;
  ReadIntegerVector(is, binary, &yes_set);
  for (size_t i = 1; i < yes_set.size(); i++)
    if (yes_set[i - 1] >= yes_set[i])
      NNET3_ERR << "SplitEventMap: the set of values for key " << key
                << " is not sorted and unique, at file position "
                << StreamPosition(is);
  ExpectToken(is, binary, "{");
  std::unique_ptr<EventMap> yes(ReadNode(is, binary, depth + 1));
  std::unique_ptr<EventMap> no(ReadNode(is, binary, depth + 1));
  ExpectToken(is, binary, "}");
  if (!yes || !no)
    NNET3_ERR << "SplitEventMap: a NULL branch (both branches must have "
              << "answers), before file position " << StreamPosition(is);
  return new SplitEventMap(key, std::move(yes_set), yes.release(),
                           no.release());
}

EventMap *ReadNode(std::istream &is, bool binary, int depth) {
  if (depth > kMaxTreeDepth)
    NNET3_ERR << "EventMap: the tree is nested more than " << kMaxTreeDepth
              << " levels deep (a corrupt file?) at file position "
              << StreamPosition(is);
  int c = Peek(is, binary);
  switch (c) {
    case 'N':
      ExpectToken(is, binary, "NULL");
      return nullptr;
    case 'C':
      return ReadConstant(is, binary);
    case 'T':
      return ReadTable(is, binary, depth);
    case 'S':
      return ReadSplit(is, binary, depth);
    default:
      break;
  }
  std::string what = c == EOF ? std::string("end of file")
                              : "character '" + std::string(1, char(c)) + "'";
  NNET3_ERR << "EventMap: expected one of CE, TE, SE or NULL, got " << what
            << " at file position " << StreamPosition(is);
  return nullptr;
}

}  // namespace

EventAnswerType EventMap::MaxResult() const {
  std::vector<EventAnswerType> answers;
  MultiMap(EventType(), &answers);
  if (answers.empty()) return -1;
  return *std::max_element(answers.begin(), answers.end());
}

EventMap *EventMap::Read(std::istream &is, bool binary) {
  return ReadNode(is, binary, 0);
}

void EventMap::Write(std::ostream &os, bool binary, const EventMap *map) {
  if (map == nullptr)
    WriteToken(os, binary, "NULL");
  else
    map->Write(os, binary);
}

bool EventMap::Lookup(const EventType &event, EventKeyType key,
                      EventValueType *value) {
  auto it = std::lower_bound(
      event.begin(), event.end(), key,
      [](const std::pair<EventKeyType, EventValueType> &p, EventKeyType k) {
        return p.first < k;
      });
  if (it == event.end() || it->first != key) return false;
  *value = it->second;
  return true;
}

bool ConstantEventMap::Map(const EventType &, EventAnswerType *ans) const {
  *ans = answer_;
  return true;
}

void ConstantEventMap::MultiMap(const EventType &,
                                std::vector<EventAnswerType> *ans) const {
  ans->push_back(answer_);
}

void ConstantEventMap::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "CE");
  WriteBasicType(os, binary, answer_);
}

TableEventMap::TableEventMap(EventKeyType key, std::vector<EventMap *> table)
    : key_(key) {
  table_.reserve(table.size());
  for (EventMap *m : table) table_.emplace_back(m);
}

bool TableEventMap::Map(const EventType &event, EventAnswerType *ans) const {
  EventValueType value;
  if (!Lookup(event, key_, &value)) return false;
  if (value < 0 || static_cast<size_t>(value) >= table_.size() ||
      !table_[value])
    return false;
  return table_[value]->Map(event, ans);
}

void TableEventMap::MultiMap(const EventType &event,
                             std::vector<EventAnswerType> *ans) const {
  EventValueType value;
  if (Lookup(event, key_, &value)) {
    if (value >= 0 && static_cast<size_t>(value) < table_.size() &&
        table_[value])
      table_[value]->MultiMap(event, ans);
    return;
  }
  for (const auto &m : table_)
    if (m) m->MultiMap(event, ans);
}

void TableEventMap::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "TE");
  WriteBasicType(os, binary, key_);
  WriteBasicType(os, binary, static_cast<uint32>(table_.size()));
  WriteToken(os, binary, "(");
  for (const auto &m : table_) EventMap::Write(os, binary, m.get());
  WriteToken(os, binary, ")");
  if (!binary) os << '\n';
}

EventMap *TableEventMap::Copy() const {
  std::vector<EventMap *> table;
  for (const auto &m : table_) table.push_back(m ? m->Copy() : nullptr);
  return new TableEventMap(key_, std::move(table));
}

SplitEventMap::SplitEventMap(EventKeyType key,
                             std::vector<EventValueType> yes_set,
                             EventMap *yes, EventMap *no)
    : key_(key), yes_set_(std::move(yes_set)), yes_(yes), no_(no) {
  NNET3_ASSERT(yes_ && no_);
}

bool SplitEventMap::InYesSet(EventValueType value) const {
  return std::binary_search(yes_set_.begin(), yes_set_.end(), value);
}

bool SplitEventMap::Map(const EventType &event, EventAnswerType *ans) const {
  EventValueType value;
  if (!Lookup(event, key_, &value)) return false;
  return (InYesSet(value) ? yes_ : no_)->Map(event, ans);
}

void SplitEventMap::MultiMap(const EventType &event,
                             std::vector<EventAnswerType> *ans) const {
  EventValueType value;
  if (Lookup(event, key_, &value)) {
    (InYesSet(value) ? yes_ : no_)->MultiMap(event, ans);
  } else {
    yes_->MultiMap(event, ans);
    no_->MultiMap(event, ans);
  }
}

void SplitEventMap::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "SE");
  WriteBasicType(os, binary, key_);
  WriteIntegerVector(os, binary, yes_set_);
  WriteToken(os, binary, "{");
  yes_->Write(os, binary);
  no_->Write(os, binary);
  WriteToken(os, binary, "}");
  if (!binary) os << '\n';
}

EventMap *SplitEventMap::Copy() const {
  return new SplitEventMap(key_, yes_set_, yes_->Copy(), no_->Copy());
}

}  // namespace nnet3
