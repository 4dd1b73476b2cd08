! hpfrt's own test of the HPF 2.0 spellings of ALIGN, DISTRIBUTE, TEMPLATE and PROCESSORS, the
! DIMENSION attribute and LOGICAL distributed arrays. A literal P(2, 2) runs on any number of ranks.
program spellings
  implicit none
  integer, parameter :: n = 16
  real(8), dimension(n) :: a, b, c, d
  real(8), dimension(n, n) :: m, mt
  real(8) :: e(n), f(n), g(n), h(n), w(n), z(n)
  logical :: mask(n)
  logical, dimension(n) :: flip
  integer :: ones(n), cnt(n), i, j, k1, k2
  real(8) :: s1, s2, s3, s4, r(8)
!HPF$ PROCESSORS p(2, 2)
!HPF$ PROCESSORS line(4)
!HPF$ TEMPLATE, DISTRIBUTE(BLOCK) ONTO line :: t(n)
!HPF$ TEMPLATE t2(n, n)
!HPF$ DISTRIBUTE t2(BLOCK, CYCLIC) ONTO p
!HPF$ DISTRIBUTE a(BLOCK) ONTO line
!HPF$ DISTRIBUTE (CYCLIC(2)) ONTO line :: b, mask, ones
!HPF$ DISTRIBUTE ONTO line :: c
!HPF$ DISTRIBUTE d(BLOCK(5)) ONTO line
!HPF$ ALIGN e(i) WITH t(i)
!HPF$ ALIGN f WITH t
!HPF$ ALIGN g(:) WITH a(:)
!HPF$ ALIGN WITH t :: h, w
!HPF$ ALIGN (i) WITH flip(i) :: z
!HPF$ DISTRIBUTE (CYCLIC) ONTO line :: flip, cnt
!HPF$ ALIGN (i, j) WITH t2(j, i) :: mt
!HPF$ ALIGN m(:, :) WITH t2(:, :)
  forall (i = 1:n) a(i) = dble(i)
  b = a
  c = b
  d = c
  forall (i = 1:n) e(i) = dble(3 * i)
  forall (i = 1:n) f(i) = dble(i) + 1.0d0
  forall (i = 1:n) g(i) = dble(i) * 2.0d0
  forall (i = 1:n) h(i) = dble(n - i)
  forall (i = 1:n) w(i) = h(i) * 0.5d0
  forall (i = 1:n) mask(i) = mod(i, 3) == 0
  forall (i = 1:n) ones(i) = merge(1, 0, mask(i))
  flip = .true.
  forall (i = 1:n) cnt(i) = merge(2, 0, flip(i))
  forall (i = 1:n) z(i) = dble(mod(i, 5))
  forall (i = 1:n, j = 1:n) m(i, j) = dble(i + 100 * j)
  forall (i = 1:n, j = 1:n) mt(i, j) = dble(j - i)
  r(1) = sum(d)
  r(2) = sum(g)
  r(3) = sum(f)
  r(4) = sum(e)
  r(5) = sum(w)
  r(6) = sum(z)
  s1 = r(1) + r(2) + r(3) + r(4)
  s2 = r(5) + r(6)
  k1 = sum(ones)
  k2 = sum(cnt)
  s3 = sum(m)
  s4 = maxval(mt)
  print '(a, 4f14.2)', 'spellings: ', s1, s2, s3, s4
  print '(a, 2i6)', 'spellings: multiples of 3, twice true ', k1, k2
end program spellings
