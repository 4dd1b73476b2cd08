/** \file hpfrt.h
 * hpfrt.h — the C ABI of the hpfrt runtime: what an HPF compiler (or a C or Fortran program) calls.
 *
 * Conventions
 *   - Every function returns an hpf_status; HPF_OK (0) is success. On failure, hpf_last_error()
 *     returns the message of the hpf::Error behind it (argument, value, what was expected, rank).
 *     No C++ exception ever crosses this interface.
 *   - Collective functions say so; they must be called by every rank of the grid's parent
 *     communicator, in the same order, with the same arguments (as in the C++ API).
 *   - Global indices are 0-based and arrays are in Fortran (column-major) order: dimension 0 varies
 *     fastest, in local blocks and in gathered/scattered global buffers alike. A Fortran front end
 *     subtracts its lower bounds.
 *   - Handles are opaque; *_free sets the handle to NULL. A grid may be freed while arrays on it live
 *     (they keep what they need).
 */
#ifndef HPFRT_H
#define HPFRT_H

#include <mpi.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What every function returns. */
typedef enum hpf_status {
  HPF_OK = 0,          /**< success */
  HPF_ERR_ARG = 1,     /**< bad argument: see hpf_last_error() */
  HPF_ERR_RUNTIME = 2, /**< MPI failure or another runtime error: see hpf_last_error() */
} hpf_status;

/** Element types. Functions take them as int32_t, so any value a caller passes is well defined
 * (and rejected with HPF_ERR_ARG unless it is one of these). A complex element is a pair of reals,
 * real part first: C's float _Complex / double _Complex, C++'s std::complex, Fortran's COMPLEX of
 * kind c_float_complex / c_double_complex. */
typedef enum hpf_type {
  HPF_FLOAT64 = 0,   /**< double */
  HPF_FLOAT32 = 1,   /**< float */
  HPF_INT32 = 2,     /**< int32_t */
  HPF_INT64 = 3,     /**< int64_t */
  HPF_COMPLEX64 = 4, /**< two floats (real, imaginary) */
  HPF_COMPLEX128 = 5 /**< two doubles (real, imaginary) */
} hpf_type;

/** The kind of a per-dimension distribution (hpf_dist::kind). */
typedef enum hpf_dist_kind {
  HPF_DIST_BLOCK = 0,     /**< HPF's BLOCK */
  HPF_DIST_CYCLIC = 1,    /**< HPF's CYCLIC(block) */
  HPF_DIST_COLLAPSED = 2, /**< HPF's `*`: not distributed */
  HPF_DIST_GEN_BLOCK = 3, /**< HPF 2.0's GEN_BLOCK(map) */
  HPF_DIST_INDIRECT = 4   /**< HPF 2.0's INDIRECT(map) */
} hpf_dist_kind;

/** Per-dimension distribution: HPF's BLOCK, CYCLIC(block) and `*`, and HPF 2.0's GEN_BLOCK and
 * INDIRECT. `map` points at the caller's table, read during the call only:
 *   GEN_BLOCK: int64_t sizes[grid extent along the dimension's grid axis] (>= 0, summing to the extent);
 *   INDIRECT:  int32_t owners[extent of the dimension] (grid coordinates along the axis, 0-based).
 * The table must be the same on every rank. `{HPF_DIST_BLOCK, 0}` and the like (map omitted, so NULL)
 * stay valid. */
typedef struct hpf_dist {
  int32_t kind;    /**< an hpf_dist_kind */
  int64_t block;   /**< CYCLIC's block size (>= 1); ignored otherwise */
  const void* map; /**< GEN_BLOCK's sizes or INDIRECT's owners (see above); ignored otherwise */
} hpf_dist;

/** Redistribution strategies (see the README): AUTO picks by the alpha-beta cost model. */
typedef enum hpf_strategy {
  HPF_STRATEGY_AUTO = 0,
  HPF_STRATEGY_CATERPILLAR = 1,
  HPF_STRATEGY_CLASS = 2,
  HPF_STRATEGY_KOENIG_STEPWISE = 3,
  HPF_STRATEGY_KOENIG_GREEDY = 4,
  HPF_STRATEGY_ALL_AT_ONCE = 5,
  HPF_STRATEGY_ALLTOALLV = 6
} hpf_strategy;

/** A process grid (hpf::ProcessGrid): an opaque handle. */
typedef struct hpf_grid_s* hpf_grid;
/** A distributed array (hpf::DistArray): an opaque handle. */
typedef struct hpf_array_s* hpf_array;

