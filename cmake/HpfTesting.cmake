# Test helpers.
#
#   hpf_add_test(name SOURCES a.cpp ...)
#       A pure test (no MPI calls): one GoogleTest executable, one CTest test.
#   hpf_add_mpi_test(name SOURCES a.cpp ... RANKS 1 2 3 4 7 [TIMEOUT s])
#       An MPI test: one executable with the MPI-aware main (tests/support/mpi_main.cpp), registered
#       once per rank count as `name.npN`, run with `mpiexec --oversubscribe -n N`.
find_package(GTest REQUIRED)

set(HPF_MPIEXEC_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Oversubscribed ranks on two cores: yield instead of spinning while waiting.
  OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
  OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none)

add_library(hpf_mpi_gtest_main STATIC ${PROJECT_SOURCE_DIR}/tests/support/mpi_main.cpp)
target_link_libraries(hpf_mpi_gtest_main PUBLIC hpfrt GTest::gtest)
target_include_directories(hpf_mpi_gtest_main PUBLIC ${PROJECT_SOURCE_DIR}/tests/support)

# Sanitizer builds define HPF_SANITIZED, so randomised tests can scale down (tests/support/test_scale.hpp).
function(hpf_test_definitions target)
  if(HPF_SANITIZE)
    target_compile_definitions(${target} PRIVATE HPF_SANITIZED)
  endif()
endfunction()

function(hpf_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE hpfrt GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  hpf_warnings(${name})
  hpf_test_definitions(${name})
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS pure)
endfunction()

function(hpf_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS;ARGS" ${ARGN})
  if(NOT ARG_RANKS)
    message(FATAL_ERROR "hpf_add_mpi_test(${name}): RANKS is required")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE hpf_mpi_gtest_main)
  hpf_warnings(${name})
  hpf_test_definitions(${name})
  foreach(np IN LISTS ARG_RANKS)
    add_test(NAME ${name}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe --bind-to none ${MPIEXEC_NUMPROC_FLAG} ${np}
                     $<TARGET_FILE:${name}> ${ARG_ARGS})
    set_tests_properties(${name}.np${np} PROPERTIES
      ENVIRONMENT "${HPF_MPIEXEC_ENV}" TIMEOUT ${ARG_TIMEOUT} PROCESSORS ${np} LABELS mpi)
  endforeach()
endfunction()
