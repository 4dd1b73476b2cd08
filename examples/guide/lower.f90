! Guide example for docs/lower.md: an HPF program. Its !HPF$ directives are comments to a Fortran
! compiler, so it runs serially as it stands; `hpfrt lower lower.f90 -o lowered.f90` turns it into a
! program over the hpfrt module that prints the same on any number of ranks.
program guide_lower
  implicit none
  integer, parameter :: n = 100, steps = 4
  real(8) :: u(n), v(n), c(n)
  real(8) :: total, hottest, coldest
  integer :: i, step
!HPF$ PROCESSORS procs(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO procs :: u, v
!HPF$ SHADOW u(1)
!HPF$ SHADOW v(1)
!HPF$ DISTRIBUTE c(CYCLIC(3)) ONTO procs
!HPF$ DYNAMIC c

  forall (i = 1:n) u(i) = dble(mod(7 * i, 16))
  do step = 1, steps
    ! Reads u(i - 1) and u(i + 1): lowered to a shadow update, then an owner-computes loop.
    forall (i = 2:n - 1) u(i) = 0.25d0 * u(i - 1) + 0.5d0 * u(i) + 0.25d0 * u(i + 1)
  end do
  v = cshift(u, 1)             ! the same layout on both sides
  c = v                        ! an assignment between two layouts
!HPF$ REDISTRIBUTE c(BLOCK)
  total = sum(c)
  hottest = maxval(c)
  coldest = minval(u)
  print '(a, f20.10)', 'guide lower: sum ', total
  print '(a, f20.10, a, f20.10)', 'guide lower: max ', hottest, ' min ', coldest
end program guide_lower
