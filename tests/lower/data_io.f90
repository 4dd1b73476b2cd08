! Data in and out of distributed arrays outside FORALL (free form, !HPF$): element reads in
! expressions and IF conditions, element writes, PRINT / WRITE of elements, sections and whole
! arrays, replicated <-> distributed copies, reductions over sections and expressions, MINLOC /
! MAXLOC. The serial compile and the lowered program on any number of ranks print the same.
program data_io
  implicit none
  integer, parameter :: n = 10, m = 6
  real(8) :: u(n), v(n), w(n), grid(n, m)
  integer :: k(n), loc1(1), loc2(2)
  logical :: mask(n)
  real(8) :: r(n), x, y, total
  integer :: i, j, big
  character(len=16) :: text
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO p :: u, v, k, mask
!HPF$ DISTRIBUTE w(CYCLIC(2)) ONTO p
!HPF$ DISTRIBUTE grid(*, BLOCK) ONTO p

  forall (i = 1:n) u(i) = dble(i * i)
  forall (i = 1:n) v(i) = dble(n - i)
  forall (i = 1:n) k(i) = mod(7 * i, 11)
  forall (i = 1:n, j = 1:m) grid(i, j) = dble(10 * i + j)
  w = 0.5d0

  ! Element reads: in an assignment, an expression, an IF condition.
  x = u(3)
  y = u(n) + 2.0d0 * v(1) - grid(2, m)
  print '(a, 2f10.2)', 'elements:', x, y
  if (u(4) > v(4)) then
    print *, 'u(4) > v(4)'
  else
    print *, 'u(4) <= v(4)'
  end if
  if (k(2) == 3) print *, 'k(2) is 3'

  ! Element writes: the owner stores; the right-hand side may read other elements.
  u(1) = -1.0d0
  v(n) = u(2) + u(3)
  grid(n, 1) = u(5) * 2.0d0
  k(k(1)) = 100
  mask = .false.
  mask(3) = .true.

  ! PRINT / WRITE of elements, sections and whole arrays, list-directed and formatted.
  print *, u(1), v(n), grid(n, 1)
  print *, 'u =', u
  print '(5f8.1)', v(2:n:2)
  write (*, '(6f7.1)') grid(1:3, :)
  print *, k
  print *, mask
  write (*, *) 'w:', w(1:4), sum(w)

  ! Replicated and distributed copies.
  r = u
  r(2) = 0.25d0
  print '(10f7.2)', r
  v = r
  print '(10f7.2)', v
  u(2:n) = r(1:n - 1) * 2.0d0
  print '(10f7.1)', u

  ! Reductions over sections and expressions.
  total = sum(u(1:n) * v(1:n))
  print '(a, f14.3)', 'dot:', total
  print '(a, f10.3)', 'maxval abs:', maxval(abs(u - v))
  print '(a, f10.3)', 'minval section:', minval(u(3:7))
  loc1 = maxloc(k)
  print *, 'maxloc k:', loc1, ' minloc u:', minloc(u)
  loc2 = minloc(grid)
  print *, 'minloc grid:', loc2, ' count:', count(mask), ' any:', any(k > 50)
  big = maxval(k, mask=k < 100)
  print *, 'big:', big

  ! WRITE to an internal file runs on every rank: each needs the text.
  write (text, '(f8.2)') u(3)
  if (text(1:2) == '  ') j = len_trim(adjustl(text))
  print *, 'text:', trim(adjustl(text)), j

  ! A DO WHILE whose condition reads distributed data, around an owner-computed FORALL.
  do while (abs(u(1)) < 100.0d0)
    forall (i = 1:n) u(i) = u(i) * 2.0d0
  end do
  print *, 'u(1) =', u(1)
end program data_io
