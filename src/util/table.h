// util/table.h
// Kaldi tables: collections of (key, object) pairs stored in archives
// ("ark:") or listed in script files ("scp:"), read in order
// (SequentialTableReader), by key (RandomAccessTableReader), or written
// (TableWriter). This header gathers the pieces and names the common
// reader/writer types:
//   table-spec.h            rspecifier/wspecifier and script-line parsing
//   holders.h, posterior.h  how each object type is read and written
//   sequential-reader.h     SequentialTableReader<Holder>
//   random-access-reader.h  RandomAccessTableReader<Holder>
//   table-writer.h          TableWriter<Holder>
// Typedefs, named as in Kaldi (<Name>Writer, Sequential<Name>Reader,
// RandomAccess<Name>Reader) for Name in Int32, Int64, Bool, BaseFloat,
// Double (BasicHolder), Int32Vector, Int32VectorVector, Int32PairVector,
// BaseFloatPairVector, Token, TokenVector and Posterior. The matrix layer
// adds BaseFloatMatrixWriter and friends in matrix/table-types.h.
#ifndef NNET3_UTIL_TABLE_H_
#define NNET3_UTIL_TABLE_H_

#include "base/types.h"
#include "util/holders.h"
#include "util/posterior.h"
#include "util/random-access-reader.h"
#include "util/sequential-reader.h"
#include "util/table-spec.h"
#include "util/table-writer.h"

namespace nnet3 {

#define NNET3_TABLE_TYPEDEFS(Name, HolderType)                        \
  typedef TableWriter<HolderType> Name##Writer;                       \
  typedef SequentialTableReader<HolderType> Sequential##Name##Reader; \
  typedef RandomAccessTableReader<HolderType> RandomAccess##Name##Reader;

NNET3_TABLE_TYPEDEFS(Int32, BasicHolder<int32>)
NNET3_TABLE_TYPEDEFS(Int64, BasicHolder<int64>)
NNET3_TABLE_TYPEDEFS(Bool, BasicHolder<bool>)
NNET3_TABLE_TYPEDEFS(BaseFloat, BasicHolder<BaseFloat>)
NNET3_TABLE_TYPEDEFS(Double, BasicHolder<double>)
NNET3_TABLE_TYPEDEFS(Int32Vector, BasicVectorHolder<int32>)
NNET3_TABLE_TYPEDEFS(Int32VectorVector, BasicVectorVectorHolder<int32>)
NNET3_TABLE_TYPEDEFS(Int32PairVector, BasicPairVectorHolder<int32>)
NNET3_TABLE_TYPEDEFS(BaseFloatPairVector, BasicPairVectorHolder<BaseFloat>)
NNET3_TABLE_TYPEDEFS(Token, TokenHolder)
NNET3_TABLE_TYPEDEFS(TokenVector, TokenVectorHolder)
NNET3_TABLE_TYPEDEFS(Posterior, PosteriorHolder)

#undef NNET3_TABLE_TYPEDEFS

}  // namespace nnet3

#endif  // NNET3_UTIL_TABLE_H_
