// nnet3/core/descriptor-parse.cc
// Reading Descriptors from config text: tokenizing, parsing into a general
// expression tree (the over-generating grammar of descriptor.h), the
// normalisation rewrites that bring the tree into the Descriptor /
// SumDescriptor / ForwardingDescriptor hierarchy (applied in Kaldi's order,
// so the printed result is Kaldi's), and the conversion into those classes.
// Every failure is reported as one line naming the problem and, for syntax
// errors, the column and the remaining text.
#include <cctype>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "nnet3/core/config-line.h"
#include "nnet3/core/descriptor.h"
#include "util/text.h"

namespace nnet3 {

namespace {

// Thrown inside this file only; ParseDescriptor turns it into *error.
struct ParseFailure {
  std::string message;
};

[[noreturn]] void Fail(const std::string &message) {
  throw ParseFailure{message};
}

bool IsNumber(const std::string &s) {
  double d;
  return ConvertStringToReal(s, &d);
}

struct Token {
  std::string text;
  size_t pos;  // offset of its first character in the input
};

// Splits at blanks and around "(", ")", ","; on an invalid token returns
// false and sets *bad_pos to its offset.
bool TokenizeWithPositions(const std::string &input, std::vector<Token> *tokens,
                           size_t *bad_pos) {
  tokens->clear();
  const char *kBlank = " \t";
  size_t size = input.size(), start = input.find_first_not_of(kBlank);
  while (start < size) {
    char c = input[start];
    if (c == '(' || c == ')' || c == ',') {
      tokens->push_back(Token{std::string(1, c), start});
      start = input.find_first_not_of(kBlank, start + 1);
      continue;
    }
    size_t end = input.find_first_of(" \t(),", start);
    if (end == std::string::npos) end = size;
    std::string word = input.substr(start, end - start);
    if (!IsValidName(word) && !IsNumber(word)) {
      *bad_pos = start;
      return false;
    }
    tokens->push_back(Token{word, start});
    start = input.find_first_not_of(kBlank, end);
  }
  return true;
}

enum ExprType {
  kAppend, kSum, kFailover, kIfDefined, kOffset, kSwitch, kRound,
  kReplaceIndex, kScale, kConst, kNodeName
};

const char *ExprTypeName(ExprType t) {
  switch (t) {
    case kAppend: return "Append";
    case kSum: return "Sum";
    case kFailover: return "Failover";
    case kIfDefined: return "IfDefined";
    case kOffset: return "Offset";
    case kSwitch: return "Switch";
    case kRound: return "Round";
    case kReplaceIndex: return "ReplaceIndex";
    case kScale: return "Scale";
    case kConst: return "Const";
    case kNodeName: return "node name";
  }
  return "";
}

// The general (not yet normalised) expression tree. Meaning of the fields
// by type: kNodeName: value1 = node index; kOffset: value1 = t, value2 = x;
// kRound: value1 = t-modulus; kReplaceIndex: value1 = variable (kT/kX),
// value2 = value; kScale: alpha = scale; kConst: alpha = value, value1 = dim.
struct Expr {
  ExprType type;
  int32 value1, value2;
  BaseFloat alpha;
  std::vector<std::unique_ptr<Expr>> children;
  explicit Expr(ExprType t, int32 v1 = -1, int32 v2 = -1, BaseFloat a = 0.0)
      : type(t), value1(v1), value2(v2), alpha(a) {}
  // Makes *this a copy of *other's fields and takes its children.
  void TakeOver(std::unique_ptr<Expr> other) {
    type = other->type;
    value1 = other->value1;
    value2 = other->value2;
    alpha = other->alpha;
    children = std::move(other->children);
  }
};

// ------------------------------------------------------------------ parser
class Parser {
 public:
  Parser(const std::string &text, const std::vector<Token> &tokens,
         const std::vector<std::string> &node_names)
      : text_(text), tokens_(tokens), node_names_(node_names), next_(0) {}

  std::unique_ptr<Expr> ParseAll() {
    std::unique_ptr<Expr> ans = ParseExpr();
    if (next_ < tokens_.size())
      FailHere("Expected end of input after a complete descriptor");
    return ans;
  }

 private:
  bool AtEnd() const { return next_ >= tokens_.size(); }
  const std::string &Peek() const {
    static const std::string kEmpty;
    return AtEnd() ? kEmpty : tokens_[next_].text;
  }

