! COMPLEX distributed arrays (free form, !HPF$): COMPLEX(8), DOUBLE COMPLEX, COMPLEX and
! COMPLEX(KIND=...) under DISTRIBUTE and ALIGN; owner-computed FORALL and DO, whole-array and
! section assignments, WHERE, CSHIFT / EOSHIFT, SUM, a READ into elements and a whole array, PRINT /
! WRITE of elements, sections and whole arrays, and a loop run on replicated copies. Every value is
! a small dyadic rational, so every sum is exact in any order: the serial compile and the lowered
! program print the same on any number of ranks.
program complex_arrays
  implicit none
  integer, parameter :: n = 12, m = 5
  integer, parameter :: dk = kind(1.0d0)
  complex(8) :: z(n), w(n)
  double complex :: g(n, m)
  complex :: s(n), sr(4)
  complex(kind=dk) :: t(n), u(n)
  complex(8) :: total, c
  complex :: stotal
  integer :: i, j
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE z(BLOCK) ONTO p
!HPF$ DISTRIBUTE (CYCLIC(2)) ONTO p :: w, s
!HPF$ DISTRIBUTE g(*, BLOCK) ONTO p
!HPF$ ALIGN (i) WITH z(i) :: t, u

  forall (i = 1:n) z(i) = cmplx(i, 2 * i - n, kind=8)
  forall (i = 1:n) s(i) = cmplx(0.5 * i, -0.25 * i)
  forall (i = 1:n, j = 1:m) g(i, j) = cmplx(i + j, i - j, kind=8)
  do i = 1, n
    w(i) = conjg(z(i)) * (0.0d0, 1.0d0)
  end do
  t = (1.5d0, -2.0d0)

  ! Elementwise over aligned arrays, a masked update, a fill.
  t = z * conjg(t) + 2.0d0
  where (real(z) > 6.0d0) t = t / (2.0d0, 0.0d0)
  u = (0.0d0, 0.5d0)
  print '(a, 2f9.3)', 't(3):', t(3)
  print '(4(2f9.3, 2x))', t(1:n:3)
  print '(4(2f9.3, 2x))', t

  ! Sections between distributions, shifts, a transposed copy through a replicated run.
  w(2:n) = z(1:n - 1)
  u = cshift(z, 5)
  print '(6(2f6.1, 1x))', w
  print '(6(2f6.1, 1x))', u
  u = eoshift(t, -2, (9.0d0, -9.0d0))
  print '(6(2f7.2, 1x))', u
  g(:, 2) = z(1:n) * (0.0d0, -1.0d0)
  write (*, '(6(2f6.1, 1x))') g(1:n:2, 1:3)

  ! Reductions, element reads and writes.
  total = sum(z)
  stotal = sum(s)
  c = z(4) * w(5) - g(2, 3)
  print '(a, 2f9.2, a, 2f9.3, a, 2f9.2)', 'sum z:', total, ' sum s:', stotal, ' c:', c
  z(n) = conjg(c)
  s(1) = cmplx(real(w(3)), aimag(z(2)), kind=kind(stotal))
  print *, 'z(n) =', z(n), ' s(1) =', s(1)
  print *, 'sum g =', sum(g), ' sum |z|^2 =', sum(real(z * conjg(z)))

  ! A running sum: each element reads the one before it, on replicated copies.
  do i = 2, n
    w(i) = w(i) + w(i - 1) / 2.0d0
  end do
  print '(6(2f9.4, 1x))', w

  ! READ of elements and a whole array (rank 0 reads, every rank goes on with what was read).
  read (*, *) z(2), s(3)
  read (*, *) sr
  read (*, *) w
  print '(2f7.2, 1x, 2f7.2)', z(2), s(3)
  print '(4(2f7.2, 1x))', sr
  print '(6(2f7.2, 1x))', w
  print *, 'sum w =', sum(w), ' sum z =', sum(z)
end program complex_arrays
