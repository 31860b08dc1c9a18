# Compiler warnings for every target of the project.
# -Wall -Wextra always; NNET3_WERROR (default ON when the CI variable is set) turns them into
# errors. -Werror=switch is always on: a switch over an enum must name every value.
option(NNET3_WERROR "Treat compiler warnings as errors" $ENV{CI})
set(NNET3_WARNING_FLAGS -Wall -Wextra -Werror=switch)
if(NNET3_WERROR)
  list(APPEND NNET3_WARNING_FLAGS -Werror)
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${NNET3_WARNING_FLAGS}>")

# CUDA: the same flags for the host compiler behind nvcc, and nvcc's own
# warnings (device code, cross-execution-space calls) as errors too.
set(NNET3_CUDA_WARNING_FLAGS)
foreach(_flag IN LISTS NNET3_WARNING_FLAGS)
  list(APPEND NNET3_CUDA_WARNING_FLAGS "-Xcompiler=${_flag}")
endforeach()
if(NNET3_WERROR)
  list(APPEND NNET3_CUDA_WARNING_FLAGS "--Werror=all-warnings")
endif()
add_compile_options("$<$<COMPILE_LANGUAGE:CUDA>:${NNET3_CUDA_WARNING_FLAGS}>")
