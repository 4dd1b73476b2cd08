# Every dependency is a Debian package installed by scripts/setup; nothing is downloaded.
find_package(MPI REQUIRED COMPONENTS C CXX)
find_package(Boost 1.74 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)

# Debian's Kokkos (libtrilinos-kokkos-dev, Kokkos 3.4) ships a broken `Kokkos` config that points at
# /usr/lib/include; its TriBITS `KokkosCore` config works but its imported target carries no include
# directory. hpf_kokkos wraps it; the headers are SYSTEM so that their C++20 deprecation warnings
# do not drown ours.
find_package(KokkosCore REQUIRED)
include(HpfKokkosTarget)

# Steady-state linear programs (Legrand, Marchal and Robert): QSopt_ex solves them exactly (GMP rationals),
# GLPK in double precision as a cross-check. Plain libraries without CMake configs: found by path and linked
# PRIVATE to hpfrt (absolute paths, so the installed package needs no extra find_dependency).
find_path(HPF_QSOPTEX_INCLUDE_DIR qsopt_ex/QSopt_ex.h REQUIRED)
find_library(HPF_QSOPTEX_LIBRARY qsopt_ex REQUIRED)
find_path(HPF_GLPK_INCLUDE_DIR glpk.h REQUIRED)
find_library(HPF_GLPK_LIBRARY glpk REQUIRED)
find_library(HPF_GMP_LIBRARY gmp REQUIRED)
set(HPF_LP_LIBRARIES ${HPF_QSOPTEX_LIBRARY} ${HPF_GLPK_LIBRARY} ${HPF_GMP_LIBRARY})

# Process relabeling (schedule/assignment.cpp) solves its assignment problem exactly with LEMON's
# network simplex (Debian liblemon-dev). Debian ships LEMON's own lemonConfig.cmake, which sets
# LEMON_INCLUDE_DIRS and LEMON_LIBRARIES (the small static library liblemon.a; the network simplex
# itself is in the headers). Linked PRIVATE to hpfrt by absolute path, like the LP solvers.
find_package(lemon CONFIG REQUIRED)
set(HPF_LEMON_INCLUDE_DIRS ${LEMON_INCLUDE_DIRS})
set(HPF_LEMON_LIBRARIES ${LEMON_LIBRARIES})
