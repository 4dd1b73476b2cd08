# cmake -DHPF_ROOT=<source dir> -P HpfCheckLayers.cmake: fails if a file of a layer (include/hpf/<layer>,
# runtime/<layer>) includes a header of a layer it does not depend on (HpfLayerArrows.cmake, followed
# transitively), mpi.h without depending on core, core/mpi.hpp from an MPI-free layer, or Kokkos
# outside array/. The OBJECT libraries of HpfLayers.cmake catch the last three at compile time for
# runtime/ sources; this also covers headers that no source of their own layer includes.
cmake_minimum_required(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/HpfLayerArrows.cmake)

# Transitive closure of the arrows of each layer (the layer itself included).
foreach(layer IN LISTS HPF_LAYERS)
  set(reach ${layer})
  set(todo ${HPF_ARROWS_${layer}})
  while(todo)
    list(POP_FRONT todo dep)
    if(NOT dep IN_LIST reach)
      list(APPEND reach ${dep})
      list(APPEND todo ${HPF_ARROWS_${dep}})
    endif()
  endwhile()
  set(REACH_${layer} ${reach})
endforeach()

# core/'s headers that use MPI (its RAII and the agreements built on it); the others are core_base.
set(core_mpi_headers mpi.hpp)
set(problems "")
foreach(layer IN LISTS HPF_LAYERS)
  if(layer STREQUAL "core_base")
    continue()
  endif()
  file(GLOB files ${HPF_ROOT}/include/hpf/${layer}/*.hpp ${HPF_ROOT}/include/hpf/${layer}/*/*.hpp
       ${HPF_ROOT}/runtime/${layer}/*.cpp ${HPF_ROOT}/runtime/${layer}/*.hpp)
  foreach(f IN LISTS files)
    # core/'s own headers other than core_mpi_headers are core_base: they must stay MPI-free.
    set(me ${layer})
    get_filename_component(fname ${f} NAME)
    if(layer STREQUAL "core" AND f MATCHES "/include/hpf/core/" AND NOT fname IN_LIST core_mpi_headers)
      set(me core_base)
    endif()
    file(RELATIVE_PATH rel ${HPF_ROOT} ${f})
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include[ \t]*<")
    foreach(line IN LISTS lines)
      if(line MATCHES "<hpf/([a-z_]+)/([^>]+)>")
        set(dep ${CMAKE_MATCH_1})
        set(header ${CMAKE_MATCH_2})
        if(dep STREQUAL "core" AND NOT header IN_LIST core_mpi_headers)
          set(dep core_base) # error, math, names, stats, tags
        endif()
        if(NOT dep IN_LIST REACH_${me})
          list(APPEND problems "${rel}: includes <hpf/${CMAKE_MATCH_1}/${header}>, but ${me} does not depend on ${dep}")
        endif()
      elseif(line MATCHES "<mpi\\.h>" AND NOT "core" IN_LIST REACH_${me})
        list(APPEND problems "${rel}: includes <mpi.h>, but ${me} is MPI-free")
      elseif(line MATCHES "<Kokkos" AND NOT me STREQUAL "array")
        list(APPEND problems "${rel}: includes Kokkos, which only array/ may see")
      endif()
    endforeach()
  endforeach()
endforeach()

if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "layers (DESIGN.md arrows, cmake/HpfLayerArrows.cmake) violated:\n  ${text}")
endif()
message(STATUS "layers: every #include follows the arrows of DESIGN.md")
