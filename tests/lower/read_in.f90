! READ into scalars, elements and whole distributed arrays (free form, !HPF$), in the main program
! and in a subroutine with a distributed dummy: the lowered program reads on rank 0 and every rank
! goes on with what was read, as the serial program does.
program read_in
  implicit none
  integer, parameter :: nmax = 8
  real(8) :: x(nmax), scale
  integer :: k(6), n, i, ios
  logical :: flags(6)
  real :: y(nmax)
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO p :: x, k
!HPF$ DISTRIBUTE flags(CYCLIC(2)) ONTO p
  x = 0
  read *, n, scale
  read (*, *) (x(i), i = 1, n)
  read (*, *, iostat=ios) k
  read *, y(1)
  read (*, *) flags
  forall (i = 1:nmax) x(i) = x(i) * scale
  print '(a, i3, f6.2, i3)', 'n, scale, iostat:', n, scale, ios
  print '(8f7.2)', x
  print '(6i4)', k
  print *, y(1), flags
  call read_more(x, nmax)
  print '(8f7.2)', x
end program read_in

subroutine read_more(v, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(inout) :: v(m)
  integer :: j, cnt
!HPF$ DISTRIBUTE v(CYCLIC)
  read *, cnt
  read *, (v(j), j = 1, cnt)
  print '(a, i3)', 'read_more: read', cnt
end subroutine read_more
