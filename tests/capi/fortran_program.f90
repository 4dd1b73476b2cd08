! A Fortran program over the hpfrt module: A(0:99) CYCLIC(3) over all ranks and a 2-D
! B(0:8, 0:4) CYCLIC(2) x * ; local blocks written through Fortran pointers by global index,
! checked through sums and a gather on rank 0. A also moves to GEN_BLOCK and INDIRECT.
program fortran_program
  use, intrinsic :: iso_c_binding
  use hpfrt
  implicit none
  type(c_ptr) :: grid, a, b
  integer(c_int) :: me, owned, wrank, wsize
  integer(c_int64_t) :: i, j, off
  real(c_double), pointer :: x(:), y(:, :)
  real(c_double), target :: total, bsum, gathered(0:99)
  integer(c_int64_t), allocatable, target :: sizes(:)
  integer(c_int32_t), target :: owners(0:99)
  logical :: ok

  call hpf_check(hpf_init(c_null_ptr, c_null_ptr), 'hpf_init')
  call hpf_check(hpf_world(wrank, wsize), 'hpf_world')
  call hpf_check(hpf_grid_create_world(1, [wsize], grid), 'hpf_grid_create_world')
  call hpf_check(hpf_grid_my_position(grid, me), 'hpf_grid_my_position')

  call hpf_check(hpf_array_create('A', HPF_FLOAT64, 1, [100_c_int64_t], [hpf_cyclic(3)], grid, a), 'create A')
  call hpf_local_real64(a, x)
  ! Owner-computes: each rank writes the elements it owns, found by global index.
  do i = 0, 99
    call hpf_check(hpf_array_locate(a, [i], owned, off), 'locate')
    if (owned == 1) x(off + 1) = real(i + 1, c_double)
  end do
  call hpf_check(hpf_array_sum(a, c_loc(total)), 'sum A')
  call hpf_check(hpf_array_gather(a, 0, c_loc(gathered)), 'gather A')
  ! Every value is a small integer, exact in double precision.
  ok = nint(total) == 5050
  if (me == 0) ok = ok .and. all(nint(gathered) == [(i + 1, i = 0, 99)])

  ! REDISTRIBUTE A to CYCLIC(5) and back to CYCLIC(3): the data follows, the local pointer changes.
  call hpf_check(hpf_array_redistribute(a, [hpf_cyclic(5)], grid, HPF_STRATEGY_AUTO), 'redistribute A')
  gathered = 0
  call hpf_check(hpf_array_gather(a, 0, c_loc(gathered)), 'gather A after REDISTRIBUTE')
  if (me == 0) ok = ok .and. all(nint(gathered) == [(i + 1, i = 0, 99)])

  ! GEN_BLOCK: rank p holds 2 p + 1 elements (the last rank the rest); then INDIRECT: owner mod(i * 7, P).
  allocate(sizes(0:wsize - 1))
  do i = 0, wsize - 1
    sizes(i) = min(2 * i + 1, 100 - min(100_c_int64_t, i * i))
  end do
  sizes(wsize - 1) = 100 - (sum(sizes) - sizes(wsize - 1))
  call hpf_check(hpf_array_redistribute(a, [hpf_gen_block(sizes)], grid, HPF_STRATEGY_AUTO), 'GEN_BLOCK A')
  call hpf_local_real64(a, x)
  ok = ok .and. size(x, kind=c_int64_t) == sizes(me)
  owners = [(int(mod(i * 7, int(wsize, c_int64_t)), c_int32_t), i = 0, 99)]
  call hpf_check(hpf_array_redistribute(a, [hpf_indirect(owners)], grid, HPF_STRATEGY_AUTO), 'INDIRECT A')
  gathered = 0
  call hpf_check(hpf_array_gather(a, 0, c_loc(gathered)), 'gather A after GEN_BLOCK and INDIRECT')
  if (me == 0) ok = ok .and. all(nint(gathered) == [(i + 1, i = 0, 99)])

  call hpf_check(hpf_array_create('B', HPF_FLOAT64, 2, [9_c_int64_t, 5_c_int64_t], [hpf_cyclic(2), hpf_collapsed()], &
                                  grid, b), 'create B')
  call hpf_local_real64(b, y)
  y = 1.0_c_double
  do j = 0, 4
    do i = 0, 8
      call hpf_check(hpf_array_locate(b, [i, j], owned, off), 'locate B')
      if (owned == 1) y(mod(off, size(y, 1, kind=c_int64_t)) + 1, off / size(y, 1, kind=c_int64_t) + 1) = real(j, c_double)
    end do
  end do
  call hpf_check(hpf_array_sum(b, c_loc(bsum)), 'sum B')
  ok = ok .and. nint(bsum) == 9 * 10

  if (me == 0) then
    if (ok) then
      print '(a)', 'Fortran: sum 5050, gather OK, 2-D OK'
    else
      print '(a, f10.1, a, f10.1)', 'Fortran: WRONG sum ', total, ' 2-D sum ', bsum
    end if
  end if
  call hpf_check(hpf_array_free(a), 'free A')
  call hpf_check(hpf_array_free(b), 'free B')
  call hpf_check(hpf_grid_free(grid), 'free grid')
  call hpf_check(hpf_finalize(), 'hpf_finalize')
  if (.not. ok) error stop 1

end program fortran_program