  // "<problem>, got '<token>' at column N of descriptor '...' (remaining
  // text: '...')"; without show_got the ", got '<token>'" is left out.
  [[noreturn]] void FailHere(const std::string &problem,
                             bool show_got = true) const {
    std::ostringstream os;
    os << problem;
    if (AtEnd()) {
      os << (show_got ? ", got end of input" : "") << " at column "
         << text_.size() + 1;
    } else {
      if (show_got) os << ", got '" << PrintableString(Peek(), 60) << "'";
      os << " at column " << tokens_[next_].pos + 1;
    }
    os << " of descriptor '" << PrintableString(text_, 400) << "'";
    if (!AtEnd())
      os << " (remaining text: '"
         << PrintableString(text_.substr(tokens_[next_].pos), 80) << "')";
    Fail(os.str());
  }

  [[noreturn]] void FailTooDeep() const {
    FailHere("Descriptor nested more than " +
                 std::to_string(kMaxDescriptorDepth) +
                 " levels deep (the limit; a Sum of n terms counts as n-1"
                 " levels)",
             false);
  }

  void Expect(const std::string &token, const char *what) {
    if (Peek() != token || AtEnd())
      FailHere(std::string("Expected '") + token + "' while parsing " + what +
               "()");
    next_++;
  }

  int32 ReadInteger(const char *what, const char *which) {
    int32 ans;
    if (AtEnd() || !ConvertStringToInteger(Peek(), &ans))
      FailHere(std::string("Expected an integer (") + which +
               ") while parsing " + what + "()");
    next_++;
    return ans;
  }

  BaseFloat ReadReal(const char *what, const char *which) {
    BaseFloat ans;
    if (AtEnd() || !ConvertStringToReal(Peek(), &ans))
      FailHere(std::string("Expected a number (") + which +
               ") while parsing " + what + "()");
    next_++;
    return ans;
  }

  std::unique_ptr<Expr> ParseExpr() {
    static const ExprType kOperators[] = {
        kAppend, kSum, kFailover, kIfDefined, kOffset, kSwitch, kRound,
        kReplaceIndex, kScale, kConst};
    if (AtEnd()) FailHere("Expected a descriptor");
    if (depth_ > kMaxDescriptorDepth) FailTooDeep();
    const std::string &word = Peek();
    for (ExprType t : kOperators) {
      if (word == ExprTypeName(t)) {
        // Bounded nesting keeps this parser, the normalisation and the
        // Descriptor classes (all recursive) far from the stack's limit.
        if (depth_ >= kMaxDescriptorDepth) FailTooDeep();
        next_++;
        Expect("(", ExprTypeName(t));
        auto ans = std::make_unique<Expr>(t);
        depth_++;
        ParseArguments(ans.get());
        depth_--;
        return ans;
      }
    }
    for (size_t i = 0; i < node_names_.size(); i++) {
      if (word == node_names_[i]) {
        next_++;
        return std::make_unique<Expr>(kNodeName, static_cast<int32>(i));
      }
    }
    if (IsValidName(word))
      FailHere("Unknown node name '" + PrintableString(word, 60) + "'",
               false);
    FailHere("Expected a descriptor (a node name or an expression)");
  }

