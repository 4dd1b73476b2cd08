! hpfrt — the Fortran module over the C ABI (compiler-support/include/hpfrt.h).
!
! Every C entry point is bound 1:1 (same names, same status codes, ISO_C_BINDING). On top, a few
! conveniences for hand-written Fortran and for code lowered from !HPF$ directives:
!   hpf_block(), hpf_cyclic(r), hpf_collapsed()  -> distributions (type(hpf_dist))
!   hpf_gen_block(sizes), hpf_indirect(owners)   -> HPF 2.0's GEN_BLOCK and INDIRECT (the table is
!                                                  referenced, not copied: see hpf_gen_block)
!   hpf_check(status, what)                      -> stops with hpf_last_error() on failure
!   hpf_template_*, hpf_array_create_aligned,    -> TEMPLATE, ALIGN and REALIGN (type(hpf_align_dim))
!   hpf_array_realign
!   hpf_error_message()                          -> the last error as a Fortran string
!   hpf_local_real64(a, x1) / (a, x2)            -> the local block as a Fortran pointer
! Global indices are 0-based (as in C): a front end subtracts its lower bounds. Arrays are in
! Fortran order throughout, so local blocks map directly onto Fortran arrays.
module hpfrt
  use, intrinsic :: iso_c_binding
  implicit none
  private

  integer(c_int), parameter, public :: HPF_OK = 0, HPF_ERR_ARG = 1, HPF_ERR_RUNTIME = 2
  ! Element types: real(c_double), real(c_float), integer(c_int32_t), integer(c_int64_t),
  ! complex(c_float_complex) and complex(c_double_complex).
  integer(c_int), parameter, public :: HPF_FLOAT64 = 0, HPF_FLOAT32 = 1, HPF_INT32 = 2, HPF_INT64 = 3, &
                                       HPF_COMPLEX64 = 4, HPF_COMPLEX128 = 5
  integer(c_int32_t), parameter, public :: HPF_DIST_BLOCK = 0, HPF_DIST_CYCLIC = 1, HPF_DIST_COLLAPSED = 2, &
                                           HPF_DIST_GEN_BLOCK = 3, HPF_DIST_INDIRECT = 4
  integer(c_int), parameter, public :: HPF_STRATEGY_AUTO = 0, HPF_STRATEGY_CATERPILLAR = 1, &
                                       HPF_STRATEGY_CLASS = 2, HPF_STRATEGY_KOENIG_STEPWISE = 3, &
                                       HPF_STRATEGY_KOENIG_GREEDY = 4, HPF_STRATEGY_ALL_AT_ONCE = 5, &
                                       HPF_STRATEGY_ALLTOALLV = 6

  ! The C struct hpf_dist { int32_t kind; int64_t block; const void* map; } (same layout under bind(c)).
  type, bind(c), public :: hpf_dist
    integer(c_int32_t) :: kind
    integer(c_int64_t) :: block
    type(c_ptr) :: map
  end type hpf_dist

  public :: hpf_last_error, hpf_init, hpf_finalize, hpf_world
  public :: hpf_grid_create_f, hpf_grid_create_world, hpf_grid_free, hpf_grid_my_position
  public :: hpf_array_create, hpf_array_free, hpf_array_local, hpf_array_locate, hpf_array_fill, &
            hpf_array_global_index, hpf_array_slot, hpf_array_redistribute, &
            hpf_array_redistribute_ceiling, hpf_array_redistribute_many
  public :: hpf_array_sum, hpf_array_min, hpf_array_max, hpf_array_gather, hpf_array_scatter
  public :: hpf_array_allgather, hpf_array_store_owned, hpf_broadcast, hpf_broadcast_bytes
  public :: hpf_block, hpf_cyclic, hpf_collapsed, hpf_gen_block, hpf_indirect, hpf_check, hpf_error_message, hpf_local_real64
  public :: hpf_grid_create_fitted, hpf_io_root

  interface
    function hpf_last_error() bind(c, name="hpf_last_error") result(msg)
      import :: c_ptr
      type(c_ptr) :: msg
    end function hpf_last_error

    function hpf_init(argc, argv) bind(c, name="hpf_init") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: argc, argv
      integer(c_int) :: status
    end function hpf_init

    function hpf_finalize() bind(c, name="hpf_finalize") result(status)
      import :: c_int
      integer(c_int) :: status
    end function hpf_finalize

    function hpf_world(rank, size) bind(c, name="hpf_world") result(status)
      import :: c_int
      integer(c_int), intent(out) :: rank, size
      integer(c_int) :: status
    end function hpf_world

    function hpf_grid_create_f(comm, nranks, ranks, ndims, shape, grid) bind(c, name="hpf_grid_create_f") &
        result(status)
      import :: c_int, c_ptr
      integer(c_int), value :: comm, nranks, ndims
      integer(c_int), intent(in) :: ranks(*), shape(*)
      type(c_ptr), intent(out) :: grid
      integer(c_int) :: status
    end function hpf_grid_create_f

    function hpf_grid_create_world(ndims, shape, grid) bind(c, name="hpf_grid_create_world") result(status)
      import :: c_int, c_ptr
      integer(c_int), value :: ndims
      integer(c_int), intent(in) :: shape(*)
      type(c_ptr), intent(out) :: grid
      integer(c_int) :: status
    end function hpf_grid_create_world

    function hpf_grid_free(grid) bind(c, name="hpf_grid_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: grid
      integer(c_int) :: status
    end function hpf_grid_free

    function hpf_grid_my_position(grid, position) bind(c, name="hpf_grid_my_position") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: grid
      integer(c_int), intent(out) :: position
      integer(c_int) :: status
    end function hpf_grid_my_position

    function hpf_array_create_c(label, type, rank, extents, dists, grid, array) bind(c, name="hpf_array_create") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, c_char, hpf_dist
      character(kind=c_char), intent(in) :: label(*)
      integer(c_int), value :: type, rank
      integer(c_int64_t), intent(in) :: extents(*)
      type(hpf_dist), intent(in) :: dists(*)
      type(c_ptr), value :: grid
      type(c_ptr), intent(out) :: array
      integer(c_int) :: status
    end function hpf_array_create_c

    function hpf_array_free(array) bind(c, name="hpf_array_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: array
      integer(c_int) :: status
    end function hpf_array_free

    function hpf_array_local(array, data, local_extents) bind(c, name="hpf_array_local") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: data
      integer(c_int64_t), intent(out) :: local_extents(*)
      integer(c_int) :: status
    end function hpf_array_local

    function hpf_array_locate(array, index, owned, local_offset) bind(c, name="hpf_array_locate") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), intent(in) :: index(*)
      integer(c_int), intent(out) :: owned
      integer(c_int64_t), intent(out) :: local_offset
      integer(c_int) :: status
    end function hpf_array_locate

    function hpf_array_global_index(array, local_offset, index) bind(c, name="hpf_array_global_index") &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), value :: local_offset
      integer(c_int64_t), intent(out) :: index(*)
      integer(c_int) :: status
    end function hpf_array_global_index

    function hpf_array_slot(array, local_offset, owned, index) bind(c, name="hpf_array_slot") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), value :: local_offset
      integer(c_int), intent(out) :: owned
      integer(c_int64_t), intent(out) :: index(*)
      integer(c_int) :: status
    end function hpf_array_slot

    function hpf_array_fill(array, value) bind(c, name="hpf_array_fill") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, value
      integer(c_int) :: status
    end function hpf_array_fill

    function hpf_array_sum(array, result) bind(c, name="hpf_array_sum") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int) :: status
    end function hpf_array_sum

    function hpf_array_min(array, result) bind(c, name="hpf_array_min") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int) :: status
    end function hpf_array_min

    function hpf_array_max(array, result) bind(c, name="hpf_array_max") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, result
      integer(c_int) :: status
    end function hpf_array_max

    function hpf_array_gather(array, root, out) bind(c, name="hpf_array_gather") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, out
      integer(c_int), value :: root
      integer(c_int) :: status
    end function hpf_array_gather

    function hpf_array_scatter(array, root, data, count) bind(c, name="hpf_array_scatter") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array, data
      integer(c_int), value :: root
      integer(c_int64_t), value :: count
      integer(c_int) :: status
    end function hpf_array_scatter

    function hpf_broadcast(data, bytes, root) bind(c, name="hpf_broadcast") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: data
      integer(c_int64_t), value :: bytes
      integer(c_int), value :: root
      integer(c_int) :: status
    end function hpf_broadcast

    function hpf_array_allgather(array, out) bind(c, name="hpf_array_allgather") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, out
      integer(c_int) :: status
    end function hpf_array_allgather

    function hpf_array_store_owned(array, data) bind(c, name="hpf_array_store_owned") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array, data
      integer(c_int) :: status
    end function hpf_array_store_owned

    function hpf_array_redistribute(array, dists, grid, strategy) bind(c, name="hpf_array_redistribute") &
        result(status)
      import :: c_int, c_ptr, hpf_dist
      type(c_ptr), value :: array, grid
      type(hpf_dist), intent(in) :: dists(*)
      integer(c_int), value :: strategy
      integer(c_int) :: status
    end function hpf_array_redistribute

    function hpf_array_redistribute_ceiling(array, dists, grid, strategy, memory_ceiling_bytes) &
        bind(c, name="hpf_array_redistribute_ceiling") result(status)
      import :: c_int, c_int64_t, c_ptr, hpf_dist
      type(c_ptr), value :: array, grid
      type(hpf_dist), intent(in) :: dists(*)
      integer(c_int), value :: strategy
      integer(c_int64_t), value :: memory_ceiling_bytes
      integer(c_int) :: status
    end function hpf_array_redistribute_ceiling

    function hpf_array_redistribute_many(count, arrays, dists, grids, strategy) &
        bind(c, name="hpf_array_redistribute_many") result(status)
      import :: c_int, c_ptr, hpf_dist
      integer(c_int), value :: count
      type(c_ptr), intent(in) :: arrays(*), grids(*)
      type(hpf_dist), intent(in) :: dists(*)
      integer(c_int), value :: strategy
      integer(c_int) :: status
    end function hpf_array_redistribute_many

    function c_strlen(s) bind(c, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
  end interface

  ! SHADOW regions and shifts: see hpfrt.h. With shadows, hpf_array_local gives the whole
  ! storage: on BLOCK dimensions owned local index l (0-based) is element l + w + 1 of the pointer.
  integer(c_int32_t), parameter, public :: HPF_BOUNDARY_PLAIN = 0, HPF_BOUNDARY_PERIODIC = 1
  public :: hpf_array_create_shadow, hpf_array_shadow_widths, hpf_array_update_shadow, hpf_cshift, hpf_eoshift
  interface
    function hpf_array_create_shadow_c(label, type, rank, extents, dists, shadow, grid, array) &
        bind(c, name="hpf_array_create_shadow") result(status)
      import :: c_int, c_int64_t, c_ptr, c_char, hpf_dist
      character(kind=c_char), intent(in) :: label(*)
      integer(c_int), value :: type, rank
      integer(c_int64_t), intent(in) :: extents(*), shadow(*)
      type(hpf_dist), intent(in) :: dists(*)
      type(c_ptr), value :: grid
      type(c_ptr), intent(out) :: array
      integer(c_int) :: status
    end function hpf_array_create_shadow_c

    function hpf_array_shadow_widths(array, widths) bind(c, name="hpf_array_shadow_widths") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int64_t), intent(out) :: widths(*)
      integer(c_int) :: status
    end function hpf_array_shadow_widths

    function hpf_array_update_shadow(array, boundary) bind(c, name="hpf_array_update_shadow") result(status)
      import :: c_int, c_int32_t, c_ptr
      type(c_ptr), value :: array
      integer(c_int32_t), value :: boundary
      integer(c_int) :: status
    end function hpf_array_update_shadow

    function hpf_cshift(source, shift, dim, target) bind(c, name="hpf_cshift") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: source, target
      integer(c_int64_t), value :: shift
      integer(c_int), value :: dim
      integer(c_int) :: status
    end function hpf_cshift

    function hpf_eoshift(source, shift, dim, boundary, target) bind(c, name="hpf_eoshift") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: source, boundary, target
      integer(c_int64_t), value :: shift
      integer(c_int), value :: dim
      integer(c_int) :: status
    end function hpf_eoshift
  end interface

  ! Array sections and transposes: see hpfrt.h. Triplets are 0-based and inclusive; perm
  ! is c_null_ptr or c_loc of an integer(c_int32_t), target :: perm(rank) array.
  type, bind(c), public :: hpf_triplet
    integer(c_int64_t) :: lo
    integer(c_int64_t) :: hi
    integer(c_int64_t) :: stride
  end type hpf_triplet
  public :: hpf_array_dim_runs, hpf_owner_runs, hpf_visited, hpf_do_trips
  interface
    function hpf_array_dim_runs(array, dim, range, capacity, count, first, last, slot) &
        bind(c, name="hpf_array_dim_runs") result(status)
      import :: c_int, c_ptr, c_int64_t, hpf_triplet
      type(c_ptr), value :: array
      integer(c_int), value :: dim
      type(hpf_triplet), intent(in) :: range
      integer(c_int64_t), value :: capacity
      integer(c_int64_t), intent(out) :: count
      integer(c_int64_t), intent(out) :: first(*), last(*), slot(*)
      integer(c_int) :: status
    end function hpf_array_dim_runs
  end interface

  !> The runs of one dimension of an owner-computes loop (hpf_owner_runs): run k visits the indices
  !> first(k), first(k) + stride, ..., last(k) (declared Fortran indices), stored at subscript
  !> index + offset(k) of the local storage seen as a Fortran array with lower bounds 1.
  type, public :: hpf_runs
    integer :: n = 0
    integer :: stride = 1
    integer, allocatable :: first(:), last(:), offset(:)
    integer(c_int64_t), allocatable :: f(:), l(:), s(:)
  end type hpf_runs

  public :: hpf_array_assign_section, hpf_array_transpose
  interface
    function hpf_array_assign_section(dst, dst_section, src, src_section, perm) &
        bind(c, name="hpf_array_assign_section") result(status)
      import :: c_int, c_ptr, hpf_triplet
      type(c_ptr), value :: dst, src, perm
      type(hpf_triplet), intent(in) :: dst_section(*), src_section(*)
      integer(c_int) :: status
    end function hpf_array_assign_section

    function hpf_array_transpose(source, perm, target) bind(c, name="hpf_array_transpose") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: source, perm, target
      integer(c_int) :: status
    end function hpf_array_transpose
  end interface

  ! TEMPLATE and ALIGN: see hpfrt.h. base_dim is 0-based (HPF_ALIGN_COLLAPSED: held
  ! whole); base_index has one entry per base dimension (HPF_ALIGN_REPLICATED or a 0-based index).
  type, bind(c), public :: hpf_align_dim
    integer(c_int32_t) :: base_dim
    integer(c_int64_t) :: stride
    integer(c_int64_t) :: offset
  end type hpf_align_dim
  integer(c_int32_t), parameter, public :: HPF_ALIGN_COLLAPSED = -1
  integer(c_int64_t), parameter, public :: HPF_ALIGN_REPLICATED = -1
  public :: hpf_template_create, hpf_template_of_array, hpf_template_redistribute, hpf_template_extents, &
            hpf_template_free, hpf_array_create_aligned, hpf_array_realign
  interface
    function hpf_template_create(rank, extents, dists, grid, tmpl) bind(c, name="hpf_template_create") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, hpf_dist
      integer(c_int), value :: rank
      integer(c_int64_t), intent(in) :: extents(*)
      type(hpf_dist), intent(in) :: dists(*)
      type(c_ptr), value :: grid
      type(c_ptr), intent(out) :: tmpl
      integer(c_int) :: status
    end function hpf_template_create

    function hpf_template_of_array(array, tmpl) bind(c, name="hpf_template_of_array") result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: array
      type(c_ptr), intent(out) :: tmpl
      integer(c_int) :: status
    end function hpf_template_of_array

    function hpf_template_redistribute(tmpl, dists, grid) bind(c, name="hpf_template_redistribute") &
        result(status)
      import :: c_int, c_ptr, hpf_dist
      type(c_ptr), value :: tmpl, grid
      type(hpf_dist), intent(in) :: dists(*)
      integer(c_int) :: status
    end function hpf_template_redistribute

    function hpf_template_extents(tmpl, rank, extents) bind(c, name="hpf_template_extents") result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: tmpl
      integer(c_int), intent(out) :: rank
      integer(c_int64_t), intent(out) :: extents(4)
      integer(c_int) :: status
    end function hpf_template_extents

    function hpf_template_free(tmpl) bind(c, name="hpf_template_free") result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: tmpl
      integer(c_int) :: status
    end function hpf_template_free

    function hpf_array_create_aligned_c(label, type, rank, extents, base, dims, base_index, array) &
        bind(c, name="hpf_array_create_aligned") result(status)
      import :: c_int, c_int64_t, c_ptr, c_char, hpf_align_dim
      character(kind=c_char), intent(in) :: label(*)
      integer(c_int), value :: type, rank
      integer(c_int64_t), intent(in) :: extents(*), base_index(*)
      type(c_ptr), value :: base
      type(hpf_align_dim), intent(in) :: dims(*)
      type(c_ptr), intent(out) :: array
      integer(c_int) :: status
    end function hpf_array_create_aligned_c

    function hpf_array_realign(array, base, dims, base_index, strategy) bind(c, name="hpf_array_realign") &
        result(status)
      import :: c_int, c_int64_t, c_ptr, hpf_align_dim
      type(c_ptr), value :: array, base
      type(hpf_align_dim), intent(in) :: dims(*)
      integer(c_int64_t), intent(in) :: base_index(*)
      integer(c_int), value :: strategy
      integer(c_int) :: status
    end function hpf_array_realign
  end interface

  interface hpf_local_real64
    module procedure hpf_local_real64_1d, hpf_local_real64_2d
  end interface hpf_local_real64

  ! What an empty local block points at (a rank outside the grid, or owning no element).
  real(c_double), target, save :: empty1(0), empty2(0, 0)

