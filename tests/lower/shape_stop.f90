! A whole distributed array passed to a distributed dummy of another shape (sequence association,
! which HPF 2.0 does not allow for a mapped dummy): the lowered program stops with the procedure,
! the dummy and its line.
program shape_stop
  implicit none
  real(8) :: a(12)
!HPF$ DISTRIBUTE a(BLOCK)
  a = 1.0d0
  call half(a, 6)
  print *, a(1)
end program shape_stop

subroutine half(x, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(inout) :: x(m)
!HPF$ DISTRIBUTE x(CYCLIC)
  x = 2.0d0
end subroutine half