/** Message of the last failed call on this thread ("" if none). Valid until the next failing call. */
const char* hpf_last_error(void);

/** MPI and Kokkos, initialised unless they already are (argc/argv may be NULL). hpf_finalize
 * finalises only what hpf_init started. Not thread-safe; call once each. */
hpf_status hpf_init(int* argc, char*** argv);
/** Finalises what hpf_init initialised (Kokkos, then MPI). */
hpf_status hpf_finalize(void);

/** This process's rank in MPI_COMM_WORLD and its size (for programs that use no MPI themselves). */
hpf_status hpf_world(int* rank, int* size);
/** Collective over MPI_COMM_WORLD: `bytes` bytes at `data` on rank `root` are copied to `data` on
 * every rank (what a program's READ gives on one rank, made the same everywhere). */
hpf_status hpf_broadcast(void* data, int64_t bytes, int root);

/** Collective over `comm`: a grid of ndims (1..4) dimensions with `shape` over `nranks` ranks of
 * `comm` given in grid-position order (Fortran order of coordinates). ranks == NULL: every rank of
 * comm in rank order (nranks is then ignored). */
hpf_status hpf_grid_create(MPI_Comm comm, int nranks, const int* ranks, int ndims, const int* shape,
                           hpf_grid* grid);
/** The same for a Fortran communicator handle. */
hpf_status hpf_grid_create_f(MPI_Fint comm, int nranks, const int* ranks, int ndims, const int* shape,
                             hpf_grid* grid);
/** Collective over MPI_COMM_WORLD: every rank in rank order (for Fortran programs that use no MPI). */
hpf_status hpf_grid_create_world(int ndims, const int* shape, hpf_grid* grid);
/** Frees a grid (arrays on it keep what they need) and sets the handle to NULL. */
hpf_status hpf_grid_free(hpf_grid* grid);
/** Grid position of the calling rank, or -1 when it is outside the grid. */
hpf_status hpf_grid_my_position(hpf_grid grid, int* position);

/** Collective over the grid's parent communicator (every rank calls; the ranks agree on the arguments
 * and fail together): an array of `rank` (1..4) dimensions with the given extents and per-dimension
 * distributions over `grid` (the k-th distributed dimension runs along grid dimension k), zeroed. */
hpf_status hpf_array_create(const char* label, int32_t type /* an hpf_type */, int rank,
                            const int64_t* extents, const hpf_dist* dists, hpf_grid grid, hpf_array* array);
/** Frees an array and sets the handle to NULL. */
hpf_status hpf_array_free(hpf_array* array);

/** The local block: its data (Fortran order, NULL when empty) and its `rank` extents. The pointer is
 * valid until the array is freed or redistributed. A rank that owns nothing of the array gets NULL
 * and the extents of what it owns (at least one is 0; e.g. 0 x 5 for a 13 x 5 CYCLIC(2) x * array on
 * a rank past the last block), not those of its storage, which holds nothing, shadow included. */
hpf_status hpf_array_local(hpf_array array, void** data, int64_t* local_extents);
/** Whether the calling rank owns the element at global index `index` (rank entries), and if so its
 * offset in the local block (else -1). */
hpf_status hpf_array_locate(hpf_array array, const int64_t* index, int* owned, int64_t* local_offset);

/** The global index (rank entries) of the local element at `local_offset` (0 <= offset < local
 * size, Fortran order within the local block): the owner-computes loop of a compiler. */
hpf_status hpf_array_global_index(hpf_array array, int64_t local_offset, int64_t* index);
/** Whether the local storage slot at `local_offset` (0 <= offset < storage size, Fortran order) holds
 * an owned element (*owned = 1, its global index in `index` when not NULL) or is a shadow slot
 * (*owned = 0): the owner-computes loop over the storage of an array with SHADOW widths, any
 * distribution. */
hpf_status hpf_array_slot(hpf_array array, int64_t local_offset, int* owned, int64_t* index);

/** Not collective: every local element := *value (of the array's type). */
hpf_status hpf_array_fill(hpf_array array, const void* value);

/** Collective: the sum / minimum / maximum of all elements, written to *result (array's type) on
 * every rank. min and max of an empty array, and of a complex array (no order), fail with
 * HPF_ERR_ARG on every rank. */
hpf_status hpf_array_sum(hpf_array array, void* result);
/** Collective: the smallest element, as hpf_array_sum (HPF_ERR_ARG for an empty array). */
hpf_status hpf_array_min(hpf_array array, void* result);
/** Collective: the largest element, as hpf_array_sum (HPF_ERR_ARG for an empty array). */
hpf_status hpf_array_max(hpf_array array, void* result);

