# The layers of DESIGN.md as CMake OBJECT libraries, one per folder of runtime/, linked along the
# arrows only. The exported library hpfrt (CMakeLists.txt) is made of all their objects; these targets
# exist so that a layer that includes what it must not fails to compile:
#
#   | target         | sources                     | links (usage requirements)                       |
#   |----------------|-----------------------------|--------------------------------------------------|
#   | hpf_core_base  | runtime/core/error.cpp      | include/ (MPI only PRIVATE: the world rank that  |
#   |                |                             | error messages carry)                            |
#   | hpf_core       | runtime/core/*.cpp, rest    | hpf_core_base, MPI                               |
#   | hpf_layout     | runtime/layout/*.cpp        | hpf_core                                         |
#   | hpf_schedule   | runtime/schedule/*.cpp      | hpf_core_base  (pure: no mpi.h on the path);     |
#   |                |                             | LEMON (assignment.cpp)                           |
#   | hpf_exec       | runtime/exec/*.cpp          | hpf_schedule, hpf_core; nlohmann (no Kokkos)     |
#   | hpf_redist     | runtime/redist/*.cpp        | hpf_layout, hpf_schedule, hpf_exec               |
#   | hpf_irregular  | runtime/irregular/*.cpp     | hpf_schedule, hpf_exec                           |
#   | hpf_steady     | runtime/steady/*.cpp        | hpf_schedule, hpf_exec, hpf_adaptive, Boost;     |
#   |                |                             | QSopt_ex, GLPK                                   |
#   | hpf_reduce     | runtime/reduce/*.cpp        | hpf_exec, hpf_schedule                           |
#   | hpf_adaptive   | runtime/adaptive/*.cpp      | hpf_exec, hpf_schedule                           |
#   | hpf_section    | runtime/section/*.cpp       | hpf_layout, hpf_schedule, hpf_exec               |
#   | hpf_array      | runtime/array/*.cpp         | hpf_layout, hpf_redist, hpf_irregular,           |
#   |                |                             | hpf_reduce, hpf_section, hpf_steady,             |
#   |                |                             | Kokkos (hpf_kokkos)                              |
#
# Only array/ sees Kokkos; only the layers at or above core (not schedule/) see MPI. core/'s MPI-free
# headers (error, math, names, stats, tags) are the part of core that schedule/ may include.
# array/ also links irregular/ and reduce/: it holds their DistArray faces (GatherPlan, ScatterPlan,
# tree_reduce of a DistArray), which live above both (DESIGN.md lists array -> layout, redist, Kokkos).
#
# The arrows themselves are in HpfLayerArrows.cmake. Include paths cannot tell one hpf layer's headers
# from another's (all live under include/hpf), so the test `layers` (cmake/HpfCheckLayers.cmake)
# checks the #include lines of every layer against the same table.

set(HPF_LAYER_TARGETS "")

# hpf_layer(name FOLDER dir [EXCLUDE files...] LINKS targets... [PRIVATE_LINKS targets...])
function(hpf_layer name)
  cmake_parse_arguments(ARG "" "FOLDER" "EXCLUDE;LINKS;PRIVATE_LINKS;SOURCES" ${ARGN})
  if(ARG_SOURCES)
    set(sources ${ARG_SOURCES})
  else()
    file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/runtime/${ARG_FOLDER}/*.cpp)
    foreach(ex IN LISTS ARG_EXCLUDE)
      list(REMOVE_ITEM sources ${PROJECT_SOURCE_DIR}/runtime/${ARG_FOLDER}/${ex})
    endforeach()
  endif()
  add_library(${name} OBJECT ${sources})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC ${ARG_LINKS} PRIVATE ${ARG_PRIVATE_LINKS})
  hpf_warnings(${name})
  set(HPF_LAYER_TARGETS ${HPF_LAYER_TARGETS} ${name} PARENT_SCOPE)
endfunction()

# The project's headers, nothing else: every layer starts from this.
add_library(hpf_include INTERFACE)
target_include_directories(hpf_include INTERFACE ${PROJECT_SOURCE_DIR}/include)
target_compile_features(hpf_include INTERFACE cxx_std_20)

include(HpfLayerArrows)
# The arrows of HpfLayerArrows.cmake, as targets, plus each layer's outside dependencies.
macro(hpf_arrows_of layer out)
  set(${out} "")
  foreach(dep IN LISTS HPF_ARROWS_${layer})
    list(APPEND ${out} hpf_${dep})
  endforeach()
endmacro()

hpf_arrows_of(core_base _links)
hpf_layer(hpf_core_base SOURCES ${PROJECT_SOURCE_DIR}/runtime/core/error.cpp LINKS hpf_include ${_links}
          PRIVATE_LINKS MPI::MPI_CXX)
hpf_arrows_of(core _links)
hpf_layer(hpf_core FOLDER core EXCLUDE error.cpp LINKS ${_links} MPI::MPI_CXX)
foreach(layer IN ITEMS layout schedule redist irregular reduce adaptive section)
  hpf_arrows_of(${layer} _links)
  hpf_layer(hpf_${layer} FOLDER ${layer} LINKS ${_links})
endforeach()
# exec/model.cpp reads and writes the machine model as JSON.
hpf_arrows_of(exec _links)
hpf_layer(hpf_exec FOLDER exec LINKS ${_links} PRIVATE_LINKS $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)
hpf_arrows_of(steady _links)
hpf_layer(hpf_steady FOLDER steady LINKS ${_links} Boost::headers
          PRIVATE_LINKS $<BUILD_INTERFACE:nlohmann_json::nlohmann_json>)
target_include_directories(hpf_steady PRIVATE ${HPF_QSOPTEX_INCLUDE_DIR} ${HPF_GLPK_INCLUDE_DIR})
target_include_directories(hpf_schedule SYSTEM PRIVATE ${HPF_LEMON_INCLUDE_DIRS})
hpf_arrows_of(array _links)
hpf_layer(hpf_array FOLDER array LINKS ${_links} hpf_kokkos)

# A new folder of runtime/ is a new layer: it needs its line above (and its row in DESIGN.md), or its
# sources would silently miss the library.
file(GLOB _hpf_runtime_dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/runtime/*)
foreach(dir IN LISTS _hpf_runtime_dirs)
  get_filename_component(folder ${dir} NAME)
  if(IS_DIRECTORY ${dir} AND NOT folder STREQUAL "cli" AND NOT TARGET hpf_${folder})
    message(FATAL_ERROR "runtime/${folder}/ is not a layer: add hpf_layer(hpf_${folder} ...) to "
                        "cmake/HpfLayers.cmake with the arrows of DESIGN.md")
  endif()
endforeach()
