! hpfrt's own test of distributed arrays in COMMON: a linearised shallow-water model on a periodic
! nx x ny grid. The fields and two work arrays are in COMMON /fields/ and /work/, mapped alike in
! every unit that declares the blocks (written out, or from shallow_common.inc); the subroutines step them with owner-computed FORALLs (a
! shadow for a neighbour in j), CSHIFTs into the work arrays and elementwise array assignments.
program shallow_common
  implicit none
  integer, parameter :: nx = 24, ny = 18
  real(8) :: h(nx, ny), u(nx, ny), v(nx, ny)
  real(8) :: t1(nx, ny), t2(nx, ny)
  real(8) :: dt, g, dx
  integer :: step
  common /fields/ h, u, v
  common /work/ t1, t2
  common /params/ dt, g, dx
!HPF$ DISTRIBUTE (*, BLOCK) :: h, u, v, t1, t2
!HPF$ SHADOW h(0, 1)
  g = 1.0d0
  dx = 1.0d0
  dt = 0.1d0
  call init_fields(12, 9)
  call report(0)
  do step = 1, 40
    call step_u()
    call step_v()
    call step_h()
    if (mod(step, 10) == 0) call report(step)
  end do
end program shallow_common

subroutine init_fields(ic, jc)
  implicit none
  integer, intent(in) :: ic, jc
  integer, parameter :: nx = 24, ny = 18
  real(8) :: h(nx, ny), u(nx, ny), v(nx, ny)
  integer :: i, j
  common /fields/ h, u, v
!HPF$ DISTRIBUTE (*, BLOCK) :: h, u, v
!HPF$ SHADOW h(0, 1)
  forall (i = 1:nx, j = 1:ny) h(i, j) = 1.0d0 + 0.1d0 * exp(-dble((i - ic)**2 + (j - jc)**2) / 8.0d0)
  u = 0.0d0
  v = 0.0d0
end subroutine init_fields

! u = u - dt g / dx (h(i + 1, j) - h(i, j)), periodic in i through a CSHIFT into t1.
subroutine step_u()
  implicit none
  include 'shallow_common.inc'
  t1 = cshift(h, 1, 1)
  u = u - (dt * g / dx) * (t1 - h)
end subroutine step_u

! v = v - dt g / dx (h(i, j + 1) - h(i, j)): a FORALL reading h's shadow, the last row periodic.
subroutine step_v()
  implicit none
  integer :: i, j
  include 'shallow_common.inc'
  forall (i = 1:nx, j = 1:ny - 1) v(i, j) = v(i, j) - (dt * g / dx) * (h(i, j + 1) - h(i, j))
  v(:, ny) = v(:, ny) - (dt * g / dx) * (h(:, 1) - h(:, ny))
end subroutine step_v

! h = h - dt / dx (u(i, j) - u(i - 1, j) + v(i, j) - v(i, j - 1)), periodic through CSHIFTs.
subroutine step_h()
  implicit none
  include 'shallow_common.inc'
  t1 = cshift(u, -1, 1)
  t2 = cshift(v, -1, 2)
  h = h - (dt / dx) * (u - t1 + v - t2)
end subroutine step_h

subroutine report(step)
  implicit none
  integer, intent(in) :: step
  integer, parameter :: nx = 24, ny = 18
  real(8) :: h(nx, ny), u(nx, ny), v(nx, ny)
  real(8) :: mass, top
  common /fields/ h, u, v
!HPF$ DISTRIBUTE (*, BLOCK) :: h, u, v
!HPF$ SHADOW h(0, 1)
  mass = sum(h)
  top = maxval(h)
  print '(a, i3, a, f14.8, a, f12.8, a, 2f12.8)', 'shallow_common: step ', step, ' mass ', mass, &
    ' max ', top, ' h, u ', h(12, 9), u(12, 9)
end subroutine report
