! An HPF program: its !HPF$ directives are comments to a Fortran compiler, so it also runs serially.
! `hpfrt lower heat.f90` turns it into a program over the hpfrt runtime that prints the same.
!
! The heat equation u_t = u_xx, explicit in time: a 1-D rod and a 2-D plate with fixed ends (FORALL
! stencils that read their neighbours from SHADOW regions), and a ring (periodic: CSHIFT brings the
! neighbours). Every printed value is bit-identical between the serial and the lowered program:
! - each element is computed by the same expression, in the same operation order, in both;
! - the stencil weights are powers of two and the initial values small integers, so every value is
!   a multiple of 2**-(2 * steps) (rod, ring) or 2**-(4 * steps) (plate) below 128, and every sum
!   printed (SUM, whose order of addition differs with the number of ranks) is exact: its terms and
!   partial sums need at most 46 significant bits, fewer than the 53 of a REAL(8).
program heat
  implicit none
  integer, parameter :: n = 997, m1 = 13, m2 = 11, rod_steps = 8, plate_steps = 6, ring_steps = 7
  real(8) :: u(n), weight(n), moment(n)
  real(8) :: w(0:m1 - 1, 0:m2 - 1), wn(0:m1 - 1, 0:m2 - 1)
  real(8) :: ring(n), left(n), right(n), edge(n)
  integer(8) :: counts(n)
  real(8) :: total, hottest, coldest
  integer(8) :: ncount
  integer :: i, j, step
!HPF$ PROCESSORS procs(NUMBER_OF_PROCESSORS())
!HPF$ PROCESSORS plate(MERGE(2, 1, MOD(NUMBER_OF_PROCESSORS(), 2) == 0), &
!HPF$                  NUMBER_OF_PROCESSORS() / MERGE(2, 1, MOD(NUMBER_OF_PROCESSORS(), 2) == 0))
!HPF$ DISTRIBUTE (BLOCK) ONTO procs :: u, weight, moment
!HPF$ SHADOW u(1)
!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO plate :: w, wn
!HPF$ SHADOW w(1, 1)
!HPF$ DISTRIBUTE (BLOCK) ONTO procs :: ring, left, right, edge
!HPF$ DISTRIBUTE counts(CYCLIC(3)) ONTO procs
!HPF$ DYNAMIC counts

  ! --- 1-D rod, ends held at their initial temperature ---
  forall (i = 1:n) u(i) = dble(mod(7 * i, 100))
  forall (i = 1:n) weight(i) = dble(i)
  do step = 1, rod_steps
    ! In place: a FORALL reads every right-hand side before it assigns (Jacobi, not Gauss-Seidel).
    forall (i = 2:n - 1) u(i) = 0.25d0 * u(i - 1) + 0.5d0 * u(i) + 0.25d0 * u(i + 1)
  end do
  ! The first moment sum(i * u(i)) tells a misplaced element from a correct one.
  forall (i = 1:n) moment(i) = weight(i) * u(i)
  total = sum(u)
  hottest = maxval(u)
  coldest = minval(u)
  print '(a, f24.12, a, f18.12, a, f18.12)', 'rod: sum ', total, ' max ', hottest, ' min ', coldest
  total = sum(moment)
  print '(a, f28.12)', 'rod: moment ', total

  ! --- 2-D plate, nine-point stencil (the diagonal neighbours come from the shadow's corners) ---
  forall (i = 0:m1 - 1, j = 0:m2 - 1) w(i, j) = dble(mod(3 * i + 5 * j * j, 64))
  forall (i = 0:m1 - 1, j = 0:m2 - 1) wn(i, j) = w(i, j)
  do step = 1, plate_steps
    forall (i = 1:m1 - 2, j = 1:m2 - 2) wn(i, j) = 0.5d0 * w(i, j) &
        + 0.0625d0 * (w(i - 1, j) + w(i + 1, j) + w(i, j - 1) + w(i, j + 1)) &
        + 0.0625d0 * (w(i - 1, j - 1) + w(i + 1, j - 1) + w(i - 1, j + 1) + w(i + 1, j + 1))
    forall (i = 0:m1 - 1, j = 0:m2 - 1) w(i, j) = wn(i, j)
    total = sum(w)
    hottest = maxval(w)
    print '(a, i0, a, f24.12, a, f18.12)', 'plate step ', step, ': sum ', total, ' max ', hottest
  end do
  ! A weighted sum over the plate: wn := (1 + i + 16 j) * w, exact (below 2**45).
  forall (i = 0:m1 - 1, j = 0:m2 - 1) wn(i, j) = dble(1 + i + 16 * j) * w(i, j)
  total = sum(wn)
  print '(a, f28.12)', 'plate: moment ', total

  ! --- ring (periodic), the neighbours brought by CSHIFT ---
  forall (i = 1:n) ring(i) = dble(mod(13 * i, 64))
  do step = 1, ring_steps
    left = CSHIFT(ring, -1, 1)
    right = CSHIFT(ring, SHIFT=1)
    forall (i = 1:n) ring(i) = 0.25d0 * left(i) + 0.5d0 * ring(i) + 0.25d0 * right(i)
  end do
  forall (i = 1:n) moment(i) = weight(i) * ring(i)
  total = sum(ring)
  print '(a, f24.12)', 'ring: sum ', total
  total = sum(moment)
  print '(a, f28.12)', 'ring: moment ', total
  ! EOSHIFT: the last 5 elements come from outside the ring (-1), the rest move down by 5.
  edge = EOSHIFT(ring, 5, -1.0d0, 1)
  forall (i = 1:n) moment(i) = weight(i) * edge(i)
  total = sum(moment)
  coldest = minval(edge)
  print '(a, f28.12, a, f6.1)', 'eoshift: moment ', total, ' min ', coldest

  ! --- integer counts, redistributed between phases (the sums do not change) ---
  counts = 2_8
  forall (i = 10:20) counts(i) = int(i, 8)
  ncount = sum(counts)
  print '(a, i10)', 'counts: sum ', ncount
!HPF$ REDISTRIBUTE counts(BLOCK)
  ncount = sum(counts)
  print '(a, i10)', 'counts after REDISTRIBUTE: sum ', ncount
end program heat
