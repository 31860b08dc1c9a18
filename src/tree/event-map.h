// tree/event-map.h
// The decision-tree nodes of Kaldi's context-dependency files: an EventMap
// maps an "event" (a sorted list of (key, value) pairs such as
// (-1, pdf-class), (0, left phone), (1, central phone)) to an integer answer
// (a pdf-id). Three node types exist, each with its Kaldi token:
//   CE answer                      ConstantEventMap: always "answer";
//   TE key size ( child... )       TableEventMap: child number "value of
//                                  key"; a child may be NULL (no answer);
//   SE key [ yes-set ] { yes no }  SplitEventMap: "yes" when the value of
//                                  key is in the sorted yes-set, else "no".
// Reading and writing follow Kaldi's layout byte for byte in both binary and
// text mode (tokens, integers as WriteBasicType writes them, TE's size as an
// unsigned 32-bit integer, the yes-set as an integer vector, a newline after
// ")" and "}" in text mode). The reader bounds the nesting depth and the
// declared table sizes, so a corrupt file is a UserError, never a crash.
#ifndef NNET3_TREE_EVENT_MAP_H_
#define NNET3_TREE_EVENT_MAP_H_

#include <istream>
#include <memory>
#include <ostream>
#include <utility>
#include <vector>

#include "base/types.h"

namespace nnet3 {

typedef int32 EventKeyType;
typedef int32 EventValueType;
typedef int32 EventAnswerType;
// Sorted on the key, keys unique.
typedef std::vector<std::pair<EventKeyType, EventValueType> > EventType;

// The key that holds the pdf-class in the events a ContextDependency builds.
const EventKeyType kPdfClass = -1;

class EventMap {
 public:
  virtual ~EventMap() {}
  // The answer for a fully specified event; false if the tree has no answer
  // (a NULL table entry, or a key the event lacks).
  virtual bool Map(const EventType &event, EventAnswerType *ans) const = 0;
  // Appends every answer reachable from "event", where keys the event lacks
  // match any value (duplicates possible).
  virtual void MultiMap(const EventType &event,
                        std::vector<EventAnswerType> *ans) const = 0;
  virtual void Write(std::ostream &os, bool binary) const = 0;
  virtual EventMap *Copy() const = 0;
  // The largest answer anywhere in the tree, or -1 if it has none.
  EventAnswerType MaxResult() const;

  // Reads any node (or "NULL", returned as nullptr).
  static EventMap *Read(std::istream &is, bool binary);
  // Writes "map", or the token NULL for nullptr.
  static void Write(std::ostream &os, bool binary, const EventMap *map);
  // The value of "key" in the sorted event; false if absent.
  static bool Lookup(const EventType &event, EventKeyType key,
                     EventValueType *value);
};

class ConstantEventMap : public EventMap {
 public:
  explicit ConstantEventMap(EventAnswerType answer) : answer_(answer) {}
  bool Map(const EventType &event, EventAnswerType *ans) const override;
  void MultiMap(const EventType &event,
                std::vector<EventAnswerType> *ans) const override;
  void Write(std::ostream &os, bool binary) const override;
  EventMap *Copy() const override { return new ConstantEventMap(answer_); }
  EventAnswerType answer() const { return answer_; }

 private:
  EventAnswerType answer_;
};

class TableEventMap : public EventMap {
 public:
  // Takes ownership of the non-null entries of "table".
  TableEventMap(EventKeyType key, std::vector<EventMap *> table);
  bool Map(const EventType &event, EventAnswerType *ans) const override;
  void MultiMap(const EventType &event,
                std::vector<EventAnswerType> *ans) const override;
  void Write(std::ostream &os, bool binary) const override;
  EventMap *Copy() const override;

 private:
  EventKeyType key_;
  std::vector<std::unique_ptr<EventMap> > table_;
};

class SplitEventMap : public EventMap {
 public:
  // "yes_set" must be sorted and unique; takes ownership of yes and no
  // (both non-null).
  SplitEventMap(EventKeyType key, std::vector<EventValueType> yes_set,
                EventMap *yes, EventMap *no);
  bool Map(const EventType &event, EventAnswerType *ans) const override;
  void MultiMap(const EventType &event,
                std::vector<EventAnswerType> *ans) const override;
  void Write(std::ostream &os, bool binary) const override;
  EventMap *Copy() const override;

 private:
  bool InYesSet(EventValueType value) const;
  EventKeyType key_;
  std::vector<EventValueType> yes_set_;
  std::unique_ptr<EventMap> yes_, no_;
};

}  // namespace nnet3

#endif  // NNET3_TREE_EVENT_MAP_H_
