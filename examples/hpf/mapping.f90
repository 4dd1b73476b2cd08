! HPF's data mapping, every directive of it that `hpfrt lower` takes: PROCESSORS, TEMPLATE, DISTRIBUTE
! (BLOCK, CYCLIC(r), *, GEN_BLOCK and INDIRECT), ALIGN (transposed, strided, replicated with `*`, fixed
! at a constant, and with an array as the base), DYNAMIC, REDISTRIBUTE (of a template, carrying the
! arrays aligned with it), REALIGN, array-section assignment between distributed arrays and TRANSPOSE.
!
! The directives are comments to a Fortran compiler, so this file also runs serially (USE hpf_serial
! gives it NUMBER_OF_PROCESSORS() = 1). `hpfrt lower mapping.f90` turns it into a program over the
! hpfrt runtime that prints exactly the same on any number of ranks: mapping moves data, it never
! changes a value, and every printed number is an exact sum of small integers.
program mapping
  use hpf_serial
  implicit none
  integer, parameter :: n = 14, m = 6
  real(8) :: a(n, m), at(m, n), w(n), row3(m), v(n), g(n)
  real(8) :: total
  integer, allocatable :: sizes(:), owner(:)
  integer :: i, j, k, np, left
!HPF$ PROCESSORS line(NUMBER_OF_PROCESSORS())
!HPF$ PROCESSORS plate(MERGE(2, 1, MOD(NUMBER_OF_PROCESSORS(), 2) == 0), &
!HPF$                  NUMBER_OF_PROCESSORS() / MERGE(2, 1, MOD(NUMBER_OF_PROCESSORS(), 2) == 0))
!HPF$ TEMPLATE t(2 * n, m)
!HPF$ DISTRIBUTE t(CYCLIC(3), BLOCK) ONTO plate
!HPF$ ALIGN a(i, j) WITH t(2 * i - 1, j)
!HPF$ ALIGN w(i) WITH t(2 * n + 1 - 2 * i, *)
!HPF$ ALIGN row3(j) WITH a(3, j)
!HPF$ DISTRIBUTE at(*, BLOCK) ONTO line
!HPF$ DISTRIBUTE (BLOCK) ONTO line :: v, g
!HPF$ DYNAMIC t, w, g

  ! Owner-computes FORALLs on aligned arrays; w is replicated over the plate's second dimension, and
  ! every copy computes its elements. SUM counts each element once.
  forall (i = 1:n, j = 1:m) a(i, j) = i + 100 * j
  forall (i = 1:n) w(i) = 3 * i
  total = sum(a)
  print '(a, f0.1)', 'sum(a) = ', total
  total = sum(w)
  print '(a, f0.1)', 'sum(w), w replicated = ', total

  ! row3 lives only where row 3 of a lives (aligned with an array, fixed at a constant).
  forall (j = 1:m) row3(j) = 10 * j + 1
  total = maxval(row3)
  print '(a, f0.1)', 'row3, aligned with a(3, :), max: ', total

  ! TRANSPOSE from the aligned a into at, distributed by columns over the line.
  at = transpose(a)
  forall (j = 1:m, i = 1:n) at(j, i) = at(j, i) * (j + 2 * i)
  total = sum(at)
  print '(a, f0.1)', 'at = TRANSPOSE(a), weighted: ', total
  ! A section between two mappings: a strided, reversed column of the aligned a into a row of at.
  at(2, 1:n - 1:2) = a(n:2:-2, 4)
  forall (j = 1:m, i = 1:n) at(j, i) = at(j, i) * i
  total = sum(at)
  print '(a, f0.1)', 'at(2, 1:n-1:2) = a(n:2:-2, 4), weighted: ', total

  ! GEN_BLOCK and INDIRECT tables computed from the number of processors, then REDISTRIBUTE to them.
  np = number_of_processors()
  allocate (sizes(np), owner(n))
  left = n
  do k = 1, np
    sizes(k) = min(left, 4 * k - 1)
    if (k == np) sizes(k) = left
    left = left - sizes(k)
  end do
  do i = 1, n
    owner(i) = mod(5 * i + 2, np) + 1
  end do
  forall (i = 1:n) v(i) = 3 * i
  g(:) = v(:)
!HPF$ REDISTRIBUTE g(GEN_BLOCK(sizes))
  forall (i = 1:n) g(i) = g(i) + i * i
  total = sum(g)
  print '(a, f0.1)', 'g = v + i**2 on GEN_BLOCK: ', total
!HPF$ REDISTRIBUTE g(INDIRECT(owner))
  forall (i = 1:n) g(i) = g(i) * 2 - i
  total = minval(g)
  print '(a, f0.1)', 'g on INDIRECT, 2g - i, min: ', total

  ! REDISTRIBUTE of the template carries a, w and row3 (aligned with a) along; their values stay.
!HPF$ REDISTRIBUTE t(BLOCK, CYCLIC(2))
  total = sum(a)
  print '(a, f0.1)', 'sum(a) after REDISTRIBUTE t = ', total
  total = sum(row3)
  print '(a, f0.1)', 'sum(row3) after REDISTRIBUTE t = ', total

  ! REALIGN w to a fixed column of the template, shifted: the values stay, the owners change.
!HPF$ REALIGN w(i) WITH t(n + i, 2)
  forall (i = 1:n) w(i) = w(i) + 1
  total = sum(w)
  print '(a, f0.1)', 'sum(w + 1) after REALIGN w = ', total
  g(1:n:3) = v(n:1:-3)
  total = sum(g)
  print '(a, f0.1)', 'g(1:n:3) = v(n:1:-3), sum: ', total
end program mapping
