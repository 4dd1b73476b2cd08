! Loops and array statements over distributed arrays (free form, !HPF$): INDEPENDENT DO nests with
! NEW and REDUCTION, ordinary DO nests (owner-computed when no iteration reads what another writes,
! replicated otherwise), array assignments over sections, WHERE / ELSEWHERE, CSHIFT and EOSHIFT
! inside expressions, reads at indirect subscripts. The serial compile and the lowered program on
! any number of ranks print the same.
program loops
  implicit none
  integer, parameter :: n = 16, m = 5
  real(8) :: a(n), b(n), c(n), d(n), t(n, m), s(n, m)
  integer :: idx(n), i, j
  real(8) :: total, tmp, biggest
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO p :: a, b, c, idx
!HPF$ DISTRIBUTE d(CYCLIC(3)) ONTO p
!HPF$ DISTRIBUTE (*, BLOCK) ONTO p :: t, s

  ! An INDEPENDENT loop and nest: owner computes, as the FORALL they are.
!HPF$ INDEPENDENT
  do i = 1, n
    a(i) = dble(i)
  end do
!HPF$ INDEPENDENT, NEW(j)
  do j = 1, m
!HPF$ INDEPENDENT
    do i = 1, n
      t(i, j) = dble(i + 100 * j)
    end do
  end do
  print *, 'after the nest: i =', i, ' j =', j
  ! An ordinary DO loop reading other arrays at offsets: owner computes too.
  do i = 1, n
    b(i) = 2.0d0 * a(i) + 1.0d0
  end do
  do i = 1, n
    idx(i) = n + 1 - i
  end do
  ! A loop-carried dependence through a: runs on replicated copies.
  do i = 2, n
    a(i) = a(i - 1) + b(i)
  end do
  print '(8f9.1)', a
  ! A REDUCTION loop and a loop with a NEW temporary.
  total = 0
!HPF$ INDEPENDENT, REDUCTION(total)
  do i = 1, n
    total = total + a(i) * b(i)
  end do
  print '(a, f14.1)', 'reduction:', total
!HPF$ INDEPENDENT, NEW(tmp)
  do i = 1, n
    tmp = b(i) * 0.5d0
    c(i) = tmp + a(i)
  end do
  print '(8f9.2)', c

  ! Array assignments and expressions.
  c = a + b
  d = c * 2.0d0 - a
  c(2:n) = b(1:n - 1) * 2.0d0
  s = t + 1.0d0
  s(2:n, 2:m) = t(1:n - 1, 1:m - 1) - s(2:n, 2:m)
  print '(8f9.1)', c
  print '(8f9.1)', d
  print '(5f9.1)', s(n, :)

  ! WHERE and ELSEWHERE.
  where (a > 50.0d0)
    c = a - 50.0d0
  elsewhere
    c = 0.0d0
  end where
  where (b < 10.0d0) d = -1.0d0
  where (a > b) b = a - b
  print '(8f9.1)', c
  print '(8f9.1)', d

  ! Shifts inside expressions, and indirect reads.
  c = a + cshift(b, 1) - eoshift(a, -2, 100.0d0)
  print '(8f9.1)', c
  do i = 1, n
    d(i) = a(idx(i)) + b(mod(3 * i, n) + 1)
  end do
  print '(8f9.1)', d
  biggest = maxval(a(idx(1:n:2)))
  print '(a, f10.1)', 'biggest:', biggest
  ! A DO nest reading the assigned array at another element: replicated.
  do j = 2, m
    do i = 1, n
      t(i, j) = t(i, j - 1) + s(i, j)
    end do
  end do
  print '(5f10.1)', t(1, :), t(n, :)
end program loops
