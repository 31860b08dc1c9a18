// tests/nnet3/analyze/validate-test.cc
// ValidateComputation (validate.h), the check applied to computations read
// from a --read-cache file:
//  - accepts what the caching compiler produces (shortcut + optimization)
//    for random simple and general networks (TDNN, convolution,
//    statistics, attention, ... with precomputed indexes), forward only and
//    with all derivatives, after a binary write/read round trip;
//  - for such computations, corrupts every argument that each command uses
//    to out-of-range values (-1, -2, INT_MIN, the table size, one past it,
//    INT_MAX), alpha to NaN / infinity, and the tables (matrices,
//    submatrices, index vectors, pair vectors, row ranges, debug info,
//    precomputed indexes and their Index lists): every corruption is a
//    UserError, and a corrupted command argument is named in the message
//    ("command cN (kType)");
//  - flips random bytes of the written computation: reading and
//    validating either succeed or throw UserError, never anything else
//    (and, under AddressSanitizer, never read out of bounds).
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/random.h"
#include "nnet3/analyze/validate.h"
#include "nnet3/optimize/caching-optimizing-compiler.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Cmd;

struct Case {
  Nnet nnet;
  ComputationRequest request;
  NnetComputation computation;  // after a write/read round trip
  std::string trace;
};

std::string Bytes(const NnetComputation &c) {
  std::ostringstream os;
  c.Write(os, true);
  return os.str();
}

// A random network, a request (with all derivatives if 'backward') and its
// optimized computation as the caching compiler makes it.
void MakeCase(int32 seed, bool general, bool backward, Case *out) {
  RandomSource rng(seed);
  RandomNnetOptions opts;
  opts.allow_general_components = general;
  std::string description;
  std::string config = GenerateRandomNnetConfig(&rng, opts, &description);
  out->trace = "seed " + std::to_string(seed) + " (" + description + ")\n" +
               config;
  out->nnet = NnetFromConfigString(config);
  std::vector<Matrix<BaseFloat> > inputs;
  GenerateRandomRequest(out->nnet, &rng, &out->request, &inputs);
  if (backward) {
    for (IoSpecification &io : out->request.inputs) io.has_deriv = true;
    for (IoSpecification &io : out->request.outputs) io.has_deriv = true;
    out->request.need_model_derivative = true;
  }
  CachingOptimizingCompiler compiler(out->nnet);
  std::shared_ptr<const NnetComputation> c = compiler.Compile(out->request);
  std::istringstream is(Bytes(*c));
  out->computation.Read(is, true);
}

std::string Serialized(const ComponentPrecomputedIndexes &p) {
  std::ostringstream os;
  p.Write(os, true);
  return os.str();
}

// The network of the case being corrupted (for the corruption functions).
const Nnet *current_nnet = nullptr;
const Nnet &CurrentNnet() { return *current_nnet; }

// "" if valid, else the UserError's message; anything else thrown fails.
std::string Validate(const Case &c, const NnetComputation &computation) {
  try {
    ValidateComputation(c.nnet, c.request, computation);
  } catch (const UserError &e) {
    return e.message().empty() ? std::string("(empty message)")
                               : e.message();
  }
  return "";
}

TEST(ValidateComputation, AcceptsCompiledComputations) {
  int32 num_cases = 0, num_precomputed = 0;
  for (int32 seed = 0; seed < 60; seed++) {
    for (bool general : {false, true}) {
      for (bool backward : {false, true}) {
        Case c;
        MakeCase(1000 + seed, general, backward, &c);
        SCOPED_TRACE(c.trace);
        ASSERT_EQ(Validate(c, c.computation), "");
        num_cases++;
        if (c.computation.component_precomputed_indexes.size() > 1)
          num_precomputed++;
      }
    }
  }
  // The general networks must exercise precomputed indexes.
  EXPECT_GT(num_precomputed, num_cases / 8);
  std::cout << num_cases << " computations validated, " << num_precomputed
            << " with precomputed indexes\n";
}

