! Guide example for docs/capi.md: the Fortran module hpfrt over the C ABI. A(0:99) BLOCK over all
! ranks, written through a Fortran pointer to the local block, summed and redistributed.
!   mpirun -n 3 ./guide_capi_fortran
program guide_capi
  use, intrinsic :: iso_c_binding
  use hpfrt
  implicit none
  type(c_ptr) :: grid, a
  integer(c_int) :: me, wrank, wsize
  integer(c_int64_t) :: off, g(1)
  real(c_double), pointer :: x(:)
  real(c_double), target :: total

  call hpf_check(hpf_init(c_null_ptr, c_null_ptr), 'hpf_init')
  call hpf_check(hpf_world(wrank, wsize), 'hpf_world')
  call hpf_check(hpf_grid_create_world(1, [wsize], grid), 'hpf_grid_create_world')
  call hpf_check(hpf_grid_my_position(grid, me), 'hpf_grid_my_position')

  call hpf_check(hpf_array_create('A', HPF_FLOAT64, 1, [100_c_int64_t], [hpf_block()], grid, a), 'create A')
  call hpf_local_real64(a, x) ! x(1:local size) is the local block
  do off = 0, size(x, kind=c_int64_t) - 1
    call hpf_check(hpf_array_global_index(a, off, g), 'global index')
    x(off + 1) = real(g(1) + 1, c_double)
  end do
  call hpf_check(hpf_array_redistribute(a, [hpf_cyclic(7)], grid, HPF_STRATEGY_AUTO), 'redistribute A')
  call hpf_check(hpf_array_sum(a, c_loc(total)), 'sum A')
  if (me == 0) then
    if (nint(total) == 5050) then
      print '(a)', 'guide capi fortran: OK'
    else
      print '(a)', 'guide capi fortran: WRONG'
    end if
  end if
  call hpf_check(hpf_array_free(a), 'free A')
  call hpf_check(hpf_grid_free(grid), 'free grid')
  call hpf_check(hpf_finalize(), 'hpf_finalize')
end program guide_capi
