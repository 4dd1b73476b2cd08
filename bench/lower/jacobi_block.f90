! Benchmark program of bench/lower/run.sh: a 2-D Jacobi sweep for Laplace's equation on an n x n
! grid, (BLOCK, BLOCK), a fixed number of sweeps, each followed by the largest change (MAXVAL) as
! the residual. Its directives are comments to a Fortran compiler, so it is also the serial program.
! Prints the residual, a checksum, and the wall-clock and CPU seconds the sweeps took (rank 0's).
program jacobi_block
  implicit none
  integer, parameter :: n = 2000, sweeps = 50
  real(8) :: u(n, n), v(n, n), r(n, n)
  real(8) :: res, total
  integer :: i, j, it
  integer(8) :: t0, t1, rate
  real(8) :: c0, c1
!HPF$ PROCESSORS g(2, 2)
!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO g :: u, v, r
!HPF$ SHADOW u(1, 1)

  forall (i = 1:n, j = 1:n) u(i, j) = dble(mod(7 * i + 13 * j, 17)) / 16.0d0
  forall (i = 1:n, j = 1:n) v(i, j) = 0.0d0
  forall (i = 1:n, j = 1:n) r(i, j) = 0.0d0
  res = 0.0d0
  call system_clock(t0, rate)
  call cpu_time(c0)
  do it = 1, sweeps
    forall (i = 2:n - 1, j = 2:n - 1) v(i, j) = 0.25d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1))
    forall (i = 2:n - 1, j = 2:n - 1) r(i, j) = abs(v(i, j) - u(i, j))
    res = maxval(r)
    forall (i = 2:n - 1, j = 2:n - 1) u(i, j) = v(i, j)
  end do
  call system_clock(t1)
  call cpu_time(c1)
  total = sum(u)
  print '(a, es12.4)', 'residual ', res
  print '(a, es12.4)', 'checksum ', total
  print '(a, f12.6)', 'seconds ', dble(t1 - t0) / dble(rate)
  print '(a, f12.6)', 'cpu ', c1 - c0
end program jacobi_block
