! Edge cases of the stencil lowering, compared with the serial program (directives are comments):
! a zero-extent array with a SHADOW, a SHADOW wider than the blocks at 7 ranks (the shadow reaches
! past the neighbour), a width on a * dimension, reads along a * dimension, an EOSHIFT by more than
! the extent, integer arrays (exact in any order), and a stencil along a CYCLIC(3) dimension whose
! blocks each have their own shadow (19 elements: a partial last block on most rank counts).
program edges
  implicit none
  integer, parameter :: n = 0, m = 3, k = 9
  real(8) :: u(n), v(n)
  integer :: p(m, k), q(m, k), r(m, k)
  real(8) :: s
  integer :: t
  integer :: i, j
  integer :: c(19), e(19)
!HPF$ PROCESSORS g(NUMBER_OF_PROCESSORS())
!HPF$ DISTRIBUTE (BLOCK) ONTO g :: u, v
!HPF$ DISTRIBUTE (*, BLOCK) ONTO g :: p, q, r
!HPF$ SHADOW u(2)
!HPF$ SHADOW p(1, 3)
!HPF$ DISTRIBUTE (CYCLIC(3)) ONTO g :: c, e
!HPF$ SHADOW c(2)
!HPF$ SHADOW e(2)
  u = 1.0d0
  forall (i = 3:n - 2) v(i) = u(i - 2) + u(i + 2)
  s = sum(v)
  print *, 'empty: ', s
  forall (i = 1:m, j = 1:k) p(i, j) = i * 100 + j * j
  forall (i = 1:m, j = 1:k) q(i, j) = p(i, j)
  forall (i = 2:m, j = 4:k) q(i, j) = p(i - 1, j - 3) + 2 * p(i, j)
  forall (i = 1:m, j = 1:k - 3) q(i, j) = q(i, j) + 7 * p(i, j + 3)
  t = sum(q)
  print *, 'wide shadow: ', t
  t = maxval(q)
  print *, 'max: ', t
  t = minval(q)
  print *, 'min: ', t
  ! In place, along both dimensions at once, after an update of p's shadow with corners.
  forall (i = 2:m - 1, j = 2:k - 1) p(i, j) = p(i - 1, j + 1) - p(i + 1, j - 1) + p(i, j)
  t = sum(p)
  print *, 'in place: ', t
  forall (i = 1:m, j = 1:k) r(i, j) = i + 10 * j
  q = EOSHIFT(r, k + 2, DIM=2, BOUNDARY=-5)
  t = sum(q)
  print *, 'eoshift past the end: ', t
  q = CSHIFT(r, -(2 * k + 1), 2)
  forall (i = 1:m, j = 1:k) q(i, j) = q(i, j) * j
  t = sum(q)
  print *, 'cshift: ', t
  forall (i = 1:19) c(i) = i * i
  forall (i = 3:17) e(i) = c(i - 2) + 3 * c(i + 1) - c(i + 2)
  forall (i = 1:2) e(i) = 0
  forall (i = 18:19) e(i) = 0
  t = sum(e)
  print *, 'cyclic stencil: ', t
  forall (i = 2:18) c(i) = c(i - 1) + c(i + 1)
  t = sum(c)
  print *, 'cyclic in place: ', t
end program edges
