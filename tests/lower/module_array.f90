! hpfrt's own test of distributed arrays held by a module: the module maps them, the main program
! and an external subroutine use them by USE with the module's mapping (owner-computed FORALLs,
! reductions, CSHIFT, element reads); a module procedure works on the module's other data.
module module_array_grid
  implicit none
  integer, parameter :: n = 45
  real(8) :: temp(n), flux(n)
  real(8) :: kappa = 0.2d0
  integer :: counts(n)
!HPF$ DISTRIBUTE (BLOCK) :: temp, flux
!HPF$ DISTRIBUTE counts(CYCLIC(2))
!HPF$ SHADOW temp(1)
contains
  real(8) function diffusion_number()
    diffusion_number = kappa * 2.0d0
  end function diffusion_number
end module module_array_grid

program module_array
  use module_array_grid
  implicit none
  integer :: i, step
  forall (i = 1:n) temp(i) = merge(100.0d0, 0.0d0, i > n / 3 .and. i <= 2 * n / 3)
  counts = 0
  do step = 1, 25
    call relax()
  end do
  print '(a, f14.8)', 'module_array: total heat ', sum(temp)
  print '(a, 3f14.8)', 'module_array: temp ', temp(1), temp(23), temp(n)
  print '(a, i6, f10.4)', 'module_array: counted ', sum(counts), diffusion_number()
end program module_array

! One explicit step: flux across the cell faces (periodic through CSHIFT), then the update.
subroutine relax()
  use module_array_grid, only: n, temp, flux, kappa, counts
  implicit none
  integer :: i
  flux = cshift(temp, 1)
  forall (i = 1:n) flux(i) = kappa * (flux(i) - temp(i))
  forall (i = 2:n) temp(i) = temp(i) + flux(i) - flux(i - 1)
  temp(1) = temp(1) + flux(1) - flux(n)
  forall (i = 1:n) counts(i) = counts(i) + merge(1, 0, temp(i) > 10.0d0)
end subroutine relax
