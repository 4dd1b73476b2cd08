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
