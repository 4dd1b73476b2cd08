! hpfrt's own test of PURE and ELEMENTAL functions that read distributed arrays through their
! arguments: they are copied as they are (a PURE procedure cannot communicate) and the statements
! that call them run over replicated copies of the distributed actuals.
module pure_procs_fns
  implicit none
contains
  elemental real(8) function clip(v, lim)
    real(8), intent(in) :: v, lim
    clip = min(max(v, -lim), lim)
  end function clip
end module pure_procs_fns

program pure_procs
  use pure_procs_fns
  implicit none
  integer, parameter :: n = 30
  real(8) :: u(n), v(n), e
  integer :: i
  interface
    pure real(8) function energy(w, m)
      integer, intent(in) :: m
      real(8), intent(in) :: w(m)
    end function energy
    elemental real(8) function bump(t)
      real(8), intent(in) :: t
    end function bump
  end interface
!HPF$ DISTRIBUTE u(BLOCK)
!HPF$ DISTRIBUTE v(CYCLIC(4))
  forall (i = 1:n) u(i) = sin(0.3d0 * i) * 2.0d0
  v = clip(u, 1.5d0)
  e = energy(v, n)
  print '(a, f16.10)', 'pure_procs: energy ', e
  v = bump(u) + clip(v, 0.5d0)
  print '(a, 3f16.10)', 'pure_procs: v ', v(1), v(n / 2), v(n)
  print '(a, f16.10)', 'pure_procs: energy of a section ', energy(u(3:12), 10)
end program pure_procs

pure real(8) function energy(w, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: w(m)
  energy = 0.5d0 * sum(w * w)
end function energy

elemental real(8) function bump(t)
  implicit none
  real(8), intent(in) :: t
  bump = t * t / (1.0d0 + t * t)
end function bump