// Which arguments a command uses, and the size of the table each indexes.
enum ArgKind { kSub, kComp, kPre, kIdx, kMulti, kRanges, kNode, kFlag,
               kCompression, kMemo, kLabel };

std::vector<std::pair<int32, ArgKind> > UsedArgs(CommandType t) {
  switch (t) {
    case kAllocMatrix:
    case kDeallocMatrix:
    case kDecompressMatrix:
    case kSetConst:
      return {{1, kSub}};
    case kSwapMatrix:
    case kMatrixCopy:
    case kMatrixAdd:
      return {{1, kSub}, {2, kSub}};
    case kPropagate:
      return {{1, kComp}, {2, kPre}, {3, kSub}, {4, kSub}, {5, kMemo},
              {6, kFlag}};
    case kBackprop:
    case kBackpropNoModelUpdate:
      return {{1, kComp}, {2, kPre}, {3, kSub}, {4, kSub}, {5, kSub},
              {6, kSub}, {7, kMemo}};
    case kCopyRows:
    case kAddRows:
      return {{1, kSub}, {2, kSub}, {3, kIdx}};
    case kCopyRowsMulti:
    case kCopyToRowsMulti:
    case kAddRowsMulti:
    case kAddToRowsMulti:
      return {{1, kSub}, {2, kMulti}};
    case kAddRowRanges:
      return {{1, kSub}, {2, kSub}, {3, kRanges}};
    case kCompressMatrix:
      return {{1, kSub}, {2, kCompression}, {3, kFlag}};
    case kAcceptInput:
    case kProvideOutput:
      return {{1, kSub}, {2, kNode}};
    case kNoOperation:
    case kNoOperationPermanent:
    case kNoOperationMarker:
    case kNoOperationLabel:
      return {};
    case kGotoLabel:
      return {{1, kLabel}};
  }
  return {};
}

int32 TableSize(const Case &c, const NnetComputation &comp, ArgKind kind) {
  switch (kind) {
    case kSub: return static_cast<int32>(comp.submatrices.size());
    case kComp: return c.nnet.NumComponents();
    case kPre:
      return static_cast<int32>(comp.component_precomputed_indexes.size());
    case kIdx: return static_cast<int32>(comp.indexes.size());
    case kMulti: return static_cast<int32>(comp.indexes_multi.size());
    case kRanges: return static_cast<int32>(comp.indexes_ranges.size());
    case kNode: return c.nnet.NumNodes();
    case kFlag: return 2;
    case kCompression: return 5;
    case kMemo: return 1 << 20;  // a memo nobody produced or consumes
    case kLabel: return static_cast<int32>(comp.commands.size());
  }
  return 0;
}

int32 &Arg(Cmd *c, int32 k) {
  int32 *args[7] = {&c->arg1, &c->arg2, &c->arg3, &c->arg4,
                    &c->arg5, &c->arg6, &c->arg7};
  return *args[k - 1];
}

std::vector<Case> CorruptionCases() {
  std::vector<Case> cases;
  // Networks with backprop, memos, row operations and precomputed indexes.
  for (int32 seed : {1003, 1005, 1011, 1017, 1023}) {
    for (bool general : {false, true}) {
      cases.emplace_back();
      MakeCase(seed, general, true, &cases.back());
    }
  }
  return cases;
}

