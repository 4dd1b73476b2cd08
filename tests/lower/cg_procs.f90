! hpfrt's own test of distributed dummy arguments: a conjugate gradient for a 1-D Poisson matrix
! whose subroutines and functions take the main program's distributed arrays. Prescriptive
! (DISTRIBUTE in the callee, with INTENT(IN) and INTENT(OUT)), descriptive (*(BLOCK)), transcriptive
! (INHERIT, DISTRIBUTE x *) dummies, a dummy without mapping, an assumed-shape dummy, a section
! as the actual, a distributed local of a procedure, and PRINT, RETURN and STOP in a subroutine.
program cg_procs
  implicit none
  integer, parameter :: n = 37
  real(8) :: x(n), b(n), r(n), p(n), q(n)
  real(8) :: rho, rho_old, alpha, res
  real(8), external :: dot
  integer :: it
  interface
    subroutine scale_part(s, f)
      real(8), intent(inout) :: s(:)
      real(8), intent(in) :: f
    end subroutine scale_part
  end interface
!HPF$ DISTRIBUTE (BLOCK) :: x, b, r, p
!HPF$ DISTRIBUTE q(CYCLIC(3))
  call rhs(b, n)
  x = 0.0d0
  r = b
  p = 0.0d0
  call update_p(1.0d0, r, p, n)
  rho = dot(r, r, n)
  do it = 1, 100
    call apply(p, q, n)
    alpha = rho / dot(p, q, n)
    call axpy(alpha, p, x, n)
    call axpy(-alpha, q, r, n)
    rho_old = rho
    rho = dot(r, r, n)
    if (sqrt(rho) < 1.0d-11) exit
    call update_p(rho / rho_old, r, p, n)
  end do
  call residual(x, b, res, n)
  print '(a, i4, a, l2)', 'cg_procs: iterations ', it, ' converged ', res < 1.0d-9
  print '(a, 3f16.10)', 'cg_procs: x ', x(1), x(18), x(n)
  call scale_part(x(2:n - 1), 2.0d0)
  print '(a, 3f16.10)', 'cg_procs: scaled ', x(1), x(2), x(n - 1)
  call finish(x, n)
  print *, 'not reached'
end program cg_procs

! b(i) = 1 + i mod 4: written whole (INTENT(OUT): nothing comes in).
subroutine rhs(v, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(out) :: v(m)
  integer :: i
!HPF$ DISTRIBUTE v(BLOCK)
  forall (i = 1:m) v(i) = 1.0d0 + mod(i, 4)
end subroutine rhs

! w = A u for A = tridiag(-1, 2.5, -1): u comes in BLOCK with a shadow whatever the caller's
! mapping, w goes back to the caller's CYCLIC(3) q.
subroutine apply(u, w, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: u(m)
  real(8), intent(out) :: w(m)
  integer :: i
!HPF$ DISTRIBUTE (BLOCK) :: u, w
!HPF$ SHADOW u(1)
  forall (i = 2:m - 1) w(i) = 2.5d0 * u(i) - u(i - 1) - u(i + 1)
  w(1) = 2.5d0 * u(1) - u(2)
  w(m) = 2.5d0 * u(m) - u(m - 1)
end subroutine apply

! The dot product: the arrays as the caller maps them.
real(8) function dot(u, v, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: u(m), v(m)
!HPF$ INHERIT u, v
  dot = sum(u * v)
end function dot

! y = y + a x, transcriptive in both spellings.
subroutine axpy(a, xin, y, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: a, xin(m)
  real(8), intent(inout) :: y(m)
!HPF$ DISTRIBUTE xin *
!HPF$ INHERIT y
  y = y + a * xin
end subroutine axpy

! p = r + beta p: the dummies are described as BLOCK, as the caller has them.
subroutine update_p(beta, rin, pio, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: beta
  real(8) :: rin(m), pio(m)
  integer :: i
!HPF$ DISTRIBUTE *(BLOCK) :: rin, pio
  forall (i = 1:m) pio(i) = rin(i) + beta * pio(i)
end subroutine update_p

! The largest |b - A x| through a distributed local of the procedure; the dummies have no mapping.
subroutine residual(xin, bin, res, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: xin(m), bin(m)
  real(8), intent(out) :: res
  real(8) :: t(m)
  integer :: i
!HPF$ DISTRIBUTE t(CYCLIC)
  forall (i = 2:m - 1) t(i) = bin(i) - (2.5d0 * xin(i) - xin(i - 1) - xin(i + 1))
  t(1) = bin(1) - (2.5d0 * xin(1) - xin(2))
  t(m) = bin(m) - (2.5d0 * xin(m) - xin(m - 1))
  res = maxval(abs(t))
  if (res >= 0.0d0) return
  print *, 'not reached'
end subroutine residual

! An assumed-shape dummy of BLOCK mapping; its actual is a section of the caller's array.
subroutine scale_part(s, f)
  implicit none
  real(8), intent(inout) :: s(:)
  real(8), intent(in) :: f
  integer :: i
!HPF$ DISTRIBUTE s(BLOCK)
  forall (i = 1:size(s)) s(i) = f * s(i)
  print '(a, i4, f16.10)', 'cg_procs: scale_part ', size(s), sum(s)
end subroutine scale_part

! PRINT and STOP in a subroutine, as in the main program.
subroutine finish(v, m)
  implicit none
  integer, intent(in) :: m
  real(8), intent(in) :: v(m)
!HPF$ DISTRIBUTE v(CYCLIC(2))
  print '(a, f16.10)', 'cg_procs: max ', maxval(v)
  stop
end subroutine finish
