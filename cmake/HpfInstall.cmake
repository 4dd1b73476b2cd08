# install() and the exported package: find_package(hpfrt) then link hpfrt::hpfrt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS hpfrt EXPORT hpfrtTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hpfrt_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(HPF_FORTRAN)
  install(TARGETS hpfrt_fortran hpfrt_serial EXPORT hpfrtTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fortran-modules/hpfrt.mod
                ${CMAKE_CURRENT_BINARY_DIR}/fortran-modules/hpf_serial.mod
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
install(DIRECTORY include/hpf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES compiler-support/include/hpfrt.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(HPF_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hpfrt)
install(EXPORT hpfrtTargets NAMESPACE hpfrt:: DESTINATION ${HPF_CMAKE_DIR})
configure_package_config_file(cmake/hpfrtConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/hpfrtConfig.cmake INSTALL_DESTINATION ${HPF_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hpfrtConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hpfrtConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/hpfrtConfigVersion.cmake
              cmake/HpfKokkosTarget.cmake
        DESTINATION ${HPF_CMAKE_DIR})

# pkg-config (lib/pkgconfig/hpfrt.pc): the same library for builds without CMake. libhpfrt is static,
# so Libs carries its private dependencies (Kokkos, the LP solvers, LEMON) too; MPI comes from ompi-cxx.
set(HPF_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH HPF_PC_RELATIVE_PREFIX /${HPF_PC_DIR} /)
string(REGEX REPLACE "/$" "" HPF_PC_RELATIVE_PREFIX "${HPF_PC_RELATIVE_PREFIX}")
get_filename_component(_hpf_pc_kokkos_inc "${KokkosCore_INCLUDE_DIRS}" REALPATH)
set(HPF_PC_CFLAGS "-isystem ${_hpf_pc_kokkos_inc}")
set(HPF_PC_LIBS "")
foreach(dir IN LISTS KokkosCore_LIBRARY_DIRS)
  get_filename_component(dir "${dir}" REALPATH)
  string(APPEND HPF_PC_LIBS " -L${dir}")
endforeach()
foreach(lib IN LISTS KokkosCore_LIBRARIES HPF_LP_LIBRARIES HPF_LEMON_LIBRARIES)
  if(IS_ABSOLUTE "${lib}")
    string(APPEND HPF_PC_LIBS " ${lib}")
  else()
    string(APPEND HPF_PC_LIBS " -l${lib}")
  endif()
endforeach()
string(STRIP "${HPF_PC_LIBS}" HPF_PC_LIBS)
configure_file(cmake/hpfrt.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hpfrt.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hpfrt.pc DESTINATION ${HPF_PC_DIR})
