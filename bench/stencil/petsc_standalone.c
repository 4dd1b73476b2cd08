/* The minimal standalone PETSc call that bench_stencil's petsc-dmda row is checked against: a DMDA of
 * n x n doubles on a p0 x p1 process grid, DMDA_STENCIL_BOX of width w, and DMGlobalToLocalBegin/End
 * timed alone, as PETSc's DMDA examples call it. Prints one CSV row:
 *   ranks,width,seconds   (median of `repeats`, slowest rank)
 *   mpirun -np P bench_stencil_petsc_standalone n w repeats p0 p1 */
#include <petscdmda.h>

#include <stdlib.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (argc != 6) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "usage: %s n w repeats p0 p1\n", argv[0]));
    PetscCall(PetscFinalize());
    return 2;
  }
  const PetscInt n = atol(argv[1]), w = atol(argv[2]);
  const int repeats = atoi(argv[3]);
  const PetscInt p0 = atol(argv[4]), p1 = atol(argv[5]);
  DM da;
  Vec g, l;
  PetscCall(DMDACreate2d(PETSC_COMM_WORLD, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_BOX, n, n, p0,
                         p1, 1, w, NULL, NULL, &da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateGlobalVector(da, &g));
  PetscCall(DMCreateLocalVector(da, &l));
  PetscCall(VecSet(g, 1.0));
  double* t = malloc(sizeof(double) * (size_t)repeats);
  PetscCall(DMGlobalToLocalBegin(da, g, INSERT_VALUES, l)); /* warm-up, as in bench_stencil */
  PetscCall(DMGlobalToLocalEnd(da, g, INSERT_VALUES, l));
  for (int r = 0; r < repeats; ++r) {
    MPI_Barrier(PETSC_COMM_WORLD);
    const double t0 = MPI_Wtime();
    PetscCall(DMGlobalToLocalBegin(da, g, INSERT_VALUES, l));
    PetscCall(DMGlobalToLocalEnd(da, g, INSERT_VALUES, l));
    double dt = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
    t[r] = dt;
  }
  qsort(t, (size_t)repeats, sizeof(double), by_value);
  int size = 0;
  MPI_Comm_size(PETSC_COMM_WORLD, &size);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d,%d,%.6e\n", size, (int)w, t[repeats / 2]));
  free(t);
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&g));
  PetscCall(DMDestroy(&da));
  PetscCall(PetscFinalize());
  return 0;
}