/** Collective: the whole array in global Fortran order into `out` (global-size elements) on `root`
 * (a rank of the parent communicator); `out` is ignored elsewhere. */
hpf_status hpf_array_gather(hpf_array array, int root, void* out);
/** Collective: distributes `data` (global-size elements on root; ignored elsewhere). */
hpf_status hpf_array_scatter(hpf_array array, int root, const void* data, int64_t count);
/** Collective: the whole array in global Fortran order into `out` (global-size elements) on every
 * rank of the parent communicator: the replicated copy a compiler evaluates an expression over when
 * it cannot compute it where the data lives (HPF 2.0 section 3.1: any execution that gives the
 * serial results is a correct one). */
hpf_status hpf_array_allgather(hpf_array array, void* out);
/** Not collective: `data` holds the whole array in global Fortran order (global-size elements) on
 * the calling rank, which copies the elements it owns (every copy of a replicated block) into its
 * local block and leaves shadow slots alone: how a replicated copy is written back. */
hpf_status hpf_array_store_owned(hpf_array array, const void* data);

/** Collective over the parent communicator: HPF REDISTRIBUTE. The array keeps its extents and data
 * and takes the new distributions over `grid` (which must share the parent communicator). Plans
 * are cached, so repeating a redistribution between the same layouts does not re-plan. */
hpf_status hpf_array_redistribute(hpf_array array, const hpf_dist* dists, hpf_grid grid,
                                  int32_t strategy /* an hpf_strategy */);
/** Collective, as hpf_array_redistribute, allocating at most `memory_ceiling_bytes` per rank beyond
 * the source and target blocks (message buffers): a move whose buffers would exceed it runs in smaller
 * pieces that fit (docs/redistribute.md, "A memory ceiling"). HPF_ERR_ARG on every rank, with the
 * array unchanged, for a ceiling below the smallest piece (the message names the smallest workable
 * ceiling) or an array with a SHADOW. */
hpf_status hpf_array_redistribute_ceiling(hpf_array array, const hpf_dist* dists, hpf_grid grid,
                                          int32_t strategy /* an hpf_strategy */,
                                          uint64_t memory_ceiling_bytes);
/** Collective over the parent communicator of every array's grid: HPF REDISTRIBUTE of `count` arrays
 * (any element types and ranks, grids on one parent communicator) in one exchange, one message per
 * pair of ranks and step (docs/redistribute.md, "Several arrays in one exchange"). Array i takes the
 * distributions of its rank from `dists`, which holds every array's in turn (array 0's, then array
 * 1's, ...), over grids[i]; it keeps its extents, SHADOW widths, label and data. count = 0 does
 * nothing. HPF_ERR_ARG on every rank, with every array unchanged, for what hpf_array_redistribute
 * refuses (the message names arrays[i]) or arrays whose grids have different parent communicators. */
hpf_status hpf_array_redistribute_many(int count, const hpf_array* arrays, const hpf_dist* dists,
                                       const hpf_grid* grids, int32_t strategy /* an hpf_strategy */);

/* ---- SHADOW regions and shifts (docs/shadows.md) ----
 * An array created with shadow widths keeps, along each dimension of width w, w slots before and
 * after each local block (BLOCK and `*` dimensions have one block: owned local index l sits at slot
 * l + w; a CYCLIC(r) dimension, r >= w, gives each of its blocks of r its own shadow). For such an
 * array hpf_array_local returns the whole storage (shadows included) and its extents, and
 * hpf_array_locate and hpf_array_global_index use offsets into that storage; a kernel reads a
 * neighbour at the offset of its slot after hpf_array_update_shadow. Without shadows nothing changes. */
/** The boundary of a shadow update: PLAIN leaves the slots outside the array alone, PERIODIC wraps
 * around the array's ends. */
typedef enum hpf_boundary { HPF_BOUNDARY_PLAIN = 0, HPF_BOUNDARY_PERIODIC = 1 } hpf_boundary;

/** Collective like hpf_array_create: hpf_array_create with SHADOW widths (rank entries, >= 0; at most the block size on
 * a CYCLIC dimension; any width on BLOCK and `*`, reaching past a neighbour's block if need be). */
hpf_status hpf_array_create_shadow(const char* label, int32_t type /* an hpf_type */, int rank,
                                   const int64_t* extents, const hpf_dist* dists, const int64_t* shadow,
                                   hpf_grid grid, hpf_array* array);
