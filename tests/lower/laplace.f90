! A Jacobi solver for Laplace's equation as HPF textbooks write it (free form, !HPF$): a literal
! PROCESSORS procs(2, 2), DIMENSION with 0-based bounds, ALIGN, a DO WHILE convergence loop around
! a stencil FORALL, MAXVAL(ABS(...)) of sections, section assignments, an implied-DO PRINT.
program jacobi
  implicit none
  integer, parameter :: n = 20
  real(8), dimension(0:n+1, 0:n+1) :: u, unew
  real(8) :: err, tol
  integer :: i, j, iter, maxit
!HPF$ PROCESSORS procs(2, 2)
!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO procs :: u
!HPF$ ALIGN unew(i, j) WITH u(i, j)
  tol = 1.0d-4
  maxit = 500
  u = 0.0d0
  u(0, :) = 1.0d0
  u(:, n+1) = 2.0d0
  unew = u
  iter = 0
  err = 1.0d0
  do while (err > tol .and. iter < maxit)
    iter = iter + 1
    forall (i = 1:n, j = 1:n) unew(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1))
    err = maxval(abs(unew(1:n, 1:n) - u(1:n, 1:n)))
    u(1:n, 1:n) = unew(1:n, 1:n)
    if (mod(iter, 100) == 0) write (*, '(a, i5, es12.4)') 'iter', iter, err
  end do
  print '(a, i5)', 'iterations:', iter
  print '(a, f12.6)', 'center:', u(n/2, n/2)
  print '(5f10.5)', (u(i, n/2), i = 1, n, 4)
end program jacobi
