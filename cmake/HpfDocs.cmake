# The API reference (docs/Doxyfile.in): `ninja docs` writes build/docs/api/html, and the CTest test
# `doxygen_warnings` fails on any Doxygen warning for a public header (cmake/HpfDoxygenCheck.cmake).
find_program(DOXYGEN_EXECUTABLE doxygen)
if(NOT DOXYGEN_EXECUTABLE)
  message(STATUS "doxygen not found: no `docs` target (scripts/setup installs it)")
  return()
endif()
set(HPF_DOXYGEN_OUT ${CMAKE_CURRENT_BINARY_DIR}/docs/api)
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${CMAKE_CURRENT_BINARY_DIR}/docs/Doxyfile @ONLY)
add_custom_target(docs
  COMMAND ${CMAKE_COMMAND} -E make_directory ${HPF_DOXYGEN_OUT}
  COMMAND ${DOXYGEN_EXECUTABLE} ${CMAKE_CURRENT_BINARY_DIR}/docs/Doxyfile
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  COMMENT "Doxygen: API reference in ${HPF_DOXYGEN_OUT}/html" VERBATIM)
if(HPF_BUILD_TESTS)
  add_test(NAME doxygen_warnings
           COMMAND ${CMAKE_COMMAND} -DDOXYGEN=${DOXYGEN_EXECUTABLE}
                   -DDOXYFILE=${CMAKE_CURRENT_BINARY_DIR}/docs/Doxyfile -DOUT=${HPF_DOXYGEN_OUT}
                   -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -P ${PROJECT_SOURCE_DIR}/cmake/HpfDoxygenCheck.cmake)
  set_tests_properties(doxygen_warnings PROPERTIES LABELS pure TIMEOUT 120 RESOURCE_LOCK doxygen)
endif()
