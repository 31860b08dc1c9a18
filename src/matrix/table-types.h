// matrix/table-types.h
// Table reader/writer names for matrix types (Kaldi's names), and the scp
// range hook: a script line such as "utt feats.ark:4[2:5,0:12]" asks the
// holder for rows 2..5 and columns 0..12 (inclusive) of the object.
// ExtractObjectRange overloads here are found by KaldiObjectHolder through
// argument-dependent lookup.
#ifndef NNET3_MATRIX_TABLE_TYPES_H_
#define NNET3_MATRIX_TABLE_TYPES_H_

#include <string>
#include <vector>

#include "matrix/compressed.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"
#include "util/holders.h"
#include "util/table.h"

namespace nnet3 {

// Parses "r1:r2", "r1:r2,c1:c2", ":,c1:c2" or "r1:r2,:" for a rows x cols
// matrix into inclusive ranges. The row range may end past the last row by
// up to Kaldi's tolerance for feature-length rounding (end index <= rows +
// 2; a warning is printed and the range is clipped); anything else out of
// range is an error naming the range and the size.
void ParseMatrixRangeSpecifier(const std::string &range, int32 rows,
                               int32 cols, int32 *row_begin, int32 *row_end,
                               int32 *col_begin, int32 *col_end);

template <typename Real>
bool ExtractObjectRange(const Matrix<Real> &input, const std::string &range,
                        Matrix<Real> *output);
template <typename Real>
bool ExtractObjectRange(const Vector<Real> &input, const std::string &range,
                        Vector<Real> *output);
bool ExtractObjectRange(const CompressedMatrix &input,
                        const std::string &range, CompressedMatrix *output);

typedef TableWriter<KaldiObjectHolder<Matrix<BaseFloat> > >
    BaseFloatMatrixWriter;
typedef SequentialTableReader<KaldiObjectHolder<Matrix<BaseFloat> > >
    SequentialBaseFloatMatrixReader;
typedef RandomAccessTableReader<KaldiObjectHolder<Matrix<BaseFloat> > >
    RandomAccessBaseFloatMatrixReader;

typedef TableWriter<KaldiObjectHolder<Matrix<double> > > DoubleMatrixWriter;
typedef SequentialTableReader<KaldiObjectHolder<Matrix<double> > >
    SequentialDoubleMatrixReader;
typedef RandomAccessTableReader<KaldiObjectHolder<Matrix<double> > >
    RandomAccessDoubleMatrixReader;

typedef TableWriter<KaldiObjectHolder<CompressedMatrix> >
    CompressedMatrixWriter;
typedef SequentialTableReader<KaldiObjectHolder<CompressedMatrix> >
    SequentialCompressedMatrixReader;

typedef TableWriter<KaldiObjectHolder<Vector<BaseFloat> > >
    BaseFloatVectorWriter;
typedef SequentialTableReader<KaldiObjectHolder<Vector<BaseFloat> > >
    SequentialBaseFloatVectorReader;
typedef RandomAccessTableReader<KaldiObjectHolder<Vector<BaseFloat> > >
    RandomAccessBaseFloatVectorReader;

typedef TableWriter<KaldiObjectHolder<Vector<double> > > DoubleVectorWriter;
typedef SequentialTableReader<KaldiObjectHolder<Vector<double> > >
    SequentialDoubleVectorReader;
typedef RandomAccessTableReader<KaldiObjectHolder<Vector<double> > >
    RandomAccessDoubleVectorReader;

}  // namespace nnet3

#endif  // NNET3_MATRIX_TABLE_TYPES_H_
