# install() and the exported package: find_package(hpfrt) then link hpfrt::hpfrt.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS hpfrt EXPORT hpfrtTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS hpfrt_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(HPF_FORTRAN)
  install(TARGETS hpfrt_fortran EXPORT hpfrtTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/fortran-modules/hpfrt.mod DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
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
