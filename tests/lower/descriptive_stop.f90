! A descriptive mapping that does not hold: the dummy is described as BLOCK, the actual is
! CYCLIC(2). On more than one rank the lowered program stops with the procedure, the dummy and the
! line of the DISTRIBUTE (on one rank both layouts are the same and it runs).
program descriptive_stop
  implicit none
  real(8) :: a(12)
!HPF$ DISTRIBUTE a(CYCLIC(2))
  a = 1.0d0
  call scale(a, 12)
  print *, a(1)
end program descriptive_stop

subroutine scale(x, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(inout) :: x(m)
!HPF$ DISTRIBUTE x *(BLOCK)
  x = 2.0d0 * x
end subroutine scale
