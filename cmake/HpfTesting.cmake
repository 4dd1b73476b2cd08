# Test helpers.
#
#   hpf_add_test(name SOURCES a.cpp ...)
#       A pure test (no MPI calls): one GoogleTest executable, one CTest test.
#   hpf_add_mpi_test(name SOURCES a.cpp ... RANKS 1 2 3 4 7 [TIMEOUT s])
#       An MPI test: one executable with the MPI-aware main (tests/support/mpi_main.cpp), registered
#       once per rank count as `name.npN`, run with `mpiexec --oversubscribe -n N`.
#   hpf_add_mpi_test_variant(name variant RANKS 3 4 ENV A=1)
#       The same MPI test again, as `name.variant.npN`, with A=1 in its environment.
find_package(GTest REQUIRED)

set(HPF_MPIEXEC_ENV
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  # Oversubscribed ranks on two cores: yield instead of spinning while waiting.
  OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
  # A fixed machine model (exec/model.hpp): tests are deterministic and do not spend seconds measuring
  # on oversubscribed ranks at every start. The tests of the measurement itself call it directly.
  HPF_MACHINE_MODEL=${PROJECT_SOURCE_DIR}/tests/support/machine_model.json)

add_library(hpf_mpi_gtest_main STATIC ${PROJECT_SOURCE_DIR}/tests/support/mpi_main.cpp)
target_link_libraries(hpf_mpi_gtest_main PUBLIC hpfrt GTest::gtest)
target_include_directories(hpf_mpi_gtest_main PUBLIC ${PROJECT_SOURCE_DIR}/tests/support)

# Sanitizer builds define HPF_SANITIZED, so randomised tests can scale down (tests/support/test_scale.hpp).
function(hpf_test_definitions target)
  if(HPF_SANITIZE)
    target_compile_definitions(${target} PRIVATE HPF_SANITIZED)
  endif()
endfunction()

# One precompiled header for every GoogleTest executable: hpf_test.hpp (the library's umbrella header,
# GoogleTest and the helpers), parsed once instead of once per test source. All test sources are built
# with the same flags, which a reused precompiled header needs.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/hpf_test_pch.cpp "// The translation unit that builds the tests' precompiled header.\n")
add_library(hpf_test_pch OBJECT ${CMAKE_CURRENT_BINARY_DIR}/hpf_test_pch.cpp)
target_link_libraries(hpf_test_pch PRIVATE hpfrt GTest::gtest)
target_include_directories(hpf_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
target_precompile_headers(hpf_test_pch PRIVATE ${PROJECT_SOURCE_DIR}/tests/support/hpf_test.hpp)
hpf_warnings(hpf_test_pch)
hpf_test_definitions(hpf_test_pch)

function(hpf_add_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE hpfrt GTest::gtest GTest::gtest_main)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  hpf_warnings(${name})
  hpf_test_definitions(${name})
  target_precompile_headers(${name} REUSE_FROM hpf_test_pch)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT} LABELS pure)
endfunction()

function(hpf_add_mpi_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;RANKS;ARGS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE hpf_mpi_gtest_main)
  hpf_warnings(${name})
  hpf_test_definitions(${name})
  target_precompile_headers(${name} REUSE_FROM hpf_test_pch)
  hpf_register_mpi_runs(TARGET ${name} PREFIX ${name} RANKS ${ARG_RANKS} TIMEOUT ${ARG_TIMEOUT}
                        ENV ${HPF_MPIEXEC_ENV} ARGS ${ARG_ARGS})
endfunction()

# hpf_add_mpi_test_variant(name variant RANKS 3 4 [ENV A=1 ...] [TIMEOUT s])
#     The MPI test `name` (made by hpf_add_mpi_test) registered again as `name.variant.npN`, with
#     ENV added to its environment: the same program under another setting of the runtime.
function(hpf_add_mpi_test_variant name variant)
  cmake_parse_arguments(ARG "" "TIMEOUT" "RANKS;ENV" ${ARGN})
  hpf_register_mpi_runs(TARGET ${name} PREFIX ${name}.${variant} RANKS ${ARG_RANKS} TIMEOUT ${ARG_TIMEOUT}
                        ENV ${HPF_MPIEXEC_ENV} ${ARG_ENV})
