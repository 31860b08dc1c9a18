# Sanitizer and fuzzing builds. Both are off by default; without them this
# file changes nothing.
#
#   NNET3_SANITIZE=address,undefined   every C++ target of the project (the
#                                      libraries, tools, tests, benchmarks)
#                                      is compiled and linked with these
#                                      -fsanitize= checks (gcc or clang).
#                                      Undefined behaviour stops the program
#                                      (no recovery), so a test that hits it
#                                      fails.
#   NNET3_FUZZ=ON                      (clang only) also builds the libFuzzer
#                                      targets of tests/fuzz; everything else
#                                      is compiled with address,undefined and
#                                      fuzzer-no-link (coverage for the
#                                      fuzzer), the fuzz targets are linked
#                                      with -fsanitize=fuzzer.
#
# The replay drivers of tests/fuzz (a main() that runs each fuzz target over
# its stored inputs) are built in every configuration.
# CUDA code is not instrumented: configure these builds with -DNNET3_CUDA=OFF.
set(NNET3_SANITIZE "" CACHE STRING
    "Comma-separated -fsanitize= checks for the whole build, e.g. address,undefined")
option(NNET3_FUZZ "Build the libFuzzer targets of tests/fuzz (clang)" OFF)

set(NNET3_SANITIZER_FLAGS)
if(NNET3_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NNET3_FUZZ=ON needs clang++ "
            "(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang)")
  endif()
  if(NOT NNET3_SANITIZE)
    set(NNET3_SANITIZE "address,undefined")
  endif()
  list(APPEND NNET3_SANITIZER_FLAGS "-fsanitize=${NNET3_SANITIZE},fuzzer-no-link")
elseif(NNET3_SANITIZE)
  list(APPEND NNET3_SANITIZER_FLAGS "-fsanitize=${NNET3_SANITIZE}")
endif()

if(NNET3_SANITIZE)
  list(APPEND NNET3_SANITIZER_FLAGS -fno-omit-frame-pointer
       -fno-sanitize-recover=all)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX,C>:${NNET3_SANITIZER_FLAGS}>")
  # Linking: the same checks (their runtimes), without fuzzer-no-link.
  add_link_options("-fsanitize=${NNET3_SANITIZE}")
  if(NNET3_HAVE_CUDA)
    message(WARNING "NNET3_SANITIZE with the CUDA backend: CUDA code is not "
            "instrumented; configure with -DNNET3_CUDA=OFF")
  endif()
  message(STATUS "nnet3: sanitizers ${NNET3_SANITIZE}, fuzz targets ${NNET3_FUZZ}")
endif()
