/* A plain C program against hpfrt.h (compiled as C11: the header must be valid C). It distributes
 * 1..100 CYCLIC(3) over all ranks, checks the sum and the gathered array, and reports errors. */
#include <hpfrt.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                          \
  do {                                                                                                       \
    if ((call) != HPF_OK) {                                                                                  \
      fprintf(stderr, "%s failed: %s\n", #call, hpf_last_error());                                           \
      return 1;                                                                                              \
    }                                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  CHECK(hpf_init(&argc, &argv));
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  hpf_grid grid = NULL;
  CHECK(hpf_grid_create(MPI_COMM_WORLD, 0, NULL, 1, &size, &grid));
  const int64_t n = 100;
  const hpf_dist cyclic3 = {HPF_DIST_CYCLIC, 3, NULL};
  hpf_array x = NULL;
  CHECK(hpf_array_create("x", HPF_FLOAT64, 1, &n, &cyclic3, grid, &x));

  double* all = rank == 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
  for (int64_t i = 0; rank == 0 && i < n; ++i) all[i] = (double)(i + 1);
  CHECK(hpf_array_scatter(x, 0, all, rank == 0 ? n : 0));
  double sum = 0;
  CHECK(hpf_array_sum(x, &sum));
  for (int64_t i = 0; rank == 0 && i < n; ++i) all[i] = 0;
  CHECK(hpf_array_gather(x, 0, all));
  int ok = sum == 5050.0;
  for (int64_t i = 0; rank == 0 && i < n; ++i) ok = ok && all[i] == (double)(i + 1);
  if (rank == 0) printf("C ABI: sum %.0f, gather %s\n", sum, ok ? "OK" : "WRONG");
  free(all);

  CHECK(hpf_array_free(&x));
  CHECK(hpf_grid_free(&grid));
  CHECK(hpf_finalize());
  return ok ? 0 : 1;
}
