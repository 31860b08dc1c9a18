# FindOpenBLAS: locates OpenBLAS (Debian's libopenblas-dev) and its cblas.h.
# Defines the imported target OpenBLAS::OpenBLAS and OpenBLAS_FOUND.
# Debian installs the library behind the alternatives system
# (/usr/lib/<triplet>/libopenblas.so) and the header under
# /usr/include/<triplet>/ or /usr/include/openblas; we search all of them.
include(FindPackageHandleStandardArgs)

find_path(OpenBLAS_INCLUDE_DIR
  NAMES cblas.h
  PATH_SUFFIXES openblas openblas-pthread openblas-openmp
  HINTS ENV OpenBLAS_HOME
  PATHS /usr/include /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}
        /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread
        /usr/local/include)

find_library(OpenBLAS_LIBRARY
  NAMES openblas
  HINTS ENV OpenBLAS_HOME
  PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}
        /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-pthread
        /usr/local/lib)

find_package_handle_standard_args(OpenBLAS
  REQUIRED_VARS OpenBLAS_LIBRARY OpenBLAS_INCLUDE_DIR)

if(OpenBLAS_FOUND AND NOT TARGET OpenBLAS::OpenBLAS)
  add_library(OpenBLAS::OpenBLAS UNKNOWN IMPORTED)
  set_target_properties(OpenBLAS::OpenBLAS PROPERTIES
    IMPORTED_LOCATION "${OpenBLAS_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${OpenBLAS_INCLUDE_DIR}")
endif()
mark_as_advanced(OpenBLAS_INCLUDE_DIR OpenBLAS_LIBRARY)
