# Sourced by the scripts: Open MPI settings for running as root on an oversubscribed small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
# Otherwise Open MPI's defaults: the transports and single-copy mechanism users get.
HPF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HPF_JOBS="${HPF_JOBS:-$(nproc)}"
export HPF_ROOT HPF_JOBS
