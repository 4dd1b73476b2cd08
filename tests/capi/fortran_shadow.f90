! The hpfrt module's SHADOW and shift entry points from Fortran: a 1-D explicit heat
! stencil u(i) := (u(i-1) + 2 u(i) + u(i+1)) / 4 on A(0:n-1) BLOCK with a width-1 periodic shadow,
! the kernel reading the neighbours from the local pointer (owned local l at element l + 2), compared
! after 10 steps with the same loop over a serial array; then CSHIFT and EOSHIFT against Fortran's own.
program fortran_shadow
  use, intrinsic :: iso_c_binding
  use hpfrt
  implicit none
  integer(c_int64_t), parameter :: n = 37
  type(c_ptr) :: grid, a, b
  integer(c_int) :: me, owned, wrank, wsize
  integer(c_int64_t) :: i, l, off, step, nown, w(1)
  real(c_double), pointer :: x(:)
  real(c_double), allocatable :: next(:)
  real(c_double), target :: serial(0:n - 1), tmp(0:n - 1), gathered(0:n - 1), bnd
  logical :: ok

  call hpf_check(hpf_init(c_null_ptr, c_null_ptr), 'hpf_init')
  call hpf_check(hpf_world(wrank, wsize), 'hpf_world')
  call hpf_check(hpf_grid_create_world(1, [wsize], grid), 'hpf_grid_create_world')
  call hpf_check(hpf_grid_my_position(grid, me), 'hpf_grid_my_position')
  call hpf_check(hpf_array_create_shadow('A', HPF_FLOAT64, 1, [n], [hpf_block()], [1_c_int64_t], grid, a), 'create A')
  call hpf_check(hpf_array_shadow_widths(a, w), 'widths')
  call hpf_local_real64(a, x)
  nown = 0
  do i = 0, n - 1
    serial(i) = real(mod(i * i, 11_c_int64_t), c_double)
    call hpf_check(hpf_array_locate(a, [i], owned, off), 'locate')
    if (owned == 1) then
      x(off + 1) = serial(i)
      nown = nown + 1
    end if
  end do
  allocate (next(nown))
  do step = 1, 10
    call hpf_check(hpf_array_update_shadow(a, HPF_BOUNDARY_PERIODIC), 'update_shadow')
    do l = 1, nown
      next(l) = (x(l) + 2 * x(l + 1) + x(l + 2)) / 4 ! owned local l - 1 sits at x(l + 1)
    end do
    x(2:nown + 1) = next
    tmp = serial
    do i = 0, n - 1
      serial(i) = (tmp(modulo(i - 1, n)) + 2 * tmp(i) + tmp(modulo(i + 1, n))) / 4
    end do
  end do
  call hpf_check(hpf_array_gather(a, 0, c_loc(gathered)), 'gather A')
  ok = w(1) == 1
  if (me == 0) ok = ok .and. all(abs(gathered - serial) < 1e-12_c_double)

  call hpf_check(hpf_array_create_shadow('B', HPF_FLOAT64, 1, [n], [hpf_block()], [1_c_int64_t], grid, b), 'create B')
  call hpf_check(hpf_cshift(a, 5_c_int64_t, 0, b), 'cshift')
  call hpf_check(hpf_array_gather(b, 0, c_loc(gathered)), 'gather B')
  if (me == 0) ok = ok .and. all(abs(gathered - cshift(serial, 5)) < 1e-12_c_double)
  bnd = -1
  call hpf_check(hpf_eoshift(a, -4_c_int64_t, 0, c_loc(bnd), b), 'eoshift')
  call hpf_check(hpf_array_gather(b, 0, c_loc(gathered)), 'gather B')
  if (me == 0) ok = ok .and. all(abs(gathered - eoshift(serial, -4, -1.0_c_double)) < 1e-12_c_double)

  if (me == 0) then
    if (ok) then
      print '(a)', 'Fortran shadow: heat OK, cshift OK, eoshift OK'
    else
      print '(a)', 'Fortran shadow: WRONG'
    end if
  end if
  call hpf_check(hpf_array_free(a), 'free A')
  call hpf_check(hpf_array_free(b), 'free B')
  call hpf_check(hpf_grid_free(grid), 'free grid')
  call hpf_check(hpf_finalize(), 'hpf_finalize')
  if (.not. ok) error stop 1
end program fortran_shadow
