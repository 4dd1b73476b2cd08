/* Guide example for docs/capi.md: the C ABI (hpfrt.h) from a plain C11 program. An array of 100
 * doubles CYCLIC(3) over all ranks, written by owner-computes through the local block, summed,
 * redistributed to BLOCK, gathered.  mpirun -n 3 ./guide_capi_c */
#include <hpfrt.h>

#include <stdio.h>
#include <stdlib.h>

/* Every call returns an hpf_status; on failure hpf_last_error() holds the message. */
#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    if ((call) != HPF_OK) {                                                                                  \
      fprintf(stderr, "%s failed: %s\n", #call, hpf_last_error());                                           \
      return 1;                                                                                              \
    }                                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  CHECK(hpf_init(&argc, &argv)); /* MPI and Kokkos, like hpf::Environment */
  int rank = 0;
  int size = 0;
  CHECK(hpf_world(&rank, &size));

  hpf_grid grid = NULL;
  CHECK(hpf_grid_create_world(1, &size, &grid));
  const int64_t n = 100;
  const hpf_dist cyclic3 = {HPF_DIST_CYCLIC, 3, NULL};
  hpf_array x = NULL;
  CHECK(hpf_array_create("x", HPF_FLOAT64, 1, &n, &cyclic3, grid, &x)); /* collective */

  /* Owner-computes: walk the local block, ask for each element's global index. */
  double* local = NULL;
  int64_t extent = 0;
  CHECK(hpf_array_local(x, (void**)&local, &extent));
  for (int64_t off = 0; off < extent; ++off) {
    int64_t g = 0;
    CHECK(hpf_array_global_index(x, off, &g));
    local[off] = (double)(g + 1);
  }
  double sum = 0;
  CHECK(hpf_array_sum(x, &sum)); /* collective: 1 + 2 + ... + 100 on every rank */

  const hpf_dist block = {HPF_DIST_BLOCK, 0, NULL};
  CHECK(hpf_array_redistribute(x, &block, grid, HPF_STRATEGY_AUTO)); /* the local pointer changes */

  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  CHECK(hpf_array_gather(x, 0, all));
  int ok = sum == 5050.0;
  for (int64_t i = 0; rank == 0 && i < n; ++i) ok = ok && all[i] == (double)(i + 1);

  /* A bad argument: an error status and a message, never an exception or an abort. */
  const hpf_dist bad = {HPF_DIST_CYCLIC, 0, NULL};
  hpf_array y = NULL;
  ok = ok && hpf_array_create("y", HPF_FLOAT64, 1, &n, &bad, grid, &y) == HPF_ERR_ARG;
  if (rank == 0) printf("guide capi: sum %.0f, %s\n", sum, ok ? "OK" : "WRONG");
  free(all);

  CHECK(hpf_array_free(&x));
  CHECK(hpf_grid_free(&grid));
  CHECK(hpf_finalize());
  return ok ? 0 : 1;
}
