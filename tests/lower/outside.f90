! A FORALL that reads one element past the end of u (the serial program's error too): the lowered
! program must stop with the line and the index, on the rank that reads, and never hang.
program outside
  implicit none
  integer, parameter :: n = 10
  real(8) :: u(n), v(n), s
  integer :: i
!HPF$ DISTRIBUTE (BLOCK) :: u, v
!HPF$ SHADOW u(1)
  u = 1.0d0
  forall (i = 1:n) v(i) = u(i + 1)
  s = sum(v)
  print *, s
end program outside
