// hpf::lower_hpf: lowers an HPF program (Fortran in fixed or free form, with HPF directive lines;
// the source reading is in fortran_source.hpp) to free-form Fortran that calls the hpfrt module
// (compiler-support/fortran/hpfrt.f90). Pure text to text: no MPI, and no I/O of its own (INCLUDE
// files are read through LowerOptions::include).
//
// The subset it accepts, and what each piece becomes:
//
//   | HPF                                              | lowered to                                       |
//   |--------------------------------------------------|--------------------------------------------------|
//   | !HPF$ PROCESSORS p(e1, ...)                      | hpf_grid_create_world (NUMBER_OF_PROCESSORS()   |
//   |                                                  | is the number of MPI ranks)                      |
//   | !HPF$ DISTRIBUTE a(BLOCK|CYCLIC[(r)]|*, ...)     | hpf_array_create + the local block as a pointer  |
//   |   [ONTO p]; also DISTRIBUTE (...) [ONTO p] :: a,b|                                                  |
//   |   GEN_BLOCK(sizes), INDIRECT(map) (integer arrays| hpf_gen_block / hpf_indirect on a C-kind copy of |
//   |   of the program; map holds processor indices    | the table made just before the call (map - 1)    |
//   |   from 1)                                        |                                                  |
//   | USE hpf_serial                                   | dropped: gives a serial compile                  |
//   |                                                  | NUMBER_OF_PROCESSORS() (= 1), which is lowered   |
//   |                                                  | to the number of ranks                           |
//   | !HPF$ TEMPLATE t(bounds), ... + DISTRIBUTE t(...)| hpf_template_create (t__t)                        |
//   | !HPF$ ALIGN a(i, j) WITH base(s1, ...), also     | hpf_array_create_aligned; base is a TEMPLATE or a|
//   |   ALIGN (i, j) WITH base(...) :: a, b; each sk is| distributed array (its layout, hpf_template_of_  |
//   |   '*' (replicated), an expression without dummy | array). s, o are evaluated at run time from sk at |
//   |   (fixed) or s*i + o in one dummy                | i = 0, 1; i = 2 checks that sk is affine         |
//   | !HPF$ REALIGN a(...) WITH base(...) (DYNAMIC a)  | hpf_array_realign                                |
//   | an external SUBROUTINE / FUNCTION (not PURE or   | lowered as the main program: its mappings made   |
//   |   ELEMENTAL) with its own directives             | on entry, released on every RETURN / END         |
//   | its dummy x with DISTRIBUTE x(...) or x *(...)   | x's own distributed array, filled on entry (not  |
//   |   (prescriptive or descriptive)                  | INTENT(OUT)) and copied back on exit (not        |
//   |                                                  | INTENT(IN)): hpf_array_assign_section from / to  |
//   |                                                  | the handle a CALL passes for a whole distributed |
//   |                                                  | actual (module hpf__calls), else store_owned /   |
//   |                                                  | allgather of the whole actual the caller gathered|
//   | DISTRIBUTE x *(...) and a handle passed          | the actual checked slot by slot against the      |
//   |   (descriptive)                                  | described layout (error stop), then used as x    |
//   | DISTRIBUTE x *, INHERIT x (transcriptive)        | x stays the whole actual                         |
//   | a DISTRIBUTEd member of COMMON /b/               | handles in module hpf__common_b; the main        |
//   |                                                  | program creates them, every unit checks the map  |
//   | a DISTRIBUTEd variable of a MODULE m             | public module variables, hpf__init_m / free_m    |
//   |                                                  | called by the main program; USE m sees them      |
//   | !HPF$ REDISTRIBUTE t(...) of a TEMPLATE or of an | hpf_template_redistribute / hpf_array_redistrib- |
//   |   array other arrays are aligned with            | ute, then hpf_array_realign of every array whose |
//   |                                                  | current base it is, and so on down               |
//   | !HPF$ SHADOW a(w1, ...)                          | hpf_array_create_shadow (any distribution)       |
//   | !HPF$ DYNAMIC a, b                               | allows REDISTRIBUTE of a, b                      |
//   | !HPF$ REDISTRIBUTE a(...) [ONTO p] (or :: form)  | hpf_array_redistribute (data preserved)          |
//   | !HPF$ INDEPENDENT                                | kept as a comment (an assertion, no code)        |
//   | FORALL (i = l:u[:s], j = ...) a(i, j) = expr     | owner computes: per dimension, a DO loop over the|
//   |                                                  | runs of owned indices (hpf_owner_runs, closed    |
//   |                                                  | form), then a DO loop over the run, the storage  |
//   |                                                  | a rank-N pointer a__p(i + offset, ...)           |
//   |   expr reading b(i + c1, j + c2), c literals     | hpf_array_update_shadow of b, then the loop      |
//   |                                                  | reads b's slots (a copy when b is a)             |
//   | b = CSHIFT(a, s [, dim]) / EOSHIFT(a, s [, bd]   | hpf_cshift / hpf_eoshift                         |
//   |   [, dim])                                       |                                                  |
//   | b(l:h:s, k, ...) = a(l:h:s, ...), b = a          | hpf_array_assign_section (any two distributions, |
//   |   (triplets with omitted bounds, scalars)        | overlapping sections of one array allowed)       |
//   | b = TRANSPOSE(a)                                 | hpf_array_transpose                              |
//   | a = expr                                         | hpf_array_fill                                   |
//   | x = SUM(a) / MINVAL(a) / MAXVAL(a)               | hpf_array_sum / min / max (collective)           |
//   | PRINT / WRITE (no distributed array in it)       | the same, on rank 0 only                         |
//   | READ                                             | on rank 0, then what it read broadcast as bytes  |
//   | a DO nest (INDEPENDENT or not, any steps) whose  | the equivalent FORALL, owner-computed; the loop  |
//   |   body is one                                    |                                                  |
//   |   a(i, j) = expr at the loop variables, reading  | variables get the values the loops leave         |
//   |   a only at a(i, j)                              |                                                  |
//   | any other statement or construct that uses       | on every rank over replicated copies: gathered   |
//   |   distributed arrays (element reads and writes,  | (hpf_array_allgather), run as written, written   |
//   |   PRINT of sections, array expressions, WHERE,   | back (hpf_array_store_owned); the largest        |
//   |   reductions of expressions, DO loops with       | construct without owner-computes statements runs |
//   |   dependences, x(idx(i)), ...)                   | so as a whole                                    |
//
// A GEN_BLOCK or INDIRECT table in a DISTRIBUTE is read at the set-up, where the specification part
// ends, so it must be a constant there (a PARAMETER array): HPF asks for a specification expression.
// A table computed at run time (from NUMBER_OF_PROCESSORS(), say) goes to a REDISTRIBUTE of a DYNAMIC
// array, which reads it where the directive stands.
//
// Distributed arrays are declared `type :: a(bounds)` with type REAL(8) / DOUBLE PRECISION, REAL(4) /
// REAL, INTEGER(4) / INTEGER, INTEGER(8), LOGICAL, COMPLEX(8) / DOUBLE COMPLEX or COMPLEX(4) /
// COMPLEX. An owner-computed FORALL assigns with its indices as the subscripts and reads distributed
// arrays aligned with the assigned one only at constant offsets of those indices, within their
// SHADOW widths (docs/lower.md); other FORALLs run on replicated copies. A READ's END=, ERR= and
// EOR= become an IOSTAT= that rank 0 broadcasts, and the branch taken on every rank.
// What cannot be lowered either way (a CHARACTER distributed array, a branch out of a replicated run
// that assigns, ...) is rejected with an hpf::Error naming the line, so a lowered program never
// silently computes something else than the serial program (whose directives are comments).
#pragma once

#include "fortran_source.hpp"

#include <optional>
#include <string>

namespace hpf {

/// How lower_hpf reads its input.
struct LowerOptions {
  /// Fixed or free form; nullopt: from the file name (source_form_of). The output is free form.
  std::optional<SourceForm> form;
  /// Reads INCLUDE files (paths relative to the including file's directory are joined to it); none:
  /// an INCLUDE line is an error.
  IncludeReader include;
};

/// Lowers `source` (the whole file) and returns the Fortran (free form) to compile against the hpfrt
/// module. `file` names the input in error messages. Throws hpf::Error ("file:line: ...") on input
/// outside the subset above.
std::string lower_hpf(const std::string& source, const std::string& file = "<input>",
                      const LowerOptions& options = {});

} // namespace hpf
