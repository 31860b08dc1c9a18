// tests/tree/event-map-test.cc
// EventMap nodes: lookups against the naive description of a hand-written
// tree, enumeration (MultiMap, MaxResult), copies, and bad input (each a
// UserError, none a crash).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "base/io.h"
#include "base/log.h"
#include "tree/event-map.h"
#include "tree/tree-test-util.h"

namespace nnet3 {
namespace testing {
namespace {

// The EventMap part of the hand-written triphone tree, read from text.
std::unique_ptr<EventMap> TriphoneMap() {
  std::string text = TriphoneTreeText();
  size_t b = text.find("TE"), e = text.find("EndContextDependency");
  std::istringstream is(text.substr(b, e - b));
  return std::unique_ptr<EventMap>(EventMap::Read(is, false));
}

EventType Event(int pdf_class, int left, int central, int right) {
  return {{kPdfClass, pdf_class}, {0, left}, {1, central}, {2, right}};
}

TEST(EventMap, MapAgreesWithTheTreesDescription) {
  std::unique_ptr<EventMap> map = TriphoneMap();
  for (int central = 0; central <= 3; central++)
    for (int left = 0; left <= 3; left++)
      for (int pdf_class = 0; pdf_class <= 3; pdf_class++) {
        EventAnswerType ans = -7;
        bool ok = map->Map(Event(pdf_class, left, central, 1), &ans);
        int expected = NaiveTriphonePdf(left, central, pdf_class);
        EXPECT_EQ(ok, expected >= 0) << left << " " << central << " "
                                     << pdf_class;
        if (ok) {
          EXPECT_EQ(ans, expected);
        }
      }
  // A key the event lacks gives no answer.
  EventAnswerType ans;
  EXPECT_FALSE(map->Map({{kPdfClass, 0}}, &ans));
}

TEST(EventMap, MultiMapEnumeratesUnspecifiedKeys) {
  std::unique_ptr<EventMap> map = TriphoneMap();
  std::vector<EventAnswerType> all;
  map->MultiMap(EventType(), &all);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<EventAnswerType>{0, 1, 2, 3, 4}));
  EXPECT_EQ(map->MaxResult(), 4);
  std::vector<EventAnswerType> some;
  map->MultiMap({{kPdfClass, 0}, {1, 2}}, &some);  // left phone unknown
  std::sort(some.begin(), some.end());
  EXPECT_EQ(some, (std::vector<EventAnswerType>{2, 3}));
  std::unique_ptr<EventMap> copy(map->Copy());
  std::ostringstream a, b;
  map->Write(a, true);
  copy->Write(b, true);
  EXPECT_EQ(a.str(), b.str());
  TableEventMap empty(0, {});
  EXPECT_EQ(empty.MaxResult(), -1);
}

void ExpectReadError(const std::string &bytes, bool binary,
                     const std::string &fragment) {
  std::istringstream is(bytes);
  try {
    delete EventMap::Read(is, binary);
    ADD_FAILURE() << "no error for " << PrintableString(bytes);
  } catch (const UserError &e) {
    EXPECT_NE(std::string(e.message()).find(fragment), std::string::npos)
        << e.message();
  }
}

TEST(EventMap, BadInputIsAUserError) {
  ExpectReadError("XE 3 ", false, "expected one of CE, TE, SE or NULL");
  ExpectReadError("", false, "end of file");
  ExpectReadError("SE 0 [ 2 1 ]\n{ CE 0 CE 1 } ", false, "sorted");
  ExpectReadError("SE 0 [ 1 ]\n{ NULL CE 1 } ", false, "NULL branch");
  ExpectReadError("TE 0 2 ( CE 0 CE 1 CE 2 ) ", false, "");
  ExpectReadError("TE 0 2 ( CE 0 ", false, "");
  // A declared table size far beyond the bytes present.
  ExpectReadError(Tok("TE") + I32(0) + U32(0xffffffffu) + Tok("("), true,
                  "table size");
  // Nesting deep enough to exhaust the stack if unbounded.
  std::string deep;
  for (int i = 0; i < 200000; i++) deep += "TE 0 1 ( ";
  ExpectReadError(deep, false, "nested more than");
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
