#include <hpf/array/environment.hpp>
#include <hpf/array/section.hpp>
#include <hpf/core/mpi.hpp>
#include <hpf/exec/model.hpp>
#include <hpf/redist/plan_cache.hpp>

#include <Kokkos_Core.hpp>

#include <cstdlib>

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
  // The machine model, once per process: every rank of MPI_COMM_WORLD gets the same one, and every
  // duplicate of MPI_COMM_WORLD (each ProcessGrid on it) inherits it through the attribute.
  if (!has_machine_model(MPI_COMM_WORLD)) {
    const char* path = std::getenv("HPF_MACHINE_MODEL");
    const MachineModel m = path != nullptr && *path != '\0'
                               ? load_machine_model(path)
                               : measure_machine_model(Comm::duplicate(MPI_COMM_WORLD));
    set_machine_model(MPI_COMM_WORLD, m);
    // A local threshold (the store instruction of the copy loops), from the model as well.
    detail::stream_store_min_bytes() = m.shared_cache_bytes / 2;
  }
}

int Environment::rank() const { return comm_rank(MPI_COMM_WORLD); }
int Environment::size() const { return comm_size(MPI_COMM_WORLD); }

Environment::~Environment() {
  // Cached plans hold communicators and executors: release them while MPI is still running.
  clear_plan_cache();
  clear_section_plan_cache();
  if (m_kokkos && Kokkos::is_initialized()) Kokkos::finalize();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (m_mpi && !finalized) MPI_Finalize();
}

} // namespace hpf
