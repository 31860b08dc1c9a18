// util/table-types.h
// Kaldi's name for the header with the table typedefs (Int32VectorWriter,
// SequentialPosteriorReader, ...). They live in util/table.h, which this
// includes, so that either name works.
#ifndef NNET3_UTIL_TABLE_TYPES_H_
#define NNET3_UTIL_TABLE_TYPES_H_

#include "util/table.h"

#endif  // NNET3_UTIL_TABLE_TYPES_H_
