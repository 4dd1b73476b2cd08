! GEN_BLOCK and INDIRECT through `hpfrt lower`: tables computed at run time from
! NUMBER_OF_PROCESSORS() (USE hpf_serial gives a serial compile that function), REDISTRIBUTE of DYNAMIC
! arrays to them, owner-computes FORALLs, reductions and sections on the irregular layouts. Every
! result is an exact checksum, so the lowered program on P ranks prints what the serial one prints.
program irregular
  use hpf_serial
  implicit none
  integer, parameter :: n = 23
  real(8) :: a(n), b(n), c(n)
  integer, allocatable :: sizes(:), owner(:)
  integer :: i, k, np, left
  real(8) :: s
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO p :: a, b
!HPF$ DISTRIBUTE c(CYCLIC(2)) ONTO p
!HPF$ DYNAMIC a, b

  np = number_of_processors()
  allocate (sizes(np), owner(n))
  ! Uneven blocks: processor k asks for 2k + 1 elements while they last, the last takes the rest, so
  ! some blocks are empty on 4 or more processors.
  left = n
  do k = 1, np
    sizes(k) = min(left, 2 * k + 1)
    if (k == np) sizes(k) = left
    left = left - sizes(k)
  end do
  do i = 1, n
    owner(i) = mod(7 * i, np) + 1
  end do

  forall (i = 1:n) a(i) = i * i
  forall (i = 1:n) b(i) = 2 * i + 1
  c = 0.0d0

!HPF$ REDISTRIBUTE a(GEN_BLOCK(sizes))
  forall (i = 1:n) a(i) = a(i) * i
  s = sum(a)
  print '(a, f0.1)', 'GEN_BLOCK: sum of i**3 = ', s

!HPF$ REDISTRIBUTE b(INDIRECT(owner))
  forall (i = 1:n) b(i) = b(i) + i * i * i
  s = maxval(b)
  print '(a, f0.1)', 'INDIRECT: max of 2i+1 + i**3 = ', s

  c(n:1:-1) = b(:)
  forall (i = 1:n) c(i) = c(i) * i
  s = sum(c)
  print '(a, f0.1)', 'CYCLIC(2) reversed from INDIRECT, weighted: ', s

  a(1:n - 1:2) = c(2:n:2)
  forall (i = 1:n) a(i) = a(i) - i
  s = minval(a)
  print '(a, f0.1)', 'GEN_BLOCK from strided CYCLIC(2): min = ', s

!HPF$ REDISTRIBUTE a(BLOCK)
  s = sum(a)
  print '(a, f0.1)', 'back to BLOCK: sum = ', s
end program irregular