/** The shadow widths (rank entries; zeros for an array without shadow). */
hpf_status hpf_array_shadow_widths(hpf_array array, int64_t* widths);
/** Collective: fills the shadow from the owners, corners included. HPF_BOUNDARY_PLAIN leaves the
 * slots outside the array alone; HPF_BOUNDARY_PERIODIC wraps (slot -1 holds n - 1, slot n holds 0). */
hpf_status hpf_array_update_shadow(hpf_array array, int32_t boundary /* an hpf_boundary */);
/** Collective: target := CSHIFT(source, shift, dim), dim 0-based: target(g) = source(g with
 * g[dim] = (g[dim] + shift) mod n). `target` is another array of the same type, rank and layout. */
hpf_status hpf_cshift(hpf_array source, int64_t shift, int dim, hpf_array target);
/** Collective: target := EOSHIFT(source, shift, dim, *boundary): source(g + shift e_dim) where that is
 * inside the array, *boundary (of the array's type; zero when NULL) elsewhere. */
hpf_status hpf_eoshift(hpf_array source, int64_t shift, int dim, const void* boundary, hpf_array target);

/* ---- Array sections and transposes (docs/sections.md) ----
 * A section is one triplet per dimension: 0-based, inclusive lo and hi, stride != 0 (a negative stride
 * walks from lo down to hi, as Fortran's a(hi:lo:-s) read backwards). A triplet with lo == hi has
 * extent 1; the extents of the two sections must agree dimension by dimension (after `perm`). */
/** A subscript triplet lo:hi:stride of one dimension (see above). */
typedef struct hpf_triplet {
  int64_t lo;     /**< first index, 0-based */
  int64_t hi;     /**< last index bound, inclusive */
  int64_t stride; /**< != 0; negative walks downwards */
} hpf_triplet;

/** Collective over the parent communicator of both arrays' grids (every rank calls, with the same
 * arguments): dst(dst_section) = src(src_section), HPF array-section assignment between any two
 * distributions. `perm` is NULL (dimension d of dst takes dimension d of src) or `rank` entries
 * (dst's dimension d takes src's dimension perm[d]). dst and src have the same type and rank and may
 * be the same array with overlapping sections: the result is as if src(src_section) were read
 * completely first. Plans are cached. On bad input every rank fails and dst is unchanged. */
hpf_status hpf_array_assign_section(hpf_array dst, const hpf_triplet* dst_section, hpf_array src,
                                    const hpf_triplet* src_section, const int32_t* perm);
/** Collective, as hpf_array_assign_section: dst(dst_section) = alpha op(src(src_section)) +
 * beta dst(dst_section), computed while the elements move (ScaLAPACK's pdgeadd and pdtran between
 * any two distributions). op permutes dimensions as `perm` says (NULL: none) and conjugates complex
 * elements when `conjugate` is non-zero (HPF_COMPLEX64 and HPF_COMPLEX128; no effect on the other
 * types). `alpha` and `beta` point to one value of the arrays' element type; with *beta == 0 dst's
 * old values are not read.
 * Every rank passes the same scalars, or every rank fails. */
hpf_status hpf_array_transform(hpf_array dst, const hpf_triplet* dst_section, hpf_array src,
                               const hpf_triplet* src_section, const int32_t* perm, const void* alpha,
                               const void* beta, int conjugate);
/** Collective: target := source with its dimensions permuted, target(i) = source(j) with
 * j[perm[d]] = i[d]; perm NULL reverses the dimensions (TRANSPOSE for rank 2). `target` is another
 * array of the same type and rank, with any distribution, whose extent d is the source's extent
 * perm[d]. */
hpf_status hpf_array_transpose(hpf_array source, const int32_t* perm, hpf_array target);

/* ---- Owner-computes loops (docs/capi.md) ---- */
/** Not collective: the elements of the section `*range` (0-based, any non-zero stride; indices
 * outside [0, extent) are dropped) along dimension `dim` (0-based) that the calling rank owns, as
 * runs: run k holds the global indices first[k], first[k] + s, ..., last[k] (s = |stride|, ascending:
 * a negative stride gives the same elements, in increasing order), stored at the storage slots
 * slot[k], slot[k] + s, ... along the dimension (offsets into the storage hpf_array_local returns,
 * shadow slots skipped). A compiler's owner-computes loop is one DO loop per run and dimension, with
 * no call per element: run k is the part of the section in the k-th local block it meets, so its
 * indices follow from the block-cyclic map in closed form (BLOCK, `*` and GEN_BLOCK: one block;
 * CYCLIC(r): blocks of r; INDIRECT: one element per block), and two arrays of the same distribution get
 * matching runs whatever their shadow widths. *count receives the number of runs; at most `capacity` are written (none
 * when capacity is 0, and first, last and slot may then be NULL): when *count > capacity, call again
 * with room for *count. A rank that stores nothing of the array gets no runs. */
