// Forced include (-include) of the SMPI build only: SimGrid 3.32's mpi.h names MPI_CXX_FLOAT_COMPLEX and
// MPI_CXX_DOUBLE_COMPLEX but does not define their handles. std::complex<T> has the layout of
// T _Complex, so the C types stand in for them; this keeps core/mpi.hpp free of SimGrid special cases.
#pragma once
#include <mpi.h>
#undef MPI_CXX_FLOAT_COMPLEX
#undef MPI_CXX_DOUBLE_COMPLEX
#define MPI_CXX_FLOAT_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_CXX_DOUBLE_COMPLEX MPI_C_DOUBLE_COMPLEX