contains

  !> HPF's BLOCK.
  pure function hpf_block() result(d)
    type(hpf_dist) :: d
    d = hpf_dist(HPF_DIST_BLOCK, 0_c_int64_t, c_null_ptr)
  end function hpf_block

  !> HPF's CYCLIC(r).
  pure function hpf_cyclic(r) result(d)
    integer, intent(in) :: r
    type(hpf_dist) :: d
    d = hpf_dist(HPF_DIST_CYCLIC, int(r, c_int64_t), c_null_ptr)
  end function hpf_cyclic

  !> HPF's `*` (the dimension is not distributed).
  pure function hpf_collapsed() result(d)
    type(hpf_dist) :: d
    d = hpf_dist(HPF_DIST_COLLAPSED, 0_c_int64_t, c_null_ptr)
  end function hpf_collapsed

  !> HPF 2.0's GEN_BLOCK(sizes): one block size per process along the dimension's grid axis. The
  !> result points at `sizes`, which must be a TARGET that lives until the call taking it returns.
  function hpf_gen_block(sizes) result(d)
    integer(c_int64_t), intent(in), target, contiguous :: sizes(:)
    type(hpf_dist) :: d
    d = hpf_dist(HPF_DIST_GEN_BLOCK, 0_c_int64_t, c_loc(sizes))
  end function hpf_gen_block

  !> HPF 2.0's INDIRECT(owners): the grid coordinate (0-based) of every index of the dimension. The
  !> result points at `owners`, which must be a TARGET that lives until the call taking it returns.
  function hpf_indirect(owners) result(d)
    integer(c_int32_t), intent(in), target, contiguous :: owners(:)
    type(hpf_dist) :: d
    d = hpf_dist(HPF_DIST_INDIRECT, 0_c_int64_t, c_loc(owners))
  end function hpf_indirect

  !> hpf_array_create with a Fortran string label.
  function hpf_array_create(label, type, rank, extents, dists, grid, array) result(status)
    character(len=*), intent(in) :: label
    integer(c_int), intent(in) :: type, rank
    integer(c_int64_t), intent(in) :: extents(*)
    type(hpf_dist), intent(in) :: dists(*)
    type(c_ptr), intent(in) :: grid
    type(c_ptr), intent(out) :: array
    integer(c_int) :: status
    status = hpf_array_create_c(trim(label)//c_null_char, type, rank, extents, dists, grid, array)
  end function hpf_array_create

  !> hpf_array_create_shadow with a Fortran string label.
  function hpf_array_create_shadow(label, type, rank, extents, dists, shadow, grid, array) result(status)
    character(len=*), intent(in) :: label
    integer(c_int), intent(in) :: type, rank
    integer(c_int64_t), intent(in) :: extents(*), shadow(*)
    type(hpf_dist), intent(in) :: dists(*)
    type(c_ptr), intent(in) :: grid
    type(c_ptr), intent(out) :: array
    integer(c_int) :: status
    status = hpf_array_create_shadow_c(trim(label)//c_null_char, type, rank, extents, dists, shadow, grid, array)
  end function hpf_array_create_shadow

  !> hpf_array_create_aligned with a Fortran string label (base_index: one entry per base dimension).
  function hpf_array_create_aligned(label, type, rank, extents, base, dims, base_index, array) result(status)
    character(len=*), intent(in) :: label
    integer(c_int), intent(in) :: type, rank
    integer(c_int64_t), intent(in) :: extents(*), base_index(*)
    type(c_ptr), intent(in) :: base
    type(hpf_align_dim), intent(in) :: dims(*)
    type(c_ptr), intent(out) :: array
    integer(c_int) :: status
    status = hpf_array_create_aligned_c(trim(label)//c_null_char, type, rank, extents, base, dims, base_index, &
                                        array)
  end function hpf_array_create_aligned

  !> The message of the last failed call.
  function hpf_error_message() result(msg)
    character(len=:), allocatable :: msg
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = hpf_last_error()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: msg)
    do i = 1, n
      msg(i:i) = chars(i)
    end do
  end function hpf_error_message

  !> Stops the program with the runtime's message unless status is HPF_OK.
  subroutine hpf_check(status, what)
    integer(c_int), intent(in) :: status
    character(len=*), intent(in) :: what
    if (status /= HPF_OK) then
      write (*, '(a, a, a)') what, ' failed: ', hpf_error_message()
      error stop 1
    end if
  end subroutine hpf_check

  !> A grid of ndims dimensions over every rank of MPI_COMM_WORLD for an HPF PROCESSORS arrangement
  !> of the given shape (collective). HPF 2.0 section 3.6 leaves the mapping of abstract processors
  !> onto physical ones to the implementation. When the arrangement has as many processors as there
  !> are ranks, the grid has its shape. Otherwise the ranks are spread over the same number of
  !> dimensions: each prime factor of the number of ranks, largest first, multiplies the extent of
  !> the dimension furthest below its requested extent (the smallest extent / requested; the first
  !> one on a tie). So P(4) gives 3 ranks in a line on 3 ranks, and P(2, 2) gives 3 x 1; the program
  !> computes what it computes on 4, with HPF's distribution onto the grid the ranks form.
  function hpf_grid_create_fitted(ndims, shape, grid) result(status)
    integer(c_int), intent(in) :: ndims
    integer(c_int), intent(in) :: shape(*)
    type(c_ptr), intent(out) :: grid
    integer(c_int) :: status, rank, size, left, d, k, nf, best
    integer(c_int) :: fitted(ndims), factors(32)
    status = hpf_world(rank, size)
    if (status /= HPF_OK) return
    if (product(int(shape(1:ndims), c_int64_t)) == int(size, c_int64_t) .or. any(shape(1:ndims) < 1)) then
      status = hpf_grid_create_world(ndims, shape, grid) ! the runtime names a bad extent
      return
    end if
    nf = 0
    left = size
    d = 2
    do while (left > 1)
      if (mod(left, d) == 0) then
        nf = nf + 1
        factors(nf) = d
        left = left / d
      else if (d * d > left) then
        d = left
      else
        d = d + 1
      end if
    end do
    fitted = 1
    do k = nf, 1, -1
      best = 1
      do d = 2, ndims
        if (int(fitted(d), c_int64_t) * shape(best) < int(fitted(best), c_int64_t) * shape(d)) best = d
      end do
      fitted(best) = fitted(best) * factors(k)
    end do
    status = hpf_grid_create_world(ndims, fitted, grid)
  end function hpf_grid_create_fitted

  !> Rank 0's `bytes` on every rank (collective over MPI_COMM_WORLD). A lowered READ runs on rank 0
  !> and sends each variable it read as the bytes TRANSFER gives, of any type and shape.
  subroutine hpf_broadcast_bytes(bytes)
    integer(c_int8_t), intent(inout), target, contiguous :: bytes(:)
    call hpf_check(hpf_broadcast(c_loc(bytes), size(bytes, kind=c_int64_t), 0_c_int), 'READ: broadcast')
  end subroutine hpf_broadcast_bytes

  !> .true. on rank 0 (and when the runtime is not running): the rank that runs the PRINT and WRITE
  !> statements of the procedures a lowered program calls, so that they print once, as serially.
  logical function hpf_io_root()
    integer(c_int) :: rank, size
    hpf_io_root = .true.
    if (hpf_world(rank, size) == HPF_OK) hpf_io_root = rank == 0
  end function hpf_io_root

  !> The local block of a rank-1 HPF_FLOAT64 array as a Fortran pointer (size 0 when empty).
  subroutine hpf_local_real64_1d(array, x)
    type(c_ptr), intent(in) :: array
    real(c_double), pointer, intent(out) :: x(:)
    type(c_ptr) :: p
    integer(c_int64_t) :: ext(1)
    call hpf_check(hpf_array_local(array, p, ext), 'hpf_local_real64')
    if (c_associated(p)) then
      call c_f_pointer(p, x, [ext(1)])
    else
      x => empty1
    end if
  end subroutine hpf_local_real64_1d

  !> The local block of a rank-2 HPF_FLOAT64 array as a Fortran pointer.
  subroutine hpf_local_real64_2d(array, x)
    type(c_ptr), intent(in) :: array
    real(c_double), pointer, intent(out) :: x(:, :)
    type(c_ptr) :: p
    integer(c_int64_t) :: ext(2)
    call hpf_check(hpf_array_local(array, p, ext), 'hpf_local_real64')
    if (c_associated(p)) then
      call c_f_pointer(p, x, [ext(1), ext(2)])
    else
      x => empty2
    end if
  end subroutine hpf_local_real64_2d

  !> The runs of dimension `dim` (1-based) of `array` over the indices lo:hi:stride of a FORALL or DO
  !> (declared Fortran indices; `lower` is the dimension's declared lower bound) that the calling rank
  !> owns, in `runs` (its tables are kept and reused from one loop to the next). Stops with `what`
  !> and the runtime's message on bad input (stride 0).
  subroutine hpf_owner_runs(array, dim, lo, hi, stride, lower, runs, what)
    type(c_ptr), intent(in) :: array
    integer, intent(in) :: dim
    integer(c_int64_t), intent(in) :: lo, hi, stride, lower
    type(hpf_runs), intent(inout) :: runs
    character(len=*), intent(in) :: what
    type(hpf_triplet) :: t
    integer(c_int64_t) :: count, cap
    t = hpf_triplet(lo - lower, hi - lower, stride)
    if (.not. allocated(runs%f)) allocate (runs%f(1), runs%l(1), runs%s(1), runs%first(1), runs%last(1), &
                                           runs%offset(1))
    cap = size(runs%f, kind=c_int64_t)
    call hpf_check(hpf_array_dim_runs(array, int(dim - 1, c_int), t, cap, count, runs%f, runs%l, runs%s), what)
    if (count > cap) then
      deallocate (runs%f, runs%l, runs%s, runs%first, runs%last, runs%offset)
      allocate (runs%f(count), runs%l(count), runs%s(count), runs%first(count), runs%last(count), &
                runs%offset(count))
      cap = count
      call hpf_check(hpf_array_dim_runs(array, int(dim - 1, c_int), t, cap, count, runs%f, runs%l, runs%s), what)
    end if
    runs%n = int(count)
    runs%stride = int(abs(stride))
    if (count > 0) then
      runs%first(1:count) = int(runs%f(1:count) + lower)
      runs%last(1:count) = int(runs%l(1:count) + lower)
      runs%offset(1:count) = int(runs%s(1:count) + 1 - runs%f(1:count) - lower)
    end if
  end subroutine hpf_owner_runs

  !> The number of iterations of `DO v = lo, hi, step` (F2018 11.1.7.4.1: max((hi - lo + step) / step,
  !> 0)); the loop leaves v = lo + step * that.
  pure integer(c_int64_t) function hpf_do_trips(lo, hi, step)
    integer(c_int64_t), intent(in) :: lo, hi, step
    hpf_do_trips = max((hi - lo + step) / step, 0_c_int64_t)
  end function hpf_do_trips

  !> The first and last index that lo:hi:stride (any non-zero stride) visits inside [lower, upper], in
  !> increasing order: first > last when it visits none there (or stride is 0).
  pure subroutine hpf_visited(lo, hi, stride, lower, upper, first, last)
    integer(c_int64_t), intent(in) :: lo, hi, stride, lower, upper
    integer(c_int64_t), intent(out) :: first, last
    integer(c_int64_t) :: s
    first = 1
    last = 0
    if (stride == 0) return
    s = abs(stride)
    if (stride > 0) then
      if (lo > hi) return
      first = lo
      last = lo + (hi - lo) / s * s
    else
      if (lo < hi) return
      first = lo - (lo - hi) / s * s
      last = lo
    end if
    if (first < lower) first = first + (lower - first + s - 1) / s * s
    if (last > upper) last = last - (last - upper + s - 1) / s * s
  end subroutine hpf_visited

end module hpfrt
