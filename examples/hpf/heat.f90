! An HPF program: its !HPF$ directives are comments to a Fortran compiler, so it also runs serially.
! `hpfrt lower heat.f90` turns it into a program over the hpfrt runtime that prints the same.
program heat
  implicit none
  integer, parameter :: n = 1000, m = 12
  real(8) :: u(n), w(0:m - 1, 0:m - 1)
  integer(8) :: counts(n)
  real(8) :: total, hottest, coldest, mass
  integer(8) :: ncount
  integer :: i, j, step
!HPF$ PROCESSORS procs(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE u(CYCLIC(3)) ONTO procs
!HPF$ DISTRIBUTE (BLOCK, *) ONTO procs :: w
!HPF$ DISTRIBUTE counts(BLOCK) ONTO procs
!HPF$ DYNAMIC u

  ! Initial temperature: a ramp; every element is an integer, so sums are exact in any order.
  forall (i = 1:n) u(i) = dble(mod(7 * i, 100))
  total = sum(u)
  hottest = maxval(u)
  coldest = minval(u)
  print '(a, f12.1, a, f6.1, a, f6.1)', 'u: sum ', total, ' max ', hottest, ' min ', coldest

  ! Phase change: the next kernel prefers larger blocks. The data moves; the sums do not change.
!HPF$ REDISTRIBUTE u(CYCLIC(5))
  total = sum(u)
  print '(a, f12.1)', 'u after REDISTRIBUTE: sum ', total

  do step = 1, 3
    forall (i = 1:n / 2) u(i) = dble(step * i)
    total = sum(u)
    print '(a, i2, a, f14.1)', 'step ', step, ': sum ', total
  end do

  w = 1.0d0
  forall (i = 0:m - 1, j = 0:m - 1) w(i, j) = dble(i + 100 * j)
  mass = sum(w)
  print '(a, f14.1)', 'w: sum ', mass

  counts = 2_8
  forall (i = 10:20) counts(i) = int(i, 8)
  ncount = sum(counts)
  print '(a, i10)', 'counts: sum ', ncount
end program heat
