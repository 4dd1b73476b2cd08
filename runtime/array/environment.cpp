#include <hpf/array/environment.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/redist/plan_cache.hpp>

#include <Kokkos_Core.hpp>

namespace hpf {

Environment::Environment(int& argc, char**& argv) { init(&argc, &argv); }
Environment::Environment() { init(nullptr, nullptr); }

void Environment::init(int* argc, char*** argv) {
  int initialized = 0;
  HPF_MPI_CHECK(MPI_Initialized(&initialized));
  if (!initialized) {
    int provided = 0;
    HPF_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    m_mpi = true;
  }
  if (!Kokkos::is_initialized()) {
    if (argc != nullptr) {
      Kokkos::initialize(*argc, *argv);
    } else {
      Kokkos::initialize();
    }
    m_kokkos = true;
  }
}

Environment::~Environment() {
  // Cached plans hold communicators and executors: release them while MPI is still running.
  clear_plan_cache();
  if (m_kokkos && Kokkos::is_initialized()) Kokkos::finalize();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (m_mpi && !finalized) MPI_Finalize();
}

} // namespace hpf
