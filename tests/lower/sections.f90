! Array sections and TRANSPOSE between distributed arrays: strided and reversed sections,
! scalar subscripts (rank reduction), omitted bounds, lower bounds other than 1, an overlapping
! assignment within one array, a whole-array copy between distributions, and TRANSPOSE. Each result is
! printed as a weighted checksum (exact in double precision), so the lowered program on P ranks must
! print what the serial program prints.
program sections
  implicit none
  integer, parameter :: n = 12, m = 7
  real(8) :: a(n, m), wa(n, m), b(n, m), wb(n, m), c(m, n), wc(m, n)
  real(8) :: u(0:n - 1), wu(0:n - 1), v(n), wv(n)
  real(8) :: s
  integer :: i, j
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (CYCLIC(2), *) ONTO p :: a, wa
!HPF$ DISTRIBUTE (*, BLOCK) ONTO p :: b, wb
!HPF$ DISTRIBUTE (BLOCK, *) ONTO p :: c, wc
!HPF$ DISTRIBUTE u(CYCLIC(3)) ONTO p
!HPF$ DISTRIBUTE wu(CYCLIC(3)) ONTO p
!HPF$ DISTRIBUTE v(BLOCK) ONTO p
!HPF$ DISTRIBUTE wv(BLOCK) ONTO p

  forall (i = 1:n, j = 1:m) a(i, j) = i + 100 * j
  b = 0.5d0
  c = -1.0d0
  forall (i = 0:n - 1) u(i) = 3 * i + 1
  v = 2.0d0

  b(1:n:2, :) = a(2:n:2, :)
  forall (i = 1:n, j = 1:m) wb(i, j) = b(i, j) * (i + 3 * j)
  s = sum(wb)
  print '(a, f0.1)', 'strided b(1:n:2,:) = a(2:n:2,:): ', s

  b(3, 2:m) = a(n - 5:n, 1)
  forall (i = 1:n, j = 1:m) wb(i, j) = b(i, j) * (i + 3 * j)
  s = sum(wb)
  print '(a, f0.1)', 'rank reduction b(3,2:m) = a(n-5:n,1): ', s

  b(n:1:-1, 1) = a(:, 2)
  forall (i = 1:n, j = 1:m) wb(i, j) = b(i, j) * (i + 3 * j)
  s = sum(wb)
  print '(a, f0.1)', 'reversed b(n:1:-1,1) = a(:,2): ', s

  a(2:n, :) = a(1:n - 1, :)
  forall (i = 1:n, j = 1:m) wa(i, j) = a(i, j) * (2 * i + j)
  s = sum(wa)
  print '(a, f0.1)', 'overlapping a(2:n,:) = a(1:n-1,:): ', s

  c = transpose(a)
  forall (i = 1:m, j = 1:n) wc(i, j) = c(i, j) * (i + 5 * j)
  s = sum(wc)
  print '(a, f0.1)', 'c = transpose(a): ', s

  c(m:1:-1, 1:n:2) = a(1:m, 1:6)
  forall (i = 1:m, j = 1:n) wc(i, j) = c(i, j) * (i + 5 * j)
  s = sum(wc)
  print '(a, f0.1)', 'c(m:1:-1,1:n:2) = a(1:m,1:6): ', s

  b = a
  forall (i = 1:n, j = 1:m) wb(i, j) = b(i, j) * (i + 3 * j)
  s = sum(wb)
  print '(a, f0.1)', 'copy b = a: ', s

  v(2:n) = u(0:n - 2)
  v(:4) = u(n - 4:)
  u(n - 1:0:-2) = v(1:n:2)
  forall (i = 0:n - 1) wu(i) = u(i) * (i + 1)
  forall (i = 1:n) wv(i) = v(i) * (2 * i - 1)
  s = sum(wu)
  print '(a, f0.1)', 'lower bound 0: u ', s
  s = sum(wv)
  print '(a, f0.1)', 'lower bound 1: v ', s
end program sections
