// The BLACS and ScaLAPACK entry points the benchmarks call, declared once. The REDISTRIBUTE and
// section benchmarks include it through bench/redistribute/peers.hpp.
#pragma once

extern "C" {
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int error_code);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc,
               const int* icsrc, const int* ictxt, const int* lld, int* info);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca,
               double* b, const int* ib, const int* jb, const int* descb, const int* ictxt);
void pdtran_(const int* m, const int* n, const double* alpha, const double* a, const int* ia, const int* ja,
             const int* desca, const double* beta, double* c, const int* ic, const int* jc, const int* descc);
void pdgeadd_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
              const int* ia, const int* ja, const int* desca, const double* beta, double* c, const int* ic,
              const int* jc, const int* descc);
// Complex*16 arguments as pairs of doubles (std::complex<double>'s layout).
void pztranc_(const int* m, const int* n, const double* alpha, const double* a, const int* ia, const int* ja,
              const int* desca, const double* beta, double* c, const int* ic, const int* jc, const int* descc);
}