endfunction()

# One CTest test `PREFIX.npN` per rank count of RANKS (required): TARGET under mpiexec with ENV and
# ARGS, TIMEOUT seconds (300 unless given).
function(hpf_register_mpi_runs)
  cmake_parse_arguments(ARG "" "TARGET;PREFIX;TIMEOUT" "RANKS;ENV;ARGS" ${ARGN})
  if(NOT ARG_RANKS)
    message(FATAL_ERROR "${ARG_PREFIX}: RANKS is required")
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  foreach(np IN LISTS ARG_RANKS)
    add_test(NAME ${ARG_PREFIX}.np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} --oversubscribe --bind-to none ${MPIEXEC_NUMPROC_FLAG} ${np}
                     $<TARGET_FILE:${ARG_TARGET}> ${ARG_ARGS})
    set_tests_properties(${ARG_PREFIX}.np${np} PROPERTIES
      ENVIRONMENT "${ARG_ENV}" TIMEOUT ${ARG_TIMEOUT} PROCESSORS ${np} LABELS mpi)
  endforeach()
endfunction()

# hpf_add_cli_error_tests(PREFIX name SUBCOMMAND sub [ARGS_BEFORE a ...] [WORKING_DIRECTORY dir]
#                         CASES "--x;1" "--x;2;--y;3" ...)
#     One pure test per case, `<PREFIX>_bad_<case>` (file names without their directory, every run of
#     other characters than letters and digits as "_"): `hpfrt <sub> <ARGS_BEFORE...> <case...>` must
#     exit with status 2 and print a message on stderr. Each case is one argument holding a ;-list
#     (read through ARGV<i>, which keeps it whole). The output is captured in a shell variable before
#     it is tested: piping the tool into `grep -q` could kill it with SIGPIPE and hide the exit code.
function(hpf_add_cli_error_tests)
  set(prefix "")
  set(subcommand "")
  set(before "")
  set(workdir "")
  set(cases "")
  set(mode "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE 0 ${last})
    set(arg "${ARGV${i}}")
    if(arg MATCHES "^(PREFIX|SUBCOMMAND|ARGS_BEFORE|WORKING_DIRECTORY|CASES)$")
      set(mode "${arg}")
    elseif(mode STREQUAL "PREFIX")
      set(prefix "${arg}")
    elseif(mode STREQUAL "SUBCOMMAND")
      set(subcommand "${arg}")
    elseif(mode STREQUAL "ARGS_BEFORE")
      list(APPEND before "${arg}")
    elseif(mode STREQUAL "WORKING_DIRECTORY")
      set(workdir "${arg}")
    elseif(mode STREQUAL "CASES")
      string(REPLACE ";" "\\;" escaped "${arg}") # one list element per case
      list(APPEND cases "${escaped}")
    else()
      message(FATAL_ERROR "hpf_add_cli_error_tests: unexpected argument '${arg}'")
    endif()
  endforeach()
  if(prefix STREQUAL "" OR subcommand STREQUAL "" OR cases STREQUAL "")
    message(FATAL_ERROR "hpf_add_cli_error_tests: PREFIX, SUBCOMMAND and CASES are required")
  endif()
  if(workdir STREQUAL "")
    set(workdir "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  foreach(case IN LISTS cases)
    string(REGEX REPLACE "[^;]*/([^/;]+)" "\\1" name "${case}")
    string(REGEX REPLACE "[^A-Za-z0-9]+" "_" name "${name}")
    string(REGEX REPLACE "^_|_$" "" name "${name}")
    set(test_name ${prefix}_bad_${name})
    add_test(NAME ${test_name}
             COMMAND sh -c "err=$(\"$0\" \"$@\" 2>&1 >/dev/null); rc=$?; printf '%s\\nexit %s\\n' \"$err\" $rc; test $rc -eq 2 && test -n \"$err\""
                     $<TARGET_FILE:hpfrt_cli> ${subcommand} ${before} ${case}
             WORKING_DIRECTORY ${workdir})
    set_tests_properties(${test_name} PROPERTIES LABELS pure TIMEOUT 30)
  endforeach()
endfunction()
