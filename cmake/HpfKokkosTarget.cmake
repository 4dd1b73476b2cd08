# Defines the interface target hpf_kokkos (used at build time and by the installed package config).
if(NOT TARGET hpf_kokkos)
  get_filename_component(_hpf_kokkos_inc "${KokkosCore_INCLUDE_DIRS}" REALPATH)
  add_library(hpf_kokkos INTERFACE IMPORTED GLOBAL)
  set_target_properties(hpf_kokkos PROPERTIES
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_hpf_kokkos_inc}"
    INTERFACE_INCLUDE_DIRECTORIES "${_hpf_kokkos_inc}"
    INTERFACE_LINK_LIBRARIES "${KokkosCore_LIBRARIES}")
  set_property(TARGET hpf_kokkos APPEND PROPERTY INTERFACE_LINK_DIRECTORIES "${KokkosCore_LIBRARY_DIRS}")
endif()
