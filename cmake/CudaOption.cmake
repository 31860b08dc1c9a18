# NNET3_CUDA=AUTO|ON|OFF selects the CUDA backend of cudamatrix.
#   AUTO (default): on when nvcc is found (PATH, CUDACXX or /usr/local/cuda/bin).
#   ON: nvcc is required; configuring fails without it.
#   OFF: CPU backend only.
# Sets NNET3_HAVE_CUDA (bool) for the rest of the build. This file and backend
# selection are the only places that know whether CUDA is present.
set(NNET3_CUDA "AUTO" CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set_property(CACHE NNET3_CUDA PROPERTY STRINGS AUTO ON OFF)

set(NNET3_HAVE_CUDA OFF)
if(NOT NNET3_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER)
    find_program(NNET3_NVCC nvcc HINTS ENV CUDACXX PATHS /usr/local/cuda/bin)
    if(NNET3_NVCC)
      set(CMAKE_CUDA_COMPILER ${NNET3_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # Hopper (H100/H200) natively, plus PTX for forward compatibility.
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(NNET3_HAVE_CUDA ON)
  elseif(NNET3_CUDA STREQUAL "ON")
    message(FATAL_ERROR "NNET3_CUDA=ON but no working nvcc was found")
  endif()
endif()
message(STATUS "nnet3: CUDA backend ${NNET3_HAVE_CUDA} (NNET3_CUDA=${NNET3_CUDA})")