  // Parses what follows "Name(" up to and including the ")".
  void ParseArguments(Expr *e) {
    const char *name = ExprTypeName(e->type);
    switch (e->type) {
      case kAppend: case kSum: case kSwitch: {
        // Sum(a, b, c) becomes Sum(a, Sum(b, c)): each further term is one
        // more level of nesting.
        int32 saved_depth = depth_;
        e->children.push_back(ParseExpr());
        while (Peek() == "," && !AtEnd()) {
          next_++;
          if (e->type == kSum) depth_++;
          e->children.push_back(ParseExpr());
        }
        depth_ = saved_depth;
        if (Peek() != ")" || AtEnd())
          FailHere(std::string("Expected ',' or ')' while parsing ") + name +
                   "()");
        next_++;
        return;
      }
      case kFailover:
        e->children.push_back(ParseExpr());
        Expect(",", name);
        e->children.push_back(ParseExpr());
        Expect(")", name);
        return;
      case kIfDefined:
        e->children.push_back(ParseExpr());
        Expect(")", name);
        return;
      case kOffset:
        e->children.push_back(ParseExpr());
        Expect(",", name);
        e->value1 = ReadInteger(name, "t-offset");
        e->value2 = 0;
        if (Peek() == "," && !AtEnd()) {
          next_++;
          e->value2 = ReadInteger(name, "x-offset");
        }
        Expect(")", name);
        return;
      case kRound: {
        e->children.push_back(ParseExpr());
        Expect(",", name);
        size_t where = next_;
        e->value1 = ReadInteger(name, "t-modulus");
        if (e->value1 <= 0) {
          next_ = where;
          FailHere("Expected a positive t-modulus while parsing Round()");
        }
        Expect(")", name);
        return;
      }
      case kReplaceIndex:
        e->children.push_back(ParseExpr());
        Expect(",", name);
        if (Peek() == "t" && !AtEnd()) {
          e->value1 = ReplaceIndexForwardingDescriptor::kT;
        } else if (Peek() == "x" && !AtEnd()) {
          e->value1 = ReplaceIndexForwardingDescriptor::kX;
        } else {
          FailHere("Expected 't' or 'x' while parsing ReplaceIndex()");
        }
        next_++;
        Expect(",", name);
        e->value2 = ReadInteger(name, "value");
        Expect(")", name);
        return;
      case kScale:
        e->alpha = ReadReal(name, "scale");
        Expect(",", name);
        e->children.push_back(ParseExpr());
        Expect(")", name);
        return;
      case kConst: {
        size_t where = next_;
        e->alpha = ReadReal(name, "value");
        if (!(e->alpha - e->alpha == 0)) {
          next_ = where;
          FailHere("Expected a finite value while parsing Const()");
        }
        Expect(",", name);
        where = next_;
        e->value1 = ReadInteger(name, "dimension");
        if (e->value1 <= 0) {
          next_ = where;
          FailHere("Expected a positive dimension while parsing Const()");
        }
        Expect(")", name);
        return;
      }
      case kNodeName:
        break;
    }
    NNET3_ASSERT(false && "ParseArguments on a node name");
  }