TEST(ValidateComputation, CatchesEveryOutOfRangeCommandArgument) {
  int32 num_corruptions = 0;
  std::vector<bool> type_seen(kGotoLabel + 1, false);
  for (const Case &c : CorruptionCases()) {
    SCOPED_TRACE(c.trace);
    ASSERT_EQ(Validate(c, c.computation), "");
    NnetComputation bad(c.computation);
    for (size_t i = 0; i < bad.commands.size(); i++) {
      Cmd &cmd = bad.commands[i];
      const Cmd saved = cmd;
      type_seen[cmd.command_type] = true;
      const std::string name = "command c" + std::to_string(i) + " (" +
                               CommandTypeToString(cmd.command_type) + ")";
      for (const std::pair<int32, ArgKind> &arg : UsedArgs(cmd.command_type)) {
        int32 n = TableSize(c, bad, arg.second);
        for (int32 value : {-1, -2, INT_MIN, n, n + 1, INT_MAX}) {
          if (arg.second == kMemo && value == n) continue;
          if (arg.second == kPre && value == 0) continue;  // 0 means none
          Arg(&cmd, arg.first) = value;
          std::string what = Validate(c, bad);
          SCOPED_TRACE(name + " arg" + std::to_string(arg.first) + " = " +
                       std::to_string(value));
          ASSERT_NE(what, "") << "not caught";
          // A memo that no propagate produced is found at the backprop
          // that consumes the original memo; everything else is found at
          // the corrupted command itself.
          if (arg.second == kMemo)
            EXPECT_NE(what.find("command c"), std::string::npos) << what;
          else
            EXPECT_NE(what.find(name), std::string::npos) << what;
          num_corruptions++;
          cmd = saved;
        }
      }
      for (float alpha : {std::numeric_limits<float>::quiet_NaN(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()}) {
        cmd.alpha = alpha;
        std::string what = Validate(c, bad);
        EXPECT_NE(what.find(name + ": alpha is not finite"),
                  std::string::npos)
            << what;
        num_corruptions++;
        cmd = saved;
      }
    }
  }
  for (CommandType t : {kAllocMatrix, kDeallocMatrix, kPropagate, kBackprop,
                        kMatrixCopy, kMatrixAdd, kCopyRows, kAddRows,
                        kAcceptInput, kProvideOutput, kNoOperationMarker})
    EXPECT_TRUE(type_seen[t]) << CommandTypeToString(t) << " not exercised";
  std::cout << num_corruptions << " command corruptions caught\n";
}

// Applies 'corrupt' to a copy of each case's computation (for each
// position it offers) and requires a UserError.
// Positions where 'corrupt' makes no real change are turned into a change
// of matrix 0 by the callers, so every call must be caught. 'required':
// the cases must offer at least one position.
void ExpectTableCorruptionsCaught(
    const std::string &what, bool required,
    const std::function<int32(const NnetComputation &)> &num_positions,
    const std::function<void(int32, NnetComputation *)> &corrupt) {
  int32 total = 0;
  for (const Case &c : CorruptionCases()) {
    SCOPED_TRACE(c.trace);
    current_nnet = &c.nnet;
    int32 n = num_positions(c.computation);
    for (int32 p = 0; p < n; p++) {
      NnetComputation bad(c.computation);
      corrupt(p, &bad);
      SCOPED_TRACE(what + " at " + std::to_string(p));
      EXPECT_NE(Validate(c, bad), "") << "not caught";
      total++;
    }
  }
  if (required) {
    EXPECT_GT(total, 0) << what << " never exercised";
  }
  std::cout << what << ": " << total << " corruptions caught\n";
}

// Index vectors that some command uses (unused ones are harmless).
std::vector<bool> UsedVectors(const NnetComputation &c, CommandType a,
                              CommandType b, int32 arg, size_t size) {
  std::vector<bool> used(size, false);
  for (Cmd cmd : c.commands)
    if (cmd.command_type == a || cmd.command_type == b ||
        (a == kCopyRowsMulti &&
         (cmd.command_type == kAddRowsMulti ||
          cmd.command_type == kCopyToRowsMulti ||
          cmd.command_type == kAddToRowsMulti)))
      used[Arg(&cmd, arg)] = true;
  return used;
}

TEST(ValidateComputation, CatchesCorruptTables) {
  static const int32 big = INT_MAX;  // static: the lambdas need no capture
  // Matrices: each field of each matrix (matrix 0 must stay empty).
  ExpectTableCorruptionsCaught(
      "matrix dims", true,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.matrices.size()) * 4;
      },
      [](int32 p, NnetComputation *c) {
        NnetComputation::MatrixInfo &m = c->matrices[p / 4];
        switch (p % 4) {
          case 0: m.num_rows = p / 4 == 0 ? 1 : -1; break;
          case 1: m.num_cols = p / 4 == 0 ? 3 : 0; break;
          case 2: m.num_rows = big; m.num_cols = 4; break;
          default: m.num_rows = -m.num_rows; break;
        }
        if (p / 4 == 0 && p % 4 >= 2) m.num_rows = 5;
      });
  // Submatrices: matrix index, offsets and sizes out of range or
  // overflowing 32 bits.
  ExpectTableCorruptionsCaught(
      "submatrix", true,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.submatrices.size()) * 7;
      },
      [](int32 p, NnetComputation *c) {
        NnetComputation::SubMatrixInfo &s = c->submatrices[p / 7];
        int32 num_matrices = static_cast<int32>(c->matrices.size());
        switch (p % 7) {
          case 0: s.matrix_index = num_matrices; break;
          case 1: s.matrix_index = p / 7 == 0 ? 1 : -1; break;
          case 2: s.row_offset = p / 7 == 0 ? 1 : -3; break;
          case 3: s.row_offset = big; break;
          case 4: s.num_rows = big; break;
          case 5: s.col_offset = big - 1; s.num_cols = 2; break;
          default: s.num_cols = p / 7 == 0 ? 1 : s.num_cols + 1000; break;
        }
      });
  // kCopyRows / kAddRows index vectors: an entry out of range, a missing or
  // extra entry.
  ExpectTableCorruptionsCaught(
      "indexes", true,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.indexes.size()) * 4;
      },
      [](int32 p, NnetComputation *c) {
        std::vector<bool> used = UsedVectors(*c, kCopyRows, kAddRows, 3,
                                             c->indexes.size());
        std::vector<int32> &v = c->indexes[p / 4];
        if (!used[p / 4]) {
          c->matrices[0].num_rows = 1;  // unused: corrupt something else
          return;
        }
        switch (p % 4) {
          case 0: v[0] = -2; break;
          case 1: v.back() = big; break;
          case 2: v.pop_back(); break;
          default: v.push_back(0); break;
        }
      });
  ExpectTableCorruptionsCaught(
      "indexes_multi", false,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.indexes_multi.size()) * 4;
      },
      [](int32 p, NnetComputation *c) {
        std::vector<bool> used = UsedVectors(*c, kCopyRowsMulti,
                                             kCopyRowsMulti, 2,
                                             c->indexes_multi.size());
        std::vector<std::pair<int32, int32> > &v = c->indexes_multi[p / 4];
        if (!used[p / 4]) {
          c->matrices[0].num_rows = 1;
          return;
        }
        switch (p % 4) {
          case 0: v[0] = std::make_pair(
                      static_cast<int32>(c->submatrices.size()), 0); break;
          case 1: v[0] = std::make_pair(-1, 3); break;
          case 2: v[0] = std::make_pair(1, big); break;
          default: v.pop_back(); break;
        }
      });
  ExpectTableCorruptionsCaught(
      "indexes_ranges", false,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.indexes_ranges.size()) * 4;
      },
      [](int32 p, NnetComputation *c) {
        std::vector<bool> used = UsedVectors(*c, kAddRowRanges, kAddRowRanges,
                                             3, c->indexes_ranges.size());
        std::vector<std::pair<int32, int32> > &v = c->indexes_ranges[p / 4];
        if (!used[p / 4]) {
          c->matrices[0].num_rows = 1;
          return;
        }
        switch (p % 4) {
          case 0: v[0] = std::make_pair(3, 1); break;
          case 1: v[0] = std::make_pair(0, big); break;
          case 2: v[0] = std::make_pair(-2, 0); break;
          default: v.push_back(std::make_pair(0, 0)); break;
        }
      });
  // Debug info: the wrong number of entries or of cindexes.
  ExpectTableCorruptionsCaught(
      "debug info", true, [](const NnetComputation &) { return 2; },
      [](int32 p, NnetComputation *c) {
        if (c->matrix_debug_info.empty() || p == 0) {
          c->matrix_debug_info.emplace_back();
          return;
        }
        c->matrix_debug_info.back().cindexes.emplace_back();
      });
  // Precomputed indexes: a missing object, missing or extra Indexes, the
  // object the component computes for the Indexes in reverse order, the
  // object of another entry (the last two only where they differ from the
  // stored object; otherwise nothing would be wrong).
  ExpectTableCorruptionsCaught(
      "precomputed indexes", true,
      [](const NnetComputation &c) {
        return static_cast<int32>(c.component_precomputed_indexes.size()) *
               5;
      },
      [](int32 p, NnetComputation *c) {
        std::vector<NnetComputation::PrecomputedIndexesInfo> &v =
            c->component_precomputed_indexes;
        const int32 e = p / 5;
        NnetComputation::PrecomputedIndexesInfo &info = v[e];
        if (e == 0) {  // entry 0 must stay empty
          info.data = v.size() > 1 ? v[1].data->Copy() : nullptr;
          if (info.data == nullptr) c->matrices[0].num_rows = 1;
          return;
        }
        ComponentPrecomputedIndexes *replacement = nullptr;
        switch (p % 5) {
          case 0: delete info.data; info.data = nullptr; return;
          case 1: info.input_indexes.pop_back(); return;
          case 2: info.output_indexes.push_back(info.output_indexes[0]);
                  return;
          case 3: {
            const Component *comp = nullptr;
            for (const Cmd &cmd : c->commands)
              if ((cmd.command_type == kPropagate ||
                   cmd.command_type == kBackprop ||
                   cmd.command_type == kBackpropNoModelUpdate) &&
                  cmd.arg2 == e)
                comp = CurrentNnet().GetComponent(cmd.arg1);
            if (comp == nullptr) break;
            std::vector<Index> in(info.input_indexes.rbegin(),
                                  info.input_indexes.rend()),
                out(info.output_indexes.rbegin(), info.output_indexes.rend());
            replacement =
                comp->PrecomputeIndexes(MiscComputationInfo(), in, out, true);
            break;
          }
          default:
            if (e + 1 < static_cast<int32>(v.size()))
              replacement = v[e + 1].data->Copy();
            else if (e > 1)
              replacement = v[e - 1].data->Copy();
        }
        if (replacement == nullptr || Serialized(*replacement) ==
                                          Serialized(*info.data)) {
          delete replacement;
          c->matrices[0].num_rows = 1;
          return;
        }
        delete info.data;
        info.data = replacement;
      });
}

TEST(ValidateComputation, RandomByteFlipsNeverCrash) {
  RandomSource rng(77);
  int32 num_read = 0, num_valid = 0, num_total = 0;
  for (const Case &c : CorruptionCases()) {
    const std::string bytes = Bytes(c.computation);
    for (int32 trial = 0; trial < 100; trial++) {
      std::string bad = bytes;
      int32 num_flips = rng.Int(1, 3);
      for (int32 f = 0; f < num_flips; f++) {
        size_t pos = static_cast<size_t>(
            rng.Int(0, static_cast<int32>(bad.size()) - 1));
        bad[pos] = static_cast<char>(rng.Int(0, 255));
      }
      num_total++;
      NnetComputation computation;
      std::istringstream is(bad);
      try {
        computation.Read(is, true);
      } catch (const UserError &) {
        continue;
      }
      num_read++;
      if (Validate(c, computation).empty()) num_valid++;
    }
  }
  std::cout << num_total << " damaged computations: " << num_read
            << " read, " << num_valid << " still valid\n";
  EXPECT_GT(num_read, num_valid);
}

}  // namespace
}  // namespace nnet3
