! Loop shapes of the owner-computes lowering, compared with the serial program (directives are
! comments): FORALL strides that do not divide the CYCLIC block size, negative strides, empty
! ranges, FORALLs over sub-ranges, stencils along CYCLIC(r) dimensions with a SHADOW (read from an
! array without one, and the other way round), strided and backward DO nests (with the values their
! variables leave), GEN_BLOCK and INDIRECT dimensions with strides, and 3-D FORALLs and DO nests.
! Integer data: exact in any order.
program loop_shapes
  use hpf_serial
  implicit none
  integer, parameter :: n = 29, m = 7, k = 11
  integer, allocatable :: sizes(:), owners(:)
  integer :: c3(n), c3b(n), s2(0:n - 1), t2(0:n - 1), gb(n), ix(n)
  integer :: w(m, k), x(m, k), cc(-3:m - 4, k)
  integer :: q(5, 6, 4), r(5, 6, 4)
  integer :: i, j, l, st, np
!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())
!HPF$ PROCESSORS g(2, 2)
!HPF$ DISTRIBUTE (CYCLIC(3)) ONTO p :: c3, c3b
!HPF$ DISTRIBUTE s2(CYCLIC(2)) ONTO p
!HPF$ SHADOW s2(2)
!HPF$ DISTRIBUTE t2(CYCLIC(2)) ONTO p
!HPF$ DISTRIBUTE (BLOCK) ONTO p :: gb, ix
!HPF$ DYNAMIC gb, ix
!HPF$ DISTRIBUTE (CYCLIC(2), BLOCK) ONTO g :: w, x
!HPF$ SHADOW w(1, 1)
!HPF$ SHADOW x(1, 1)
!HPF$ DISTRIBUTE cc(CYCLIC(3), CYCLIC(2)) ONTO g
!HPF$ DISTRIBUTE (BLOCK, CYCLIC(2), *) ONTO g :: q, r

  ! 1-D CYCLIC(3): strides 2, 5 and 4 (none divides 3), negative strides, empty ranges.
  forall (i = 1:n) c3(i) = 0
  forall (i = 1:n:2) c3(i) = i
  forall (i = 2:n:5) c3(i) = c3(i) + 100 * i
  forall (i = n:1:-4) c3(i) = c3(i) + 10000
  forall (i = n - 1:3:-7) c3(i) = -c3(i)
  forall (i = 5:4) c3(i) = 77
  forall (i = 1:n:-1) c3(i) = 78
  print '(a, /, (10i7))', 'cyclic strides: ', c3
  st = 3
  forall (i = 1:n) c3b(i) = 0
  forall (i = 4:n - 2:st) c3b(i) = 2 * i
  forall (i = 1:3) c3b(i) = -i
  forall (i = n - 1:n) c3b(i) = 1
  st = -st
  forall (i = n - 3:5:st) c3b(i) = c3b(i) + 1000
  print '(a, /, (10i7))', 'run-time strides: ', c3b

  ! A stencil along CYCLIC(2) with each block padded by a shadow of 2, over strided sub-ranges.
  forall (i = 0:n - 1) s2(i) = i * i - 3 * i
  forall (i = 2:n - 3:3) s2(i) = s2(i - 2) - s2(i + 2) + 2 * s2(i)
  forall (i = n - 2:1:-2) s2(i) = s2(i) + s2(i - 1) - s2(i + 1)
  print '(a, /, (10i7))', 'cyclic stencil: ', s2
  ! The same CYCLIC(2) without a shadow: each reads the other through runs of its own storage.
  forall (i = 0:n - 1) t2(i) = 3 * i
  forall (i = n - 2:1:-3) t2(i) = s2(i + 1) - s2(i) + t2(i)
  forall (i = 0:n - 1:2) s2(i) = s2(i) + t2(i)
  print '(a, /, (10i7))', 'shadow widths apart: ', s2, t2

  ! GEN_BLOCK (the second block empty) and INDIRECT with strides.
  np = number_of_processors()
  allocate (sizes(np), owners(n))
  sizes = 0
  sizes(1) = min(n, 9)
  if (np > 2) sizes(3) = 11
  sizes(np) = sizes(np) + n - sum(sizes)
  do i = 1, n
    owners(i) = mod(i * i + 3 * i, np) + 1
  end do
!HPF$ REDISTRIBUTE gb(GEN_BLOCK(sizes))
!HPF$ REDISTRIBUTE ix(INDIRECT(owners))
  forall (i = 1:n) gb(i) = i
  forall (i = n:2:-3) gb(i) = gb(i) * 10
  forall (i = 1:n) ix(i) = 2 * i
  forall (i = 3:n:4) ix(i) = ix(i) + i
  print '(a, /, (10i7))', 'gen_block: ', gb
  print '(a, /, (10i7))', 'indirect: ', ix

  ! 2-D: CYCLIC(2) x BLOCK with shadows, strided sub-ranges, and a 5-point stencil in place.
  forall (i = 1:m, j = 1:k) w(i, j) = i * i + 10 * j * j - i * j
  forall (i = 1:m, j = 1:k) x(i, j) = 0
  forall (i = 2:m - 1:2, j = k - 1:2:-3) x(i, j) = w(i - 1, j) + w(i + 1, j) - w(i, j - 1) + w(i, j + 1)
  forall (i = 2:m - 1, j = 2:k - 1) w(i, j) = w(i - 1, j) + w(i + 1, j) + w(i, j - 1) + w(i, j + 1) - 3 * w(i, j)
  print '(a, /, (11i7))', 'stencil 2-d x: ', x
  print '(a, /, (11i7))', 'stencil 2-d w: ', w

  ! A DO nest with steps, one of them backward, and lower bounds other than 1 (cc from -3).
  forall (i = -3:m - 4, j = 1:k) cc(i, j) = 0
  do j = k, 1, -2
    do i = -2, m - 4, 3
      cc(i, j) = i * 100 + j
    end do
  end do
  print '(a, /, (11i7))', 'do steps: ', cc
  print '(a, 2i5)', 'do variables: ', i, j
  st = 3
  do j = st, 2, 1
    do i = 1, 4, 2
      cc(i, j) = 5
    end do
  end do
  print '(a, 2i5)', 'empty do: ', i, j

  ! 3-D: a FORALL with strides in every dimension, then a DO nest over a sub-range of all three.
  forall (i = 1:5, j = 1:6, l = 1:4) q(i, j, l) = i + 10 * j + 100 * l
  forall (i = 1:5, j = 1:6, l = 1:4) r(i, j, l) = 0
  forall (i = 5:1:-2, j = 2:6:3, l = 1:4:2) r(i, j, l) = q(i, j, l) * 2
  do l = 2, 4
    do j = 2, 5
      do i = 1, 4
        r(i, j, l) = r(i, j, l) + q(i, j, l) - l
      end do
    end do
  end do
  print '(a, /, (10i7))', '3-d: ', r
  print '(a, 3i5)', '3-d do variables: ', i, j, l
end program loop_shapes