  const std::string &text_;
  const std::vector<Token> &tokens_;
  int32 depth_ = 0;  // expressions open around the one being parsed
  const std::vector<std::string> &node_names_;
  size_t next_;
};

// ----------------------------------------------------------- normalisation
// Number of Append() terms: Append adds up those of its arguments; any other
// operator needs the same number in every argument.
int32 NumAppendTerms(const Expr &e) {
  switch (e.type) {
    case kNodeName: case kConst:
      return 1;
    case kAppend: {
      int32 ans = 0;
      for (const auto &c : e.children) ans += NumAppendTerms(*c);
      return ans;
    }
    default: {
      NNET3_ASSERT(!e.children.empty());
      int32 ans = NumAppendTerms(*e.children[0]);
      for (size_t i = 1; i < e.children.size(); i++) {
        int32 n = NumAppendTerms(*e.children[i]);
        if (n != ans)
          Fail(std::string("Cannot normalise descriptor: the arguments of ") +
               ExprTypeName(e.type) + "() have different numbers of Append() "
               "terms (" + std::to_string(ans) + " vs. " + std::to_string(n) +
               ")");
      }
      return ans;
    }
  }
}

// A new tree for Append() term number "term" of e.
std::unique_ptr<Expr> GetAppendTerm(const Expr &e, int32 term) {
  switch (e.type) {
    case kNodeName:
      NNET3_ASSERT(term == 0);
      return std::make_unique<Expr>(kNodeName, e.value1);
    case kAppend: {
      int32 remaining = term;
      for (const auto &c : e.children) {
        int32 n = NumAppendTerms(*c);
        if (remaining < n) return GetAppendTerm(*c, remaining);
        remaining -= n;
      }
      NNET3_ASSERT(false && "Append term out of range");
      return nullptr;
    }
    default: {
      auto ans = std::make_unique<Expr>(e.type, e.value1, e.value2, e.alpha);
      for (const auto &c : e.children)
        ans->children.push_back(GetAppendTerm(*c, term));
      return ans;
    }
  }
}

// Lifts every Append() to the top.
std::unique_ptr<Expr> NormalizeAppend(const Expr &e) {
  int32 num_terms = NumAppendTerms(e);
  NNET3_ASSERT(num_terms > 0);
  if (num_terms == 1) return GetAppendTerm(e, 0);
  auto ans = std::make_unique<Expr>(kAppend);
  for (int32 i = 0; i < num_terms; i++)
    ans->children.push_back(GetAppendTerm(e, i));
  return ans;
}

bool IsSumLike(ExprType t) {
  return t == kSum || t == kFailover || t == kIfDefined;
}

// One rewrite pass at e and (unless something already changed) below it.
// Returns true if anything changed; the caller repeats until nothing does.
bool Normalize(Expr *e) {
  bool changed = false;
  bool forwarding_case = false;
  switch (e->type) {
    case kOffset: {
      Expr *child = e->children[0].get();
      if (child->type == kOffset) {
        // Offset(Offset(d, a, b), c, f) -> Offset(d, a + c, b + f)
        e->value1 += child->value1;
        e->value2 += child->value2;
        std::unique_ptr<Expr> grandchild = std::move(child->children[0]);
        e->children[0] = std::move(grandchild);
        changed = true;
        forwarding_case = true;
      } else if (e->value1 == 0 && e->value2 == 0) {
        // Offset(d, 0) -> d
        e->TakeOver(std::move(e->children[0]));
        changed = true;
      } else {
        forwarding_case = true;
      }
      break;
    }
    case kSwitch: case kRound: case kReplaceIndex:
      forwarding_case = true;
      break;
    case kSum: {
      if (e->children.size() == 1) {
        e->TakeOver(std::move(e->children[0]));  // Sum(d) -> d
        changed = true;
      } else if (e->children.size() > 2) {
        // Sum(a, b, c, ...) -> Sum(a, Sum(b, c, ...))
        auto rest = std::make_unique<Expr>(kSum);
        for (size_t i = 1; i < e->children.size(); i++)
          rest->children.push_back(std::move(e->children[i]));
        e->children.resize(1);
        e->children.push_back(std::move(rest));
        changed = true;
      }
      break;
    }
    case kScale: {
      Expr *child = e->children[0].get();
      if (child->type == kOffset || child->type == kReplaceIndex ||
          child->type == kRound) {
        // Scale(s, Offset(d, t)) -> Offset(Scale(s, d), t), etc.
        std::swap(e->type, child->type);
        std::swap(e->alpha, child->alpha);
        std::swap(e->value1, child->value1);
        std::swap(e->value2, child->value2);
        changed = true;
      } else if (child->type == kSum) {
        // Scale(s, Sum(a, b)) -> Sum(Scale(s, a), Scale(s, b))
        std::unique_ptr<Expr> sum = std::move(e->children[0]);
        e->children.clear();
        for (auto &term : sum->children) {
          auto scaled = std::make_unique<Expr>(kScale, -1, -1, e->alpha);
          scaled->children.push_back(std::move(term));
          e->children.push_back(std::move(scaled));
        }
        e->type = kSum;
        e->alpha = 0.0;
        changed = true;
      } else if (child->type == kScale) {
        // Scale(a, Scale(b, d)) -> Scale(a * b, d)
        e->alpha *= child->alpha;
        std::unique_ptr<Expr> grandchild = std::move(child->children[0]);
        e->children[0] = std::move(grandchild);
        changed = true;
      } else if (child->type != kNodeName) {
        Fail(std::string("Cannot normalise descriptor: Scale() around ") +
             ExprTypeName(child->type) + "() is not supported; move the "
             "Scale() inside the other expressions");
      }
      break;
    }
    case kAppend: case kFailover: case kIfDefined: case kConst:
    case kNodeName:
      break;
  }
  if (forwarding_case) {
    Expr *child = e->children[0].get();
    NNET3_ASSERT(child->type != kAppend);
    if (IsSumLike(child->type)) {
      if (e->children.size() > 1)
        Fail(std::string("Cannot normalise descriptor: ") +
             ExprTypeName(child->type) + "() inside Switch() is not "
             "supported");
      // Offset(Sum(a, b), t) -> Sum(Offset(a, t), Offset(b, t)), etc.
      std::unique_ptr<Expr> inner = std::move(e->children[0]);
      e->children.clear();
      for (auto &grandchild : inner->children) {
        auto wrapped =
            std::make_unique<Expr>(e->type, e->value1, e->value2, e->alpha);
        wrapped->children.push_back(std::move(grandchild));
        e->children.push_back(std::move(wrapped));
      }
      e->type = inner->type;
      e->value1 = inner->value1;
      e->value2 = inner->value2;
      changed = true;
    }
  }
  for (auto &c : e->children) changed = changed || Normalize(c.get());
  return changed;
}

// ---------------------------------------------------------------- convert
std::unique_ptr<ForwardingDescriptor> ToForwarding(const Expr &e) {
  switch (e.type) {
    case kNodeName:
      return std::make_unique<SimpleForwardingDescriptor>(e.value1);
    case kOffset:
      return std::make_unique<OffsetForwardingDescriptor>(
          ToForwarding(*e.children[0]), Index(0, e.value1, e.value2));
    case kSwitch: {
      std::vector<std::unique_ptr<ForwardingDescriptor>> src;
      for (const auto &c : e.children) src.push_back(ToForwarding(*c));
      return std::make_unique<SwitchingForwardingDescriptor>(std::move(src));
    }
    case kRound:
      return std::make_unique<RoundingForwardingDescriptor>(
          ToForwarding(*e.children[0]), e.value1);
    case kReplaceIndex:
      return std::make_unique<ReplaceIndexForwardingDescriptor>(
          ToForwarding(*e.children[0]),
          e.value1 == ReplaceIndexForwardingDescriptor::kT
              ? ReplaceIndexForwardingDescriptor::kT
              : ReplaceIndexForwardingDescriptor::kX,
          e.value2);
    case kScale:
      if (e.children.size() != 1 || e.children[0]->type != kNodeName)
        Fail("Invalid combination of Scale() and other expressions in "
             "descriptor");
      return std::make_unique<SimpleForwardingDescriptor>(
          e.children[0]->value1, e.alpha);
    case kConst:
      Fail("Const() appears too deep in the descriptor (inside Offset(), "
           "Switch(), Round() or ReplaceIndex())");
    case kSum: case kFailover: case kIfDefined: case kAppend:
      break;
  }
  Fail(std::string("Cannot normalise descriptor: ") + ExprTypeName(e.type) +
       "() appears inside Switch() or another forwarding expression");
}

std::unique_ptr<SumDescriptor> ToSum(const Expr &e) {
  switch (e.type) {
    case kSum: case kFailover:
      NNET3_ASSERT(e.children.size() == 2);
      return std::make_unique<BinarySumDescriptor>(
          e.type == kSum ? BinarySumDescriptor::kSumOperation
                         : BinarySumDescriptor::kFailoverOperation,
          ToSum(*e.children[0]), ToSum(*e.children[1]));
    case kIfDefined:
      NNET3_ASSERT(e.children.size() == 1);
      return std::make_unique<OptionalSumDescriptor>(ToSum(*e.children[0]));
    case kConst:
      return std::make_unique<ConstantSumDescriptor>(e.alpha, e.value1);
    case kAppend:
      NNET3_ASSERT(false && "Append() below the top after normalisation");
      return nullptr;
    case kOffset: case kSwitch: case kRound: case kReplaceIndex: case kScale:
    case kNodeName:
      break;
  }
  return std::make_unique<SimpleSumDescriptor>(ToForwarding(e));
}

}  // namespace

bool DescriptorTokenize(const std::string &input,
                        std::vector<std::string> *tokens) {
  std::vector<Token> with_pos;
  size_t bad_pos = 0;
  tokens->clear();
  if (!TokenizeWithPositions(input, &with_pos, &bad_pos)) return false;
  for (const Token &t : with_pos) tokens->push_back(t.text);
  return true;
}

bool ParseDescriptor(const std::string &text,
                     const std::vector<std::string> &node_names,
                     Descriptor *desc, std::string *error) {
  try {
    std::vector<Token> tokens;
    size_t bad_pos = 0;
    if (!TokenizeWithPositions(text, &tokens, &bad_pos)) {
      size_t end = text.find_first_of(" \t(),", bad_pos);
      std::string bad = text.substr(
          bad_pos, end == std::string::npos ? std::string::npos
                                            : end - bad_pos);
      Fail("Invalid token '" + PrintableString(bad, 60) + "' at column " +
           std::to_string(bad_pos + 1) + " of descriptor '" +
           PrintableString(text, 400) + "' (remaining text: '" +
           PrintableString(text.substr(bad_pos), 80) + "')");
    }
    Parser parser(text, tokens, node_names);
    std::unique_ptr<Expr> general = parser.ParseAll();
    std::unique_ptr<Expr> normalized = NormalizeAppend(*general);
    while (Normalize(normalized.get())) {
    }
    std::vector<std::unique_ptr<SumDescriptor>> parts;
    if (normalized->type == kAppend) {
      for (const auto &c : normalized->children) parts.push_back(ToSum(*c));
    } else {
      parts.push_back(ToSum(*normalized));
    }
    *desc = Descriptor(std::move(parts));
    return true;
  } catch (const ParseFailure &failure) {
    if (error != nullptr) {
      *error = failure.message;
      // Normalisation errors carry no position; say which descriptor.
      if (failure.message.find(" of descriptor '") == std::string::npos)
        *error += " (in descriptor '" + PrintableString(text, 400) + "')";
    }
    return false;
  }
}

}  // namespace nnet3
