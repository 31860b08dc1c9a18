// base/common.h
// Convenience header: everything in base/.
#ifndef NNET3_BASE_COMMON_H_
#define NNET3_BASE_COMMON_H_

#include "base/io.h"
#include "base/log.h"
#include "base/random.h"
#include "base/timer.h"
#include "base/types.h"

#endif  // NNET3_BASE_COMMON_H_
