! READ with ERR= and END= (free form, !HPF$), into elements of distributed arrays inside DO loops:
! rank 0 reads, what it read and the outcome go to every rank, and every rank takes the branch the
! serial program takes (the copies written back first).
program read_branches
  implicit none
  real(8) :: a(8)
  integer :: k(6), i, n, ios
!HPF$ DISTRIBUTE a(BLOCK)
!HPF$ DISTRIBUTE k(CYCLIC)
  a = -1.0d0
  k = 0
  n = 0
  do i = 1, 6
    read (*, *, err=10) k(i)
    n = n + 1
  end do
10 print '(a, i2, a, 6i4)', 'integers read:', n, ' k =', k
  n = 0
  do i = 1, 8
    read (*, *, end=20, iostat=ios) a(i)
    n = n + 1
  end do
20 print '(a, i2, 8f7.2)', 'reals read:', n, a
  print *, 'end of file:', is_iostat_end(ios), ' sum:', sum(a)
end program read_branches
