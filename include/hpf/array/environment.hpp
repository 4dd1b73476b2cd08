// hpf::Environment: MPI and Kokkos for the lifetime of the object.
#pragma once

namespace hpf {

/// Initialises MPI (MPI_THREAD_FUNNELED) and Kokkos unless they already are, and finalises on
/// destruction only what it initialised, so it is safe in programs that manage MPI themselves.
/// Every DistArray and ProcessGrid must be destroyed before the Environment.
/// Collective over MPI_COMM_WORLD: it gives MPI_COMM_WORLD its machine model (exec/model.hpp), read
/// from the JSON file named by HPF_MACHINE_MODEL when that is set, measured otherwise.
class Environment {
public:
  /// Initialises with the program's arguments (MPI and Kokkos may consume some of them).
  Environment(int& argc, char**& argv);
  /// Initialises without arguments.
  Environment();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  /// Finalises what this object initialised: Kokkos, then MPI.
  ~Environment();

  /// True when this object initialised MPI (and will finalise it).
  [[nodiscard]] bool initialized_mpi() const noexcept { return m_mpi; }
  /// True when this object initialised Kokkos (and will finalise it).
  [[nodiscard]] bool initialized_kokkos() const noexcept { return m_kokkos; }

  /// This process's rank in MPI_COMM_WORLD. Local.
  [[nodiscard]] int rank() const;
  /// The number of processes in MPI_COMM_WORLD (what ProcessGrid::world({env.size()}) takes). Local.
  [[nodiscard]] int size() const;

private:
  void init(int* argc, char*** argv);
  bool m_mpi = false;
  bool m_kokkos = false;
};

} // namespace hpf
