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
      # Native code for every GPU generation from Volta (sm_70) to Hopper
      # (sm_90), plus PTX of the newest of them so that later GPUs (Blackwell
      # and on) JIT-compile it. The list is asked of this nvcc rather than
      # written down because toolkits drop old architectures (CUDA 13 has no
      # sm_70 or sm_72) and naming a dropped one fails the build.
      execute_process(COMMAND ${CMAKE_CUDA_COMPILER} --list-gpu-code
                      OUTPUT_VARIABLE _nnet3_gpu_codes
                      RESULT_VARIABLE _nnet3_gpu_codes_rc
                      ERROR_QUIET)
      set(_nnet3_archs)
      if(_nnet3_gpu_codes_rc EQUAL 0)
        string(REGEX MATCHALL "sm_[0-9]+" _nnet3_sms "${_nnet3_gpu_codes}")
        foreach(_sm IN LISTS _nnet3_sms)
          string(REPLACE "sm_" "" _n "${_sm}")
          if(_n GREATER_EQUAL 70 AND _n LESS_EQUAL 90)
            list(APPEND _nnet3_archs ${_n})
          endif()
        endforeach()
        list(REMOVE_DUPLICATES _nnet3_archs)
        list(SORT _nnet3_archs COMPARE NATURAL)
      endif()
      if(NOT _nnet3_archs)
        set(_nnet3_archs 90)  # an nvcc too old to list its targets
      endif()
      list(POP_BACK _nnet3_archs _nnet3_newest)
      list(TRANSFORM _nnet3_archs APPEND "-real")
      list(APPEND _nnet3_archs ${_nnet3_newest})  # SASS + PTX
      set(CMAKE_CUDA_ARCHITECTURES "${_nnet3_archs}" CACHE STRING
          "CUDA architectures (default: this nvcc's sm_70..sm_90, PTX of the newest)")
      message(STATUS "nnet3: CUDA architectures ${CMAKE_CUDA_ARCHITECTURES}")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(NNET3_HAVE_CUDA ON)
  elseif(NNET3_CUDA STREQUAL "ON")
    message(FATAL_ERROR "NNET3_CUDA=ON but no working nvcc was found")
  endif()
endif()
message(STATUS "nnet3: CUDA backend ${NNET3_HAVE_CUDA} (NNET3_CUDA=${NNET3_CUDA})")