hpf_status hpf_array_dim_runs(hpf_array array, int dim, const hpf_triplet* range, int64_t capacity,
                              int64_t* count, int64_t* first, int64_t* last, int64_t* slot);

/* ---- TEMPLATE and ALIGN (docs/align.md) ----
 * An hpf_template is an index space with a distribution and no storage: HPF's TEMPLATE, or the
 * current layout of an array (hpf_template_of_array), as the base of an alignment. An array aligned
 * with it has, per dimension j, an hpf_align_dim: element i (0-based) sits where element
 * stride * i + offset of base dimension base_dim (0-based) sits, so it has exactly that element's
 * owners; base_dim = HPF_ALIGN_COLLAPSED holds dimension j whole. A base dimension that no entry
 * names is replicated over (base_index[k] = HPF_ALIGN_REPLICATED: every grid coordinate along it
 * holds a copy; a reduction counts each element once) or fixed at base index base_index[k] (only the
 * processes owning that index hold elements). base_index has one entry per base dimension (entries of
 * named dimensions are ignored); NULL replicates over every unnamed one. */
/** A template (an index space with a distribution and no storage): an opaque handle. */
typedef struct hpf_template_s* hpf_template;
/** The alignment of one dimension of an aligned array (see above). */
typedef struct hpf_align_dim {
  int32_t base_dim; /**< 0-based base dimension, or HPF_ALIGN_COLLAPSED */
  int64_t stride;   /**< != 0 */
  int64_t offset;   /**< base index of element 0 */
} hpf_align_dim;
/** hpf_align_dim::base_dim of a dimension held whole. */
#define HPF_ALIGN_COLLAPSED (-1)
/** base_index entry of a base dimension replicated over. */
#define HPF_ALIGN_REPLICATED (-1)

/** Collective over the grid's parent communicator (the ranks agree on the arguments and fail
 * together): a template of `rank` (1..4) dimensions, distributed like hpf_array_create's arrays. */
hpf_status hpf_template_create(int rank, const int64_t* extents, const hpf_dist* dists, hpf_grid grid,
                               hpf_template* tmpl);
/** The current layout of `array` as a template (a copy: a later REDISTRIBUTE of the array leaves it as
 * it is; take a new one then). Not collective. */
hpf_status hpf_template_of_array(hpf_array array, hpf_template* tmpl);
/** Collective like hpf_template_create: the template takes new distributions over `grid` (HPF
 * REDISTRIBUTE of a DYNAMIC template). Arrays aligned with it keep their layout until
 * hpf_array_realign moves them (the REALIGN that carries them along). */
hpf_status hpf_template_redistribute(hpf_template tmpl, const hpf_dist* dists, hpf_grid grid);
/** The template's rank and extents (`extents` has room for 4). */
hpf_status hpf_template_extents(hpf_template tmpl, int* rank, int64_t* extents);
/** Frees a template (arrays aligned with it keep their layout) and sets the handle to NULL. */
hpf_status hpf_template_free(hpf_template* tmpl);

/** Collective like hpf_array_create: an array of `rank` dimensions with `extents`, aligned with `base`
 * by `dims` (rank entries) and `base_index` (one per base dimension, or NULL), zeroed. An alignment
 * that maps outside the base, a base dimension named twice or out of range, and a stride of 0 fail
 * on every rank with the entry named. */
hpf_status hpf_array_create_aligned(const char* label, int32_t type /* an hpf_type */, int rank,
                                    const int64_t* extents, hpf_template base, const hpf_align_dim* dims,
                                    const int64_t* base_index, hpf_array* array);
/** Collective: HPF REALIGN. The array keeps its extents and data and takes the layout of its
 * alignment with `base` (any template on a grid with the same parent communicator). */
hpf_status hpf_array_realign(hpf_array array, hpf_template base, const hpf_align_dim* dims,
                             const int64_t* base_index, int32_t strategy /* an hpf_strategy */);

#ifdef __cplusplus
}
#endif

#endif /* HPFRT_H */
