# Sourced by the scripts: Open MPI settings for running as root on an oversubscribed small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_rmaps_base_oversubscribe=1
# No single copy (CMA): every MPI peer and hpfrt's MPI path run without it alike; here it is faster
# up to 8 MiB a message, and at 64 MiB neither wins every job (bench/transport/single_copy.sh,
# docs/redistribute.md).
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
HPF_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HPF_JOBS="${HPF_JOBS:-$(nproc)}"
export HPF_ROOT HPF_JOBS
