// hpf::lower_hpf: what each directive and statement of the subset becomes, and that everything
// outside the subset is rejected with the file, the line and the reason.
#include <hpf/core/error.hpp>
#include <hpf_lower.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace {

using hpf::lower_hpf;

std::string program(const std::string& spec, const std::string& body) {
  return "program t\n  implicit none\n" + spec + body + "end program t\n";
}

const std::string kSpec = "  integer :: i, j\n  real(8) :: s\n  real(8) :: a(100), b(0:9, 5)\n"
                          "!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())\n"
                          "!HPF$ DISTRIBUTE a(CYCLIC(3)) ONTO p\n"
                          "!HPF$ DISTRIBUTE (BLOCK, *) ONTO p :: b\n"
                          "!HPF$ DYNAMIC a\n";

/// `text` with the continuation breaks of wrapped statements (" &\n" and the indent) joined back.
std::string unwrapped(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 3, " &\n") == 0) {
      i += 3;
      while (i < text.size() && text[i] == ' ') ++i;
      out += ' ';
      --i;
      continue;
    }
    out += text[i];
  }
  return out;
}

bool contains(const std::string& text, const std::string& needle) {
  return unwrapped(text).find(needle) != std::string::npos;
}

/// Expects lowering to fail with a message containing every needle.
void expect_rejected(const std::string& src, std::initializer_list<std::string> needles) {
  try {
    (void)lower_hpf(src, "t.f90");
    ADD_FAILURE() << "accepted:\n" << src;
  } catch (const hpf::Error& e) {
    for (const auto& n : needles)
      EXPECT_TRUE(contains(e.what(), n)) << "'" << e.what() << "' lacks '" << n << "'";
  }
}

/// Expects the statement to be lowered to a run on replicated copies (it is correct, but no owner
/// computes it), with the reason the owner-computes lowering declined (every needle) in a comment.
void expect_replicated(const std::string& src, std::initializer_list<std::string> needles) {
  std::string out;
  try {
    out = lower_hpf(src, "t.f90");
  } catch (const hpf::Error& e) {
    ADD_FAILURE() << "rejected: " << e.what() << "\n" << src;
    return;
  }
  // The reason's comment, joined back into one line.
  std::string joined;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 6, "\n  !  ") == 0) {
      joined += ' ';
      i += 5;
      continue;
    }
    joined += out[i];
  }
  EXPECT_TRUE(contains(joined, "on every rank over replicated copies")) << joined;
  for (const auto& n : needles)
    if (n.find("t.f90:") != 0) {
      EXPECT_TRUE(contains(joined, n)) << "lacks '" << n << "':\n" << joined;
    }
}

TEST(Lower, DirectivesBecomeRuntimeCalls) {
  const std::string out = lower_hpf(program(kSpec, "  a = 0.0d0\n  s = sum(a)\n  print *, s\n"), "t.f90");
  EXPECT_TRUE(contains(out, "use hpfrt"));
  EXPECT_TRUE(contains(out, "hpf_grid_create_fitted(1, [int(hpf__size, c_int)], p__g)"));
  EXPECT_TRUE(contains(out, "hpf_array_create('a', HPF_FLOAT64, 1, [int((100) - (1) + 1, c_int64_t)]"));
  EXPECT_TRUE(contains(out, "[hpf_cyclic(int(3))], p__g, a__h)"));
  EXPECT_TRUE(contains(out, "int((9) - (0) + 1, c_int64_t)"));
  EXPECT_TRUE(contains(out, "[hpf_block(), hpf_collapsed()], p__g, b__h)"));
  EXPECT_TRUE(contains(out, "real(c_double), pointer :: a__l(:)"));
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_array_fill(a__h, c_loc(hpf__t_r8))"));
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_array_sum(a__h, c_loc(hpf__t_r8))"));
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0) then\n  print *, s\n"));
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_finalize(), 'hpf_finalize')\nend program t"));
  // The distributed declarations are gone, the others stay.
  EXPECT_TRUE(contains(out, "! real(8) :: a(100), b(0:9, 5)   (distributed"));
  EXPECT_TRUE(contains(out, "  real(8) :: s\n"));
}

TEST(Lower, ComplexArraysTakeTheComplexElementTypes) {
  // Each spelling of a COMPLEX kind, a named kind constant included, and the local block's type.
  const std::string out =
      lower_hpf(program("  integer, parameter :: dp = kind(1.0d0), sp = 4\n"
                        "  complex(kind=dp) :: a(10)\n  double complex :: b(10)\n"
                        "  complex*16 :: c(10)\n  complex(sp) :: d(10)\n  complex :: e(10)\n"
                        "!HPF$ DISTRIBUTE (BLOCK) :: a, b, c, d, e\n",
                        "  a = (1.0d0, -2.0d0)\n  b = conjg(a) * 2\n"),
                "t.f90");
  for (const char* n : {"a", "b", "c"}) {
    EXPECT_TRUE(contains(out, std::string("hpf_array_create('") + n + "', HPF_COMPLEX128, 1")) << n;
    EXPECT_TRUE(contains(out, std::string("complex(c_double_complex), pointer :: ") + n + "__l(:)")) << n;
  }
  for (const char* n : {"d", "e"}) {
    EXPECT_TRUE(contains(out, std::string("hpf_array_create('") + n + "', HPF_COMPLEX64, 1")) << n;
    EXPECT_TRUE(contains(out, std::string("complex(c_float_complex), pointer :: ") + n + "__l(:)")) << n;
  }
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_array_fill(a__h, c_loc(hpf__t_c8))"));
  // CONJG is elemental: the whole-array assignment is owner-computed.
  EXPECT_TRUE(contains(out, "b(hpf__j1) = conjg(a(hpf__j1)) * 2   (line")) << out;
}

TEST(Lower, ForallIsAnOwnerComputesLoopOverTheLocalBlock) {
  const std::string out =
      lower_hpf(program(kSpec, "  forall (j = 1:5, i = 0:9) b(i, j) = dble(i + 10 * j)\n"), "t.f90");
  // The range of each dimension, clipped to the bounds, then the runs each rank owns of it.
  const std::string u = unwrapped(out);
  EXPECT_TRUE(contains(u, "call hpf_visited(int(0, c_int64_t), int(9, c_int64_t), hpf__v(3, 1), "
                          "int(0, c_int64_t), int(9, c_int64_t), hpf__v(1, 1), hpf__v(2, 1))"))
      << out;
  EXPECT_TRUE(contains(u, "call hpf_owner_runs(b__h, 2, hpf__v(1, 2), hpf__v(2, 2), abs(hpf__v(3, 2)), "
                          "int(1, c_int64_t), b__u(2), 'FORALL (line 10)')"));
  // One DO loop over the runs and one over the indices of a run per dimension, dimension 1 innermost,
  // with unit stride there; no runtime call per element.
  EXPECT_TRUE(contains(out, "do hpf__b2 = 1, b__u(2)%n\n    hpf__o2 = b__u(2)%offset(hpf__b2)\n"
                            "    do hpf__i2 = b__u(2)%first(hpf__b2), b__u(2)%last(hpf__b2), b__u(2)%stride\n"
                            "      do hpf__b1 = 1, b__u(1)%n\n"))
      << out;
  EXPECT_TRUE(contains(out, "do hpf__i1 = b__u(1)%first(hpf__b1), b__u(1)%last(hpf__b1)\n"));
  EXPECT_TRUE(contains(out, "b__p(hpf__i1 + hpf__o1, hpf__i2 + hpf__o2) = dble(hpf__i1 + 10 * hpf__i2)"));
  EXPECT_FALSE(contains(out, "hpf_array_global_index"));
  EXPECT_FALSE(contains(out, "hpf_array_slot"));
  // The storage is a rank-2 array over the flat local block.
  EXPECT_TRUE(
      contains(out, "real(c_double), pointer, contiguous :: b__p(:, :) => null(), b__q(:, :) => null()"));
  EXPECT_TRUE(contains(out, "b__p(1:b__e(1), 1:b__e(2)) => b__l"));
}

TEST(Lower, StridedForallsAndDoNestsKeepTheirStride) {
  const std::string out = lower_hpf(program(kSpec, "  forall (i = 100:2:-7) a(i) = 1\n"
                                                   "  do j = 5, 1, -2\n    do i = 0, 9, 4\n"
                                                   "      b(i, j) = i\n    end do\n  end do\n"),
                                    "t.f90");
  const std::string u = unwrapped(out);
  // The stride goes to hpf_visited with its sign; the runs ascend with its absolute value, and the
  // innermost loop of a literal stride other than 1 keeps it.
  EXPECT_TRUE(contains(u, "hpf__v(3, 1) = int(-7, c_int64_t)\n  call hpf_visited(int(100, c_int64_t), "
                          "int(2, c_int64_t), hpf__v(3, 1),"))
      << out;
  EXPECT_TRUE(contains(out, "do hpf__i1 = a__u(1)%first(hpf__b1), a__u(1)%last(hpf__b1), a__u(1)%stride\n"));
  // The DO nest is the strided FORALL, then its variables get the values the loops leave.
  EXPECT_TRUE(contains(out, "! forall (j = 1:5:-2, i = 0:9:4) b(i, j) = i") ||
              contains(out, "! forall (j = 5:1:-2, i = 0:9:4) b(i, j) = i"))
      << out;
  EXPECT_TRUE(contains(u,
                       "if (hpf_do_trips(int(5, c_int64_t), int(1, c_int64_t), int(-2, c_int64_t)) > 0) j = "
                       "int((5) + hpf_do_trips(int(5, c_int64_t), int(1, c_int64_t), int(-2, c_int64_t)) * "
                       "(-2), kind(j))"))
      << out;
  EXPECT_TRUE(
      contains(u, "if (hpf_do_trips(int(5, c_int64_t), int(1, c_int64_t), int(-2, c_int64_t)) > 0) then\n"
                  "  i = 0\n"));
  // A stride of 0 is an error of the program.
  expect_rejected(program(kSpec, "  forall (i = 1:10:0) a(i) = 1\n"), {"t.f90:10:", "has stride 0"});
}

TEST(Lower, RedistributeRebindsTheLocalBlock) {
  const std::string out =
      lower_hpf(program(kSpec, "!HPF$ REDISTRIBUTE a(BLOCK)\n  s = maxval(a)\n"), "t.f90");
  EXPECT_TRUE(contains(out, "hpf_array_redistribute(a__h, [hpf_block()], p__g, HPF_STRATEGY_AUTO)"));
  const auto at = out.find("hpf_array_redistribute");
  EXPECT_NE(out.find("call hpf_check(hpf_array_local(a__h, hpf__p, hpf__ext)", at), std::string::npos);
  EXPECT_TRUE(contains(out, "hpf_array_max(a__h"));
}

TEST(Lower, ContinuationsCommentsAndStringsAreHandled) {
  const std::string src = program("  integer :: i\n  real(8) :: x(10), &\n             y\n"
                                  "!HPF$ DISTRIBUTE x(BLOCK)   ! no ONTO: the default 1-D grid\n",
                                  "  ! x is mentioned in a comment only\n  forall (i = 1:10) &\n"
                                  "    x(i) = 1.0d0   ! trailing x\n  print *, 'x and y'\n");
  const std::string out = lower_hpf(src, "t.f90");
  EXPECT_TRUE(contains(out, "hpf_grid_create_world(1, [hpf__size], hpf__world_g)"));
  EXPECT_TRUE(contains(out, "real(8) :: y\n"));
  EXPECT_TRUE(contains(out, "x__p(hpf__i1 + hpf__o1) = 1.0d0"));
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0) then\n  print *, 'x and y'\n"));
}

TEST(Lower, TheShippedExampleLowers) {
  std::ifstream in(HPF_EXAMPLES_DIR "/heat.f90");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string out = lower_hpf(ss.str(), "heat.f90");
  EXPECT_TRUE(contains(out, "hpf_array_create('counts', HPF_INT64"));
  // The heat equation: SHADOW, stencil FORALLs (in place through a copy, 2-D with corners), CSHIFT, EOSHIFT.
  EXPECT_TRUE(contains(out, "hpf_array_create_shadow('u', HPF_FLOAT64"));
  EXPECT_TRUE(contains(out, "hpf_array_create_shadow('w', HPF_FLOAT64"));
  EXPECT_TRUE(contains(out, "hpf_array_update_shadow(u__h, HPF_BOUNDARY_PLAIN)"));
  EXPECT_TRUE(contains(out, "hpf_array_update_shadow(w__h, HPF_BOUNDARY_PLAIN)"));
  EXPECT_TRUE(contains(out, "hpf__c_r8(:) = u__l(1:u__n)"));
  EXPECT_TRUE(contains(out, "hpf_cshift(ring__h, int(-1, c_int64_t), int(1, c_int) - 1, left__h)"));
  EXPECT_TRUE(
      contains(out, "hpf_eoshift(ring__h, int(5, c_int64_t), int(1, c_int) - 1, c_loc(hpf__t_r8), edge__h)"));
}

TEST(Lower, OutsideTheSubsetIsRejectedWithLineAndReason) {
  expect_rejected("subroutine s\nend subroutine s\n", {"t.f90:1:", "only a main program"});
  expect_rejected(program(kSpec + "!HPF$ INHERIT a\n", ""), {"t.f90:10:", "unsupported directive"});
  expect_rejected(program(kSpec + "!HPF$ ALIGN a(i) WITH b(i, 1)\n", ""),
                  {"t.f90:10:", "ALIGN a: 'a' is also DISTRIBUTEd (line 7)"});
  expect_rejected(program(kSpec + "!HPF$ DISTRIBUTE c(BLOCK) ONTO p\n", ""), {"'c' has no declaration"});
  expect_rejected(program(kSpec + "!HPF$ DISTRIBUTE a(BLOCK) ONTO p\n", ""), {"distributed twice"});
  expect_rejected(program(kSpec, "!HPF$ REDISTRIBUTE b(BLOCK, *)\n"),
                  {"t.f90:10:", "not declared !HPF$ DYNAMIC"});
  expect_rejected(program(kSpec, "!HPF$ REDISTRIBUTE a(BLOCK, BLOCK)\n"),
                  {"2 distributions for 1 dimension"});
  expect_rejected(program(kSpec, "!HPF$ REDISTRIBUTE a(BLOCK) ONTO q\n"), {"no PROCESSORS q"});
  // What the owner-computes lowerings decline runs on replicated copies, with their reason in a comment.
  expect_replicated(program(kSpec, "  print *, a(1)\n"), {"if (hpf__rank == 0) print *, a__r(1)"});
  expect_replicated(program(kSpec, "  s = sum(a) + 1\n"), {"'a'"});
  expect_replicated(program(kSpec, "  forall (i = 1:100, a(i) > 0) a(i) = 1\n"), {"no mask"});
  expect_replicated(program(kSpec, "  forall (i = 1:99) a(i) = a(i + 1) + 1\n"),
                    {"'a(i + 1)' reads past the shadow of 'a': it needs !HPF$ SHADOW a(1)"});
  expect_replicated(program(kSpec, "  forall (i = 1:10) b(i, 1) = 1\n"), {"not a distinct FORALL index"});
  expect_replicated(program(kSpec, "  a = b(1, 1)\n"), {"references a distributed array"});
  expect_rejected(program("  real(8), allocatable :: z(:)\n!HPF$ DISTRIBUTE z(BLOCK)\n", ""),
                  {"without attributes"});
  expect_rejected(program("  character :: z(10)\n!HPF$ DISTRIBUTE z(BLOCK)\n", ""),
                  {"t.f90:3:", "CHARACTER distributed arrays are not lowered yet"});
  expect_rejected(
      program("  integer, parameter :: qp = 16\n  complex(qp) :: z(10)\n!HPF$ DISTRIBUTE z(BLOCK)\n", ""),
      {"t.f90:4:", "has type 'complex(qp)'", "COMPLEX(8), DOUBLE COMPLEX"});
  expect_rejected(program("  real(8) :: z(10)\n!HPF$ DISTRIBUTE z(CYCLIC(2)) ONTO nowhere\n", ""),
                  {"no PROCESSORS nowhere"});
  expect_rejected(
      program("  real(8) :: z(10, 10)\n!HPF$ PROCESSORS p(2)\n!HPF$ DISTRIBUTE z(BLOCK, BLOCK) ONTO p\n", ""),
      {"2 distributed dimension(s) but the processors p have 1"});
  expect_rejected(program("  real(8) :: z(10)\n!HPF$ DISTRIBUTE z(BLOCK(0))\n", ""),
                  {"BLOCK(0)", "must be in [1, 2147483647]"});
}

const std::string kShadowSpec = "  integer :: i, j\n  real(8) :: u(100), v(100), w(0:9, 8), x(0:9, 8)\n"
                                "!HPF$ PROCESSORS p(NUMBER_OF_PROCESSORS())\n"
                                "!HPF$ PROCESSORS q(2, NUMBER_OF_PROCESSORS() / 2)\n"
                                "!HPF$ DISTRIBUTE (BLOCK) ONTO p :: u, v\n"
                                "!HPF$ DISTRIBUTE (BLOCK, BLOCK) ONTO q :: w, x\n"
                                "!HPF$ SHADOW u(1)\n"
                                "!HPF$ SHADOW w(1, 2)\n";

TEST(Lower, ShadowBecomesCreateShadow) {
  const std::string out = lower_hpf(program(kShadowSpec, "  u = 0.0d0\n"), "t.f90");
  EXPECT_TRUE(contains(out, "hpf_array_create_shadow('u', HPF_FLOAT64, 1, [int((100) - (1) + 1, c_int64_t)], "
                            "[hpf_block()], [1_c_int64_t], p__g, u__h)"))
      << out;
  EXPECT_TRUE(contains(out, "[hpf_block(), hpf_block()], [1_c_int64_t, 2_c_int64_t], q__g, w__h)"));
  EXPECT_TRUE(contains(out, "'DISTRIBUTE u (line 7), SHADOW (line 9)'"));
  // Arrays without SHADOW keep hpf_array_create.
  EXPECT_TRUE(contains(out, "hpf_array_create('v', HPF_FLOAT64"));
  EXPECT_TRUE(contains(out, "hpf_array_create('x', HPF_FLOAT64"));
  // Width 0 is allowed, and SHADOW may come before the DISTRIBUTE.
  const std::string zero =
      lower_hpf(program("  real(8) :: z(10)\n!HPF$ SHADOW z(0)\n!HPF$ DISTRIBUTE z(BLOCK)\n", ""), "t.f90");
  EXPECT_TRUE(contains(zero, "[hpf_block()], [0_c_int64_t], hpf__world_g, z__h)"));
}

TEST(Lower, BadShadowIsRejectedWithLineAndReason) {
  const std::string z = "  real(8) :: z(10), y(10, 10), c(10)\n!HPF$ DISTRIBUTE z(BLOCK)\n"
                        "!HPF$ DISTRIBUTE y(BLOCK, *)\n!HPF$ DISTRIBUTE c(CYCLIC(4))\n!HPF$ DYNAMIC z\n";
  expect_rejected(program(z + "!HPF$ SHADOW z(-1)\n", ""), {"t.f90:8:", "width 1 must be in [0,", "got -1"});
  expect_rejected(program(z + "!HPF$ SHADOW z(1, 1)\n", ""), {"t.f90:8:", "2 width(s) for 1 dimension(s)"});
  expect_rejected(program(z + "!HPF$ SHADOW y(1)\n", ""), {"t.f90:8:", "1 width(s) for 2 dimension(s)"});
  expect_rejected(program(z + "  real(8) :: s(10)\n!HPF$ SHADOW s(1)\n", ""),
                  {"t.f90:9:", "'s' is not a distributed array"});
  expect_rejected(program(z + "!HPF$ SHADOW z(k)\n", ""),
                  {"t.f90:8:", "'k'; expected a non-negative integer"});
  expect_rejected(program(z + "!HPF$ SHADOW z(1:2)\n", ""), {"t.f90:8:", "different low and high widths"});
  expect_rejected(program(z + "!HPF$ SHADOW z\n", ""), {"t.f90:8:", "expected 'SHADOW a(w1, ...)'"});
  expect_rejected(program(z + "!HPF$ SHADOW z(1)\n!HPF$ SHADOW z(2)\n", ""),
                  {"t.f90:9:", "second SHADOW (the first is at line 8)"});
  expect_rejected(
      program(z + "!HPF$ SHADOW c(5)\n", ""),
      {"t.f90:8:", "dimension 1, which is CYCLIC(4); expected a width of at most the block size 4"});
  EXPECT_NO_THROW((void)lower_hpf(program(z + "!HPF$ SHADOW c(4)\n", ""), "t.f90"));
  EXPECT_NO_THROW((void)lower_hpf(program(z + "!HPF$ SHADOW c(0)\n", ""), "t.f90"));
  expect_rejected(program(z + "!HPF$ SHADOW z(3)\n", "!HPF$ REDISTRIBUTE z(CYCLIC(2))\n"),
                  {"t.f90:9:", "CYCLIC(2); expected a width of at most the block size 2"});
  EXPECT_NO_THROW(
      (void)lower_hpf(program(z + "!HPF$ SHADOW z(2)\n", "!HPF$ REDISTRIBUTE z(CYCLIC(2))\n"), "t.f90"));
  expect_rejected(program(z, "  z = 1\n!HPF$ SHADOW z(1)\n"),
                  {"t.f90:9:", "must be in the specification part"});
}

TEST(Lower, StencilForallUpdatesTheShadowAndReadsNeighboursFromStorage) {
  const std::string out =
      lower_hpf(program(kShadowSpec, "  forall (i = 2:99) v(i) = u(i - 1) + u(i+1)\n"
                                     "  forall (i = 1:8, j = 2:7) x(i, j) = w(i-1, j + 2) + 2 * w(i, j)\n"
                                     "  forall (i = 1:100) u(i) = dble(i)\n"),
                "t.f90");
  // 1-D: u's shadow is updated, v (no shadow) is assigned, u read at its slots -1 / +1 around v's.
  EXPECT_TRUE(
      contains(out, "call hpf_check(hpf_array_update_shadow(u__h, HPF_BOUNDARY_PLAIN), 'FORALL (line 11)"))
      << out;
  EXPECT_TRUE(
      contains(out, "v__p(hpf__i1 + hpf__o1) = u__p(hpf__i1 + hpf__o1) + u__p(hpf__i1 + hpf__o1 + 2)"));
  EXPECT_TRUE(contains(out, "if (hpf__v(1, 1) <= hpf__v(2, 1) .and. hpf__v(1, 1) + (-1) < (1)) then"));
  EXPECT_TRUE(contains(out, "if (hpf__v(1, 1) <= hpf__v(2, 1) .and. hpf__v(2, 1) + (1) > (100)) then"));
  EXPECT_TRUE(contains(out, "error stop 1"));
  // 2-D: w's subscripts are shifted by its shadow widths (x has none).
  EXPECT_TRUE(contains(out, "update_shadow(w__h, HPF_BOUNDARY_PLAIN)"));
  EXPECT_TRUE(contains(unwrapped(out), "x__p(hpf__i1 + hpf__o1, hpf__i2 + hpf__o2) = w__p(hpf__i1 + hpf__o1, "
                                       "hpf__i2 + hpf__o2 + 4) + 2 * w__p(hpf__i1 + hpf__o1 + 1, hpf__i2 + "
                                       "hpf__o2 + 2)"))
      << out;
  // Assigning an array with a SHADOW: the runs skip the shadow slots, and nothing is updated.
  const auto last = out.find("! forall (i = 1:100) u(i) = dble(i)");
  ASSERT_NE(last, std::string::npos);
  EXPECT_NE(out.find("call hpf_owner_runs(u__h, 1,", last), std::string::npos);
  EXPECT_EQ(out.find("update_shadow", last), std::string::npos);
  EXPECT_NE(out.find("u__p(hpf__i1 + hpf__o1) = dble(hpf__i1)", last), std::string::npos);
  // The storage extents are kept with every local block.
  EXPECT_TRUE(contains(out, "u__e = hpf__ext"));
}

TEST(Lower, StencilForallIntoItselfReadsACopy) {
  const std::string out =
      lower_hpf(program(kShadowSpec, "  forall (i = 2:99) u(i) = u(i-1) + u(i) + u(i + 1)\n"
                                     "  forall (i = 1:100) u(i) = 2 * u(i)\n"),
                "t.f90");
  const auto first = out.find("update_shadow(u__h");
  const auto copy = out.find("hpf__c_r8(:) = u__l(1:u__n)\n    u__q(1:u__e(1)) => hpf__c_r8");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(copy, std::string::npos);
  EXPECT_LT(first, copy) << "the copy is taken after the shadow update";
  EXPECT_TRUE(contains(unwrapped(out), "u__p(hpf__i1 + hpf__o1) = u__q(hpf__i1 + hpf__o1 - 1) + "
                                       "u__q(hpf__i1 + hpf__o1) + u__q(hpf__i1 + hpf__o1 + 1)"));
  // Reading only its own element needs neither a copy nor a shadow update.
  const auto second = out.find("! forall (i = 1:100) u(i) = 2 * u(i)");
  ASSERT_NE(second, std::string::npos);
  EXPECT_EQ(out.find("hpf__c_r8(:) = u__l", second), std::string::npos);
  EXPECT_EQ(out.find("update_shadow", second), std::string::npos);
  EXPECT_NE(out.find("u__p(hpf__i1 + hpf__o1) = 2 * u__p(hpf__i1 + hpf__o1)", second), std::string::npos);
}

TEST(Lower, StencilAlongACollapsedDimensionNeedsNoShadow) {
  const std::string out = lower_hpf(
      program("  integer :: i, j\n  real(8) :: b(10, 6), c(10, 6)\n!HPF$ DISTRIBUTE (*, BLOCK) :: b, c\n",
              "  forall (i = 2:10, j = 1:6) c(i, j) = b(i - 1, j)\n"),
      "t.f90");
  EXPECT_EQ(out.find("update_shadow"), std::string::npos);
  EXPECT_TRUE(
      contains(unwrapped(out),
               "c__p(hpf__i1 + hpf__o1, hpf__i2 + hpf__o2) = b__p(hpf__i1 + hpf__o1 - 1, hpf__i2 + hpf__o2)"))
      << out;
}

TEST(Lower, BadStencilForallIsRejectedWithLineAndReason) {
  const std::string body = "  forall (i = 2:99) v(i) = ";
  expect_replicated(program(kShadowSpec, body + "u(i - 2)\n"),
                    {"'u(i - 2)' reads past the shadow of 'u': it needs !HPF$ SHADOW u(2)",
                     "(declared: SHADOW u(1) at line 9)"});
  expect_replicated(program(kShadowSpec, body + "v(i - 1)\n"),
                    {"needs !HPF$ SHADOW v(1) (declared: no SHADOW)"});
  expect_replicated(program(kShadowSpec, "  forall (i = 1:8, j = 1:7) x(i, j) = w(i + 2, j) + w(i+1, j-1)\n"),
                    {"'w(i + 2, j)'", "needs !HPF$ SHADOW w(2, 2)"});
  expect_replicated(program(kShadowSpec, "  forall (i = 1:8, j = 1:7) x(i, j) = w(i, j + 3)\n"),
                    {"needs !HPF$ SHADOW w(1, 3) (declared: SHADOW w(1, 2) at line 10)"});
  expect_replicated(program(kShadowSpec, body + "u(2 * i)\n"), {"subscript 1 of 'u(2 * i)' is not 'i'"});
  expect_replicated(program(kShadowSpec, body + "u(i * 2)\n"), {"subscript 1 of 'u(i * 2)'"});
  expect_replicated(program(kShadowSpec, body + "u(k + 1)\n"), {"subscript 1 of 'u(k + 1)'"});
  expect_replicated(program(kShadowSpec, "  forall (i = 1:8, j = 1:7) x(i, j) = w(j, i)\n"),
                    {"subscript 1 of 'w(j, i)' is not 'i'"});
  expect_replicated(program(kShadowSpec, body + "sum(u)\n"),
                    {"'u' on the right-hand side of a FORALL must be subscripted"});
  expect_replicated(program(kShadowSpec, "  forall (i = 1:8, j = 1:5) x(i, j) = u(i)\n"),
                    {"'u(i)' has 1 subscript(s); the assigned array has 2"});
  expect_replicated(program(kShadowSpec, "  forall (i = 1:8) u(i) = w(i, 1)\n"),
                    {"'w(i, 1)' has 2 subscript(s)"});
  // Arrays the loop cannot read alongside the assigned one.
  const std::string mixed = "  integer :: i\n  real(8) :: p(10), q(10), r(0:9), s(10)\n"
                            "!HPF$ DISTRIBUTE (BLOCK) :: p, r\n!HPF$ DISTRIBUTE q(CYCLIC)\n"
                            "!HPF$ DISTRIBUTE s(BLOCK)\n!HPF$ DYNAMIC s\n";
  expect_replicated(program(mixed, "  forall (i = 1:10) p(i) = q(i)\n"),
                    {"reads 'q(i)'", "not distributed like 'p'"});
  expect_replicated(program(mixed, "  forall (i = 1:9) p(i) = r(i)\n"),
                    {"bounds differ from those of 'p' in dimension 1"});
  expect_replicated(program(mixed, "  forall (i = 1:10) p(i) = s(i)\n"), {"'s' is DYNAMIC"});
  expect_replicated(program(mixed, "  forall (i = 2:10) q(i) = q(i - 1)\n"), {"it needs !HPF$ SHADOW q(1)"});
  // A DYNAMIC array may read itself (its layout is its own whatever REDISTRIBUTE did).
  EXPECT_NO_THROW((void)lower_hpf(program(mixed, "  forall (i = 1:10) s(i) = s(i) + 1\n"), "t.f90"));
}

const std::string kShiftSpec = "  integer :: k\n  real(8) :: a(20), b(20), c(0:4, 6), d(0:4, 6)\n"
                               "  real(8) :: e(20), f(21), h(20)\n  integer :: g(20)\n"
                               "!HPF$ DISTRIBUTE (BLOCK) :: a, b, e, f, g\n"
                               "!HPF$ DISTRIBUTE (*, BLOCK) :: c, d\n!HPF$ DISTRIBUTE h(CYCLIC(2))\n"
                               "!HPF$ SHADOW e(1)\n";

TEST(Lower, CshiftAndEoshiftBecomeRuntimeShifts) {
  const std::string out =
      lower_hpf(program(kShiftSpec, "  b = CSHIFT(a, 3, 1)\n"
                                    "  b = cshift(a, shift = -k)\n"
                                    "  d = CSHIFT(c, 1, DIM=2)\n"
                                    "  b = EOSHIFT(a, 2)\n"
                                    "  b = eoshift(a, -1, 2.5d0 * k, 1)\n"
                                    "  d = EOSHIFT(c, dim = 1, shift = 1, boundary = -1d0)\n"),
                "t.f90");
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_cshift(a__h, int(3, c_int64_t), int(1, c_int) - 1, b__h), "
                            "'CSHIFT (line 11)')"))
      << out;
  EXPECT_TRUE(contains(out, "hpf_cshift(a__h, int(-k, c_int64_t), int(1, c_int) - 1, b__h)"));
  EXPECT_TRUE(contains(out, "hpf_cshift(c__h, int(1, c_int64_t), int(2, c_int) - 1, d__h)"));
  EXPECT_TRUE(contains(out, "hpf_eoshift(a__h, int(2, c_int64_t), int(1, c_int) - 1, c_null_ptr, b__h), "
                            "'EOSHIFT (line 14)')"));
  EXPECT_TRUE(contains(out, "  hpf__t_r8 = 2.5d0 * k\n  call hpf_check(hpf_eoshift(a__h, int(-1, c_int64_t), "
                            "int(1, c_int) - 1, c_loc(hpf__t_r8), b__h)"));
  EXPECT_TRUE(contains(out, "hpf__t_r8 = -1d0\n  call hpf_check(hpf_eoshift(c__h, int(1, c_int64_t), int(1, "
                            "c_int) - 1, c_loc(hpf__t_r8), d__h)"));
}

TEST(Lower, BadShiftsAreRejectedWithLineAndReason) {
  // A wrong call is refused; a shift the runtime's shift does not take runs on replicated copies.
  expect_replicated(program(kShiftSpec, "  a = CSHIFT(a, 1)\n"), {"into 'a' itself"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(a, 1, 2)\n"),
                  {"t.f90:11:", "DIM must be in [1, 1]", "got 2"});
  expect_rejected(program(kShiftSpec, "  d = CSHIFT(c, 1, 0)\n"), {"DIM must be in [1, 2]", "got 0"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(a, 1) + 1\n"),
                    {"CSHIFT must be the whole right-hand side"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(a)\n"), {"needs its ARRAY and SHIFT"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(a, 1, 1, 1)\n"), {"CSHIFT takes at most 3 arguments"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(a, 1, boundary = 1)\n"),
                  {"CSHIFT has no argument 'boundary'"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(array = a, 1)\n"),
                  {"positional argument after a keyword"});
  expect_rejected(program(kShiftSpec, "  b = CSHIFT(a, shift = 1, shift = 2)\n"), {"'shift' given twice"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(k, 1)\n"), {"ARRAY 'k' is not a distributed array"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(a, sum(b))\n"),
                    {"shift argument references distributed array 'b'"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(e, 1)\n"), {"SHADOW widths differ"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(f, 1)\n"), {"bounds differ"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(g, 1)\n"), {"element type differs"});
  expect_replicated(program(kShiftSpec, "  b = CSHIFT(h, 1)\n"), {"not distributed like 'b'"});
  expect_replicated(program(kShiftSpec, "  b = EOSHIFT(a, 1, b)\n"),
                    {"boundary argument references distributed array 'b'"});
  // DYNAMIC arrays are shifted (the runtime checks their layouts), but not into another element type.
  const std::string dyn = kShiftSpec + "!HPF$ DYNAMIC a\n";
  EXPECT_NO_THROW((void)lower_hpf(program(dyn, "  b = CSHIFT(a, 1)\n"), "t.f90"));
  expect_replicated(program(dyn, "  g = CSHIFT(a, 1)\n"), {"element type differs"});
}

/// True when every byte of `s` is printable ASCII or a newline (nothing of the input echoed raw).
bool all_printable(const std::string& s) {
  for (const char c : s)
    if (c != '\n' && (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f))
      return false;
  return true;
}

/// Lowers `src`: returns the message of the hpf::Error it throws, or "" when it is accepted.
std::string lowering_error(const std::string& src) {
  try {
    (void)lower_hpf(src, "t.f90");
  } catch (const hpf::Error& e) {
    return e.what();
  }
  return "";
}

// std::regex overflowed the stack (rc 139) on a 100k-character name, on deep
// parentheses and on a 60 KB FORALL line; binary garbage was echoed into messages.
TEST(Lower, Issue15HostileSourcesGiveErrorsNotCrashes) {
  const std::string long_name(100000, 'x');
  const std::string e1 = lowering_error(program("  real(8) :: " + long_name + "\n", ""));
  EXPECT_NE(e1.find("t.f90:3: a name of 100000 characters"), std::string::npos) << e1.substr(0, 200);
  EXPECT_LT(e1.size(), 400u) << "the name must not be echoed whole";

  const std::string e2 = lowering_error("program " + long_name + "\nend\n");
  EXPECT_NE(e2.find("t.f90:1: a name of 100000 characters"), std::string::npos) << e2.substr(0, 200);

  // 100k nested parentheses: in a plain statement (copied), in a FORALL header, in a declaration.
  const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
  EXPECT_NO_THROW((void)lower_hpf(program(kSpec, "  s = " + deep + "\n"), "t.f90"));
  const std::string e3 = lowering_error(program(kSpec, "  forall (i = 1:" + deep + ") a(i) = 1\n"));
  EXPECT_EQ(e3, "") << e3.substr(0, 200);
  const std::string e4 =
      lowering_error(program(kSpec, "  forall (i = 1:10" + std::string(100000, '(') + ") a(i) = 1\n"));
  EXPECT_NE(e4.find("t.f90:10: unbalanced parentheses"), std::string::npos) << e4.substr(0, 200);
  EXPECT_LT(e4.size(), 800u);

  // A 60 KB FORALL line is lowered (linear time), its right-hand side a long sum.
  std::string rhs = "1";
  while (rhs.size() < 60000) rhs += " + i";
  const std::string out = lower_hpf(program(kSpec, "  forall (i = 1:100) a(i) = " + rhs + "\n"), "t.f90");
  EXPECT_NE(out.find("do hpf__b1 = 1, a__u(1)%n"), std::string::npos);

  // A stencil FORALL of 600 KB (60000 neighbour reads) is lowered too: each read is scanned once and
  // the right-hand side is rebuilt left to right (no rescan or in-place replacement per read).
  std::string reads = "u(i-1)";
  for (int k = 1; k < 60000; ++k) reads += k % 2 == 0 ? " + u(i-1)" : " - u(i+1)";
  const std::string big =
      lower_hpf(program(kShadowSpec, "  forall (i = 2:99) v(i) = " + reads + "\n"), "t.f90");
  EXPECT_NE(big.find("update_shadow(u__h"), std::string::npos);
  EXPECT_NE(
      unwrapped(big).find("u__p(hpf__i1 + hpf__o1) - u__p(hpf__i1 + hpf__o1 + 2) + u__p(hpf__i1 + hpf__o1)"),
      std::string::npos);

  // A statement past the limit is refused with its line.
  const std::string e5 = lowering_error(program(kSpec, "  s = " + std::string(2u << 20, '1') + "\n"));
  EXPECT_NE(e5.find("t.f90:10: statement of"), std::string::npos) << e5.substr(0, 200);

  // Binary garbage: the message shows escapes, never the raw bytes.
  std::string garbage = "\x01\x02\xff\xfe\x1b[31mprogram\x07\n";
  for (int i = 0; i < 256; ++i) garbage += static_cast<char>(i);
  const std::string e6 = lowering_error(garbage);
  EXPECT_NE(e6.find("expected 'PROGRAM name'"), std::string::npos) << e6;
  EXPECT_NE(e6.find("\\x01\\x02\\xff\\xfe\\x1b[31m"), std::string::npos) << e6;
  EXPECT_TRUE(all_printable(e6)) << e6;
  const std::string e7 = lowering_error(program(kSpec, "!HPF$ TEMPLATE \x01\xff\n"));
  EXPECT_NE(e7.find("\\x01\\xff"), std::string::npos) << e7;
  EXPECT_TRUE(all_printable(e7));
}

// Distributions the runtime cannot build are refused at lowering time, with the
// file and line, instead of failing when the lowered program runs.
TEST(Lower, Issue15BadDistributionsAreRejectedWithTheLine) {
  const std::string z = "  real(8) :: z(10)\n";
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(CYCLIC(0))\n", ""),
                  {"t.f90:4:", "CYCLIC(0): the block size must be in [1, 2147483647], got 0"});
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(CYCLIC( -1 ))\n", ""), {"t.f90:4:", "got -1"});
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(CYCLIC(4294967296))\n", ""),
                  {"t.f90:4:", "got 4294967296"});
  expect_rejected(
      program(z + "!HPF$ DYNAMIC z\n!HPF$ DISTRIBUTE z(BLOCK)\n", "!HPF$ REDISTRIBUTE z(CYCLIC(0))\n"),
      {"t.f90:6:", "CYCLIC(0)"});
  expect_rejected(program(z + "!HPF$ PROCESSORS p(0)\n!HPF$ DISTRIBUTE z(BLOCK) ONTO p\n", ""),
                  {"t.f90:4:", "PROCESSORS p: extent 1 must be in [1, 2147483647], got 0"});
  expect_rejected(program(z + "!HPF$ PROCESSORS p(2, -3)\n!HPF$ DISTRIBUTE z(BLOCK) ONTO p\n", ""),
                  {"t.f90:4:", "extent 2", "got -3"});
  expect_rejected(
      program("  real(8) :: z(2, 2, 2, 2, 2, 2, 2)\n!HPF$ DISTRIBUTE z(BLOCK, *, *, *, *, *, *)\n", ""),
      {"t.f90:4:", "7 distributions: hpfrt arrays have 1 to 4 dimensions"});
  // Expressions are the runtime's to check; literals in range are accepted.
  EXPECT_NO_THROW((void)lower_hpf(program(z + "!HPF$ DISTRIBUTE z(CYCLIC(k))\n", ""), "t.f90"));
  EXPECT_NO_THROW((void)lower_hpf(program(z + "!HPF$ DISTRIBUTE z(CYCLIC(+2))\n", ""), "t.f90"));
  EXPECT_NO_THROW((void)lower_hpf(
      program("  real(8) :: z(2, 2, 2, 2)\n!HPF$ DISTRIBUTE z(BLOCK, *, *, *)\n", ""), "t.f90"));
}

TEST(Lower, GenBlockAndIndirectCopyTheirTablesBeforeTheCall) {
  // In DISTRIBUTE (a table known at the set-up, here a PARAMETER), shared by both arrays of the line.
  const std::string out = lower_hpf(
      program("  integer, parameter :: s(2) = [3, 7], o(10) = [1, 2, 1, 2, 1, 2, 1, 2, 1, 1]\n"
              "  real(8) :: x(10), y(10), z(10)\n!HPF$ PROCESSORS p(2)\n"
              "!HPF$ DISTRIBUTE (GEN_BLOCK(s)) ONTO p :: x, y\n!HPF$ DISTRIBUTE z(INDIRECT(o)) ONTO p\n"
              "!HPF$ DYNAMIC z\n",
              "!HPF$ REDISTRIBUTE z(gen_block( s ))\n"),
      "t.f90");
  EXPECT_TRUE(contains(out, "integer(c_int64_t), allocatable, target :: hpf__gb6_1(:)"));
  EXPECT_TRUE(contains(out, "integer(c_int32_t), allocatable, target :: hpf__ix7_1(:)"));
  EXPECT_TRUE(contains(out, "integer(c_int64_t), allocatable, target :: hpf__gb9_1(:)"));
  const auto table = out.find("hpf__gb6_1 = int(s, c_int64_t)");
  ASSERT_NE(table, std::string::npos);
  EXPECT_EQ(out.find("hpf__gb6_1 = int(s", table + 1), std::string::npos) << "one copy for x and y";
  EXPECT_LT(table, out.find("hpf_array_create('x'"));
  EXPECT_TRUE(contains(out, "[hpf_gen_block(hpf__gb6_1)], p__g, x__h)"));
  EXPECT_TRUE(contains(out, "[hpf_gen_block(hpf__gb6_1)], p__g, y__h)"));
  // INDIRECT's processor indices count from 1, hpf_indirect's grid coordinates from 0.
  EXPECT_TRUE(contains(out, "hpf__ix7_1 = int((o) - 1, c_int32_t)"));
  EXPECT_TRUE(contains(out, "[hpf_indirect(hpf__ix7_1)], p__g, z__h)"));
  const auto re = out.find("hpf__gb9_1 = int(s, c_int64_t)");
  ASSERT_NE(re, std::string::npos);
  EXPECT_LT(re, out.find("hpf_array_redistribute(z__h, [hpf_gen_block(hpf__gb9_1)]"));
}

TEST(Lower, SerialStandInIsDroppedAndNumberOfProcessorsLowered) {
  const std::string out = lower_hpf("program t\n  use hpf_serial\n  implicit none\n  integer :: np\n"
                                    "  np = number_of_processors()\nend program t\n",
                                    "t.f90");
  EXPECT_TRUE(contains(out, "! use hpf_serial   (the serial stand-in"));
  EXPECT_FALSE(contains(out, "\n  use hpf_serial"));
  EXPECT_TRUE(contains(out, "np = hpf__size"));
}

TEST(Lower, BadGenBlockAndIndirectAreRejectedWithTheLine) {
  const std::string z = "  real(8) :: z(10)\n";
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(GEN_BLOCK(10))\n", ""),
                  {"t.f90:4:", "GEN_BLOCK(10): expected an integer array", "one block size per processor"});
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(INDIRECT( ))\n", ""),
                  {"t.f90:4:", "INDIRECT(): expected an integer array", "processor index, from 1"});
  expect_rejected(program(z + "!HPF$ DISTRIBUTE z(GEN_BLOCKS(s))\n", ""),
                  {"t.f90:4:", "is not BLOCK, CYCLIC, CYCLIC(r), GEN_BLOCK(sizes), INDIRECT(map) or *"});
}

const std::string kAlignSpec =
    "  integer :: i, j\n  real(8) :: x\n  real(8) :: a(12, 12), b(12), c(0:11), d(12)\n"
    "!HPF$ PROCESSORS p(2, 2)\n!HPF$ PROCESSORS q(4)\n"
    "!HPF$ TEMPLATE t(12, 12), u(24)\n"
    "!HPF$ DISTRIBUTE t(BLOCK, CYCLIC(2)) ONTO p\n"
    "!HPF$ DISTRIBUTE u(CYCLIC(3)) ONTO q\n"
    "!HPF$ ALIGN a(i, j) WITH t(j, i)\n"
    "!HPF$ ALIGN b(i) WITH t(i, *)\n"
    "!HPF$ ALIGN (k) WITH u(2 * k - 1) :: c\n"
    "!HPF$ ALIGN d(i) WITH a(13 - i, 3)\n"
    "!HPF$ DYNAMIC t, c\n";

TEST(Lower, TemplatesAndAlignmentsBecomeAlignedArrays) {
  const std::string out = lower_hpf(program(kAlignSpec, "  x = sum(b)\n"), "t.f90");
  EXPECT_TRUE(contains(out,
                       "call hpf_check(hpf_template_create(2, [int((12) - (1) + 1, c_int64_t), "
                       "int((12) - (1) + 1, c_int64_t)], [hpf_block(), hpf_cyclic(int(2))], p__g, t__t)"));
  EXPECT_TRUE(contains(
      out, "hpf_template_create(1, [int((24) - (1) + 1, c_int64_t)], [hpf_cyclic(int(3))], q__g, u__t)"));
  // a(i, j) WITH t(j, i): dimension 1 along the template's 2 (0-based 1), stride 1, offset 1*1 + 0 - 1.
  EXPECT_TRUE(contains(out, "a__ad(1) = hpf_align_dim(1_c_int32_t, int((((1)) - ((0))), c_int64_t), "
                            "int((((1)) - ((0))) * (1) + ((0)) - (1), c_int64_t))"));
  EXPECT_TRUE(contains(out, "a__ad(2) = hpf_align_dim(0_c_int32_t,"));
  EXPECT_TRUE(contains(out, "hpf_array_create_aligned('a', HPF_FLOAT64, 2, "));
  // b(i) WITH t(i, *): replicated over the template's second dimension.
  EXPECT_TRUE(contains(out, "b__ai(2) = HPF_ALIGN_REPLICATED"));
  // c(0:11) WITH u(2k - 1): stride 2, offset 2*0 + (-1) - 1; the affine check stands before.
  EXPECT_TRUE(contains(out, "if ((2 * (2) - 1) - 2 * (2 * (1) - 1) + (2 * (0) - 1) /= 0) then\n"
                            "    error stop 'ALIGN c (line 13): subscript 1 is not s*k + o'"));
  EXPECT_TRUE(contains(out, "int(((2 * (1) - 1) - (2 * (0) - 1)) * (0) + (2 * (0) - 1) - (1), c_int64_t))"));
  // d WITH a(13 - i, 3): the base is a's layout, taken after a is made; the column is fixed.
  const auto a_made = out.find("hpf_template_of_array(a__h, a__t)");
  ASSERT_NE(a_made, std::string::npos);
  EXPECT_LT(a_made, out.find("hpf_array_create_aligned('d'"));
  EXPECT_TRUE(contains(out, "d__ai(2) = int((3) - (1), c_int64_t)"));
  EXPECT_TRUE(contains(out, "a__t, d__ad, d__ai, d__h), 'ALIGN d (line 14)')"));
  EXPECT_TRUE(contains(out, "hpf_array_sum(b__h"));
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_template_free(t__t), 'free t')"));
}

TEST(Lower, RedistributingABaseCarriesWhatIsAlignedWithIt) {
  const std::string out = lower_hpf(
      program(kAlignSpec, "!HPF$ REDISTRIBUTE t(CYCLIC, BLOCK)\n!HPF$ REALIGN c(i) WITH t(i + 1, 2)\n"),
      "t.f90");
  const auto re =
      out.find("call hpf_check(hpf_template_redistribute(t__t, [hpf_cyclic(1), hpf_block()], p__g)");
  ASSERT_NE(re, std::string::npos);
  // a moves, then a's layout is taken again and d (aligned with a) moves too; b follows t.
  const auto a_moves =
      out.find("if (a__b == 1) then\n    call hpf_check(hpf_array_realign(a__h, t__t, a__ad, a__ai", re);
  ASSERT_NE(a_moves, std::string::npos) << out;
  const auto d_moves = out.find("if (d__b == 3) then", a_moves);
  EXPECT_NE(d_moves, std::string::npos);
  EXPECT_LT(out.find("hpf_template_of_array(a__h, a__t)", a_moves), d_moves);
  EXPECT_NE(out.find("if (b__b == 1) then", re), std::string::npos);
  // c is aligned with u, but a REALIGN may make it follow t: it is checked at run time.
  EXPECT_NE(out.find("if (c__b == 1) then", re), std::string::npos);
  const auto ra = out.find("REALIGN c(i) WITH t(i + 1, 2)");
  ASSERT_NE(ra, std::string::npos);
  EXPECT_NE(out.find("c__ai(2) = int((2) - (1), c_int64_t)", ra), std::string::npos);
  EXPECT_NE(out.find("c__b = 1", ra), std::string::npos);
  EXPECT_TRUE(
      contains(out.substr(ra),
               "hpf_array_realign(c__h, t__t, c__ad, c__ai, HPF_STRATEGY_AUTO), 'REALIGN c (line 17)')"));
}

TEST(Lower, BadTemplatesAndAlignmentsAreRejectedWithTheLine) {
  const std::string z = "  real(8) :: z(10), y(10)\n";
  expect_rejected(program(z + "!HPF$ TEMPLATE t(10)\n!HPF$ ALIGN z(i) WITH t(i)\n", ""),
                  {"t.f90:4:", "TEMPLATE t has no DISTRIBUTE"});
  const std::string t = z + "!HPF$ TEMPLATE t(10, 10)\n!HPF$ DISTRIBUTE t(BLOCK, *)\n";
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH t(i)\n", ""),
                  {"t.f90:6:", "1 subscripts for the 2 dimension(s) of 't'"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH s(i, 1)\n", ""),
                  {"t.f90:6:", "'s' is neither a TEMPLATE nor a distributed array"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH t(i, i)\n", ""),
                  {"t.f90:6:", "align dummy 'i' appears in more than one base subscript"});
  expect_rejected(program(t + "!HPF$ ALIGN z(:) WITH t(:, :)\n", ""),
                  {"t.f90:6:", "1 ':' align source(s) for 2 triplet(s) of 't'"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i, j) WITH t(i, j)\n", ""),
                  {"'z' has 1 dimension(s) but its ALIGN (line 6) gives 2"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH y(i)\n!HPF$ ALIGN y(i) WITH z(i)\n", ""),
                  {"form a cycle"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH t(i, 1)\n!HPF$ SHADOW z(1)\n", ""),
                  {"t.f90:7:", "an aligned array has no SHADOW"});
  expect_rejected(
      program(t + "!HPF$ ALIGN z(i) WITH t(i, 1)\n!HPF$ DYNAMIC z\n", "!HPF$ REDISTRIBUTE z(BLOCK)\n"),
      {"t.f90:8:", "'z' is aligned (ALIGN at line 6)"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH t(i, 1)\n", "!HPF$ REALIGN z(i) WITH t(i, 2)\n"),
                  {"t.f90:7:", "REALIGN z: the array is not declared !HPF$ DYNAMIC"});
  expect_rejected(program(t + "!HPF$ ALIGN z(i) WITH t(i, 1)\n", "!HPF$ REDISTRIBUTE t(CYCLIC, *)\n"),
                  {"t.f90:7:", "REDISTRIBUTE t: the template is not declared !HPF$ DYNAMIC"});
  expect_rejected(
      program(t + "!HPF$ ALIGN z(i) WITH t(i, 1)\n!HPF$ ALIGN (i) WITH z(i) :: y\n!HPF$ DYNAMIC z\n",
              "!HPF$ REALIGN z(i) WITH t(i, 2)\n"),
      {"the base of an alignment"});
}

} // namespace

namespace {

// The front end: fixed form, INCLUDE files, several program units, and where the set-up and the
// release go.
TEST(Lower, FixedFormIsReadByColumnsAndWrittenAsFreeForm) {
  const std::string src = "C     comment\n"
                          "      PROGRAM F\n"
                          "      REAL*8 A(8)\n"
                          "CHPF$ DISTRIBUTE A(BLOCK)\n"
                          "      A = 1.0D0 +                                                       IGNORED\n"
                          "     &    2.0D0\n"
                          "   10 CONTINUE\n"
                          "      END\n";
  const std::string out = lower_hpf(src, "f.f");
  EXPECT_TRUE(contains(out, "!     comment\n"));
  EXPECT_TRUE(contains(out, "hpf__t_r8 = 1.0D0 +    2.0D0")) << out;
  EXPECT_TRUE(contains(out, "10    CONTINUE\n"));
  EXPECT_FALSE(contains(out, "IGNORED"));
  // A continuation of a directive, and the form chosen by option whatever the suffix.
  const std::string cont =
      "      PROGRAM F\n      REAL*8 A(8)\n*HPF$ DISTRIBUTE\n*HPF$*A(CYCLIC(2))\n      A = 1\n"
      "      END\n";
  hpf::LowerOptions fixed;
  fixed.form = hpf::SourceForm::Fixed;
  EXPECT_TRUE(contains(lower_hpf(cont, "f.txt", fixed), "[hpf_cyclic(int(2))]"));
  try {
    (void)lower_hpf("      PROGRAM F\nCHPF$ FOO A\n      END\n", "f.f");
    ADD_FAILURE() << "an unknown directive was accepted";
  } catch (const hpf::Error& e) {
    EXPECT_TRUE(contains(e.what(), "f.f:2: unknown HPF directive 'FOO'")) << e.what();
  }
}

TEST(Lower, IncludeFilesAreReadAndTheirDirectivesCount) {
  hpf::LowerOptions o;
  o.include = [](const std::string& path) -> std::optional<std::string> {
    if (path != "dir/decl.inc") return std::nullopt;
    return "  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\n";
  };
  const std::string out =
      lower_hpf("program p\n  include 'decl.inc'\n  a = 0\nend program p\n", "dir/p.f90", o);
  EXPECT_TRUE(contains(out, "'DISTRIBUTE a (line 2 of decl.inc)'")) << out;
  expect_rejected("program p\n  include 'nowhere.inc'\nend program p\n",
                  {"t.f90:2:", "INCLUDE 'nowhere.inc'"});
}

TEST(Lower, SetUpFollowsTheSpecificationPartAndReleasePrecedesContains) {
  const std::string out =
      lower_hpf("program p\n  implicit none\n  interface\n    subroutine s(x)\n      real(8) :: x\n    end "
                "subroutine s\n  end interface\n  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\n  a = 1\n"
                "contains\n  subroutine t()\n    print *, 'x'\n  end subroutine t\nend program p\n"
                "subroutine s(x)\n  real(8) :: x\n  print *, x\nend subroutine s\n",
                "t.f90");
  const auto setup = out.find("hpf_init");
  EXPECT_LT(out.find("end interface"), setup);
  EXPECT_LT(out.find("hpf_finalize"), out.find("contains"));
  EXPECT_TRUE(contains(out, "  if (hpf__rank == 0) then\n    print *, 'x'"));
  // An external subroutine is lowered as the main program is: its PRINT runs on rank 0.
  EXPECT_TRUE(contains(out, "subroutine s(x)\n  use, intrinsic :: iso_c_binding\n  use hpfrt\n"));
  EXPECT_TRUE(contains(out, "  if (hpf__rank == 0) then\n  print *, x\n"));
}

// HPF 2.0 section 4.4: a procedure's distributed dummy argument. The caller passes the actual whole;
// a prescriptive or descriptive mapping gives the dummy its own distributed array, filled on entry
// (not for INTENT(OUT)) and gathered back into the dummy on every exit (not for INTENT(IN)); a
// transcriptive dummy stays the actual.
TEST(Lower, DistributedDummyArguments) {
  const std::string main = program("  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\n", "  call s(a, 8)\n");
  auto sub = [&](const std::string& decl, const std::string& dirs, const std::string& body = "  x = 1\n") {
    const std::string out = lower_hpf(
        main + "subroutine s(x, m)\n  integer :: m\n" + decl + dirs + body + "end subroutine s\n", "t.f90");
    return out.substr(out.find("subroutine s(x, m)"));
  };
  const std::string pre = sub("  real(8) :: x(m)\n", "!HPF$ DISTRIBUTE x(CYCLIC(2))\n");
  EXPECT_TRUE(contains(pre, "  real(8) :: x(m)\n")) << pre;
  EXPECT_TRUE(contains(pre, "[hpf_cyclic(int(2))], hpf__world_g, x__h)")) << pre;
  // The CALL passes a's handle: the callee copies from layout to layout, no gather.
  EXPECT_TRUE(contains(pre, "  x__in = hpf__arg(1)\n  hpf__arg(1) = c_null_ptr\n")) << pre;
  EXPECT_TRUE(
      contains(pre, "if (c_associated(x__in)) then\n    call hpf_check(hpf_array_assign_section(x__h, "))
      << pre;
  EXPECT_TRUE(
      contains(pre, "    x__r = x\n    call hpf_check(hpf_array_store_owned(x__h, c_loc(x__r)), 'dummy x on "
                    "entry to s')"))
      << pre;
  EXPECT_TRUE(contains(pre,
                       "call hpf_check(hpf_array_allgather(x__h, c_loc(x__r)), 'dummy x on exit from s')\n"
                       "    x = x__r\n"))
      << pre;
  EXPECT_TRUE(contains(pre, "hpf_array_assign_section(x__in, ")) << pre;
  const std::string caller = lower_hpf(main + "subroutine s(x, m)\n  integer :: m\n  real(8) :: x(m)\n"
                                              "!HPF$ DISTRIBUTE x(BLOCK)\nend subroutine s\n",
                                       "t.f90");
  EXPECT_TRUE(contains(caller, "  hpf__arg(1) = a__h\n")) << caller;
  EXPECT_TRUE(contains(caller, "  call s(a__r, 8)\n")) << caller;
  EXPECT_FALSE(contains(caller.substr(0, caller.find("subroutine s(")), "allgather")) << caller;
  // Among replicated statements the call runs with them over the copies, splitting no construct.
  const std::string among =
      lower_hpf(program("  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\n",
                        "  if (a(1) > 0) then\n    call s(a, 8)\n  else if (a(2) > 0) then\n"
                        "    a(3) = 1\n  end if\n") +
                    "subroutine s(x, m)\n  integer :: m\n  real(8) :: x(m)\n"
                    "!HPF$ DISTRIBUTE x(BLOCK)\nend subroutine s\n",
                "t.f90");
  EXPECT_TRUE(contains(among, "lines 5 to 9: on every rank over replicated copies of a")) << among;
  EXPECT_TRUE(contains(among, "  if (a__r(1) > 0) then\n  call s(a__r, 8)\n")) << among;
  EXPECT_FALSE(contains(among, "hpf__arg(1) = a__h")) << among;
  EXPECT_TRUE(contains(pre, "hpf_array_fill(x__h")) << pre;
  EXPECT_FALSE(contains(pre, "hpf_init")) << pre;
  EXPECT_FALSE(contains(pre, "hpf_finalize")) << pre;
  const std::string in =
      sub("  real(8), intent(in) :: x(m)\n", "!HPF$ DISTRIBUTE x(BLOCK)\n", "  print *, sum(x)\n");
  EXPECT_TRUE(contains(in, "store_owned(x__h, c_loc(x__r)), 'dummy x")) << in;
  EXPECT_FALSE(contains(in, "'dummy x on exit from s'")) << in;
  const std::string out = sub("  real(8) :: x(m)\n  intent(out) :: x\n", "!HPF$ DISTRIBUTE x(BLOCK)\n");
  EXPECT_FALSE(contains(out, "'dummy x on entry to s'")) << out;
  EXPECT_TRUE(contains(out, "'dummy x on exit from s'")) << out;
  // A descriptive mapping: the passed actual is checked slot by slot, then used as the dummy.
  const std::string described = sub("  real(8) :: x(m)\n", "!HPF$ DISTRIBUTE x *(BLOCK)\n");
  EXPECT_TRUE(contains(described,
                       "error stop 's: the actual argument of dummy x is not mapped as its descriptive "
                       "DISTRIBUTE (line 10) says'"))
      << described;
  EXPECT_TRUE(contains(described, "  x__h = x__in\n")) << described;
  EXPECT_TRUE(contains(described, "if (.not. x__alias) call hpf_check(hpf_array_free(x__h), 'free x')"))
      << described;
  const std::string shaped = sub("  real(8) :: x(0:)\n", "!HPF$ DISTRIBUTE *(BLOCK) :: x\n");
  EXPECT_TRUE(contains(shaped, "[int(((0) + size(x, 1) - 1) - (0) + 1, c_int64_t)], [hpf_block()]"))
      << shaped;
  for (const char* dirs : {"!HPF$ DISTRIBUTE x *\n", "!HPF$ INHERIT x\n", "!HPF$ DISTRIBUTE * :: x\n"}) {
    const std::string tr = sub("  real(8) :: x(m)\n", dirs);
    EXPECT_FALSE(contains(tr, "x__h")) << tr;
    EXPECT_TRUE(contains(tr, "\n  x = 1\n")) << tr;
  }
  // RETURN and STOP leave the procedure through the release; STOP ends the runtime too.
  const std::string ret =
      sub("  real(8) :: x(m)\n", "!HPF$ DISTRIBUTE x(BLOCK)\n", "  if (m > 2) return\n  stop\n");
  EXPECT_TRUE(contains(ret, "if (m > 2) then\n  ! --- hpfrt: release (lowered) ---\n")) << ret;
  EXPECT_TRUE(contains(ret, "call hpf_check(hpf_finalize(), 'hpf_finalize')\n  stop\n")) << ret;
}

// A lowered function that communicates (it maps data) must be called on every rank: a FORALL that
// calls it runs on replicated copies, a PRINT (rank 0 only) that calls it is refused.
TEST(Lower, FunctionsThatCommunicateRunOnEveryRank) {
  const std::string f =
      "real(8) function f(x, m)\n  integer :: m\n  real(8) :: x(m)\n!HPF$ DISTRIBUTE x(BLOCK)\n"
      "  f = sum(x)\nend function f\n";
  const std::string spec = "  real(8) :: a(8), f\n  integer :: i\n!HPF$ DISTRIBUTE a(BLOCK)\n";
  const std::string out = lower_hpf(program(spec, "  forall (i = 1:8) a(i) = f(a, 8) + i\n") + f, "t.f90");
  EXPECT_TRUE(contains(out, "it calls FUNCTION f, which communicates")) << out;
  EXPECT_TRUE(contains(out, "on every rank over replicated copies of a")) << out;
  expect_rejected(program(spec, "  print *, f(a, 8)\n") + f,
                  {"t.f90:6:", "runs on rank 0 only (it prints) and calls FUNCTION f, which communicates"});
}

TEST(Lower, DistributedDummyArgumentsOutsideTheSubsetAreRefused) {
  const std::string main = program("", "  print *, 1\n");
  expect_rejected(
      main + "subroutine s(x, m)\n  integer :: m\n  real(8) :: x(m, *)\n!HPF$ DISTRIBUTE x(BLOCK, *)\n"
             "end subroutine s\n",
      {"t.f90:7:", "distributed dummy argument 'x(m, *)' is assumed-size"});
  expect_rejected(
      main + "subroutine s(x)\n  real(8) :: x(4), y(4)\n!HPF$ DISTRIBUTE y *(BLOCK)\nend subroutine s\n",
      {"t.f90:7:", "DISTRIBUTE y *: 'y' is not a dummy argument of SUBROUTINE s"});
  expect_rejected(
      main + "function f(x)\n  real(8) :: x(4), f(4)\n!HPF$ DISTRIBUTE (BLOCK) :: x, f\nend function f\n",
      {"t.f90:7:", "the result 'f' of FUNCTION f is mapped"});
  expect_rejected(main + "pure subroutine s(x)\n  real(8), intent(inout) :: x(4)\n!HPF$ DISTRIBUTE x(BLOCK)\n"
                         "end subroutine s\n",
                  {"t.f90:7:", "distributed data in SUBROUTINE s is not lowered", "not PURE or ELEMENTAL"});
  expect_rejected("program t\n  call s()\ncontains\n  subroutine s()\n    real(8) :: x(4)\n"
                  "!HPF$ DISTRIBUTE x(BLOCK)\n  end subroutine s\nend program t\n",
                  {"t.f90:6:", "distributed data in internal SUBROUTINE s is not lowered"});
  expect_rejected(main +
                      "subroutine s(x)\n  real(8) :: x(4)\n!HPF$ DISTRIBUTE x *\n!HPF$ DISTRIBUTE x(BLOCK)\n"
                      "end subroutine s\n",
                  {"t.f90:8:", "'x' is transcriptive (DISTRIBUTE x * or INHERIT) and mapped as well"});
}

// HPF 2.0 allows DISTRIBUTE in the unit that declares a COMMON block or a module: the distributed
// members become variables of a module (hpf__common_<block>, or the module itself) that every unit
// declaring the block or using the module sees; the main program creates them.
TEST(Lower, DistributedArraysInCommonAndModules) {
  const std::string common = lower_hpf("program t\n  real(8) :: a, x\n  common /c/ a(8), x\n"
                                       "!HPF$ DISTRIBUTE a(BLOCK)\n  a = 1\n  call s()\nend program t\n"
                                       "subroutine s()\n  real(8) :: a(8), x\n  common /c/ a, x\n"
                                       "!HPF$ DISTRIBUTE a(BLOCK)\n  a = 2\nend subroutine s\n",
                                       "t.f90");
  EXPECT_TRUE(contains(
      common, "module hpf__common_c\n  use, intrinsic :: iso_c_binding\n  use hpfrt, only: hpf_runs\n"
              "  implicit none\n"
              "  type(c_ptr) :: a__h\n"))
      << common;
  EXPECT_TRUE(
      contains(common, "program t\n  use, intrinsic :: iso_c_binding\n  use hpfrt\n  use hpf__common_c\n"))
      << common;
  EXPECT_TRUE(contains(common, "  common /c/ x\n")) << common;
  const std::string sub = common.substr(common.find("subroutine s()"));
  EXPECT_TRUE(contains(sub, "use hpf__common_c\n")) << sub;
  EXPECT_TRUE(contains(sub, "hpf_array_fill(a__h")) << sub;
  EXPECT_FALSE(contains(sub, "hpf_array_create")) << sub;
  EXPECT_FALSE(contains(sub, "hpf_array_free")) << sub;
  // The bounds, written alike or not, are compared at run time with those the main program recorded.
  EXPECT_TRUE(contains(common, "  a__lo(1:1) = [int(1, c_int64_t)]\n")) << common;
  EXPECT_TRUE(
      contains(sub, "error stop 's: a in COMMON /c/ (line 9) has other bounds than in the main program'"))
      << sub;
  const std::string module = lower_hpf(
      "module m\n  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\nend module m\nprogram t\n  use m\n  a = 1\n"
      "end program t\nsubroutine s()\n  use m, only: a\n  a = 2\nend subroutine s\n",
      "t.f90");
  EXPECT_TRUE(contains(module, "public :: a__h, a__l, a__p, a__q, a__n, a__e, a__u, a__r, hpf__init_m, "
                               "hpf__free_m"))
      << module;
  EXPECT_TRUE(contains(module, "  use m, only: hpf__init_m, hpf__free_m\n")) << module;
  EXPECT_TRUE(contains(module, "call hpf__init_m()")) << module;
  EXPECT_TRUE(contains(module, "call hpf__free_m()\n  call hpf_check(hpf_finalize()")) << module;
  EXPECT_TRUE(contains(module, "  use m, only: a__h, a__l, a__n, a__e, a__r, a__p, a__q, a__u\n")) << module;
  const std::string c =
      "program t\n  real(8) :: a(8)\n  common /c/ a\n!HPF$ DISTRIBUTE a(BLOCK)\n  a = 1\nend program t\n";
  expect_rejected(c + "subroutine s()\n  real(8) :: a(8)\n  common /c/ a\n!HPF$ DISTRIBUTE a(CYCLIC)\n"
                      "end subroutine s\n",
                  {"t.f90:10:", "'a' in COMMON /c/ has another type, rank, DISTRIBUTE"});
  expect_rejected(c + "subroutine s()\n  real(8) :: a(8)\n  common /c/ a\nend subroutine s\n",
                  {"t.f90:9:", "COMMON /c/ a: 'a' is distributed in the main program's COMMON (line 4)"});
  expect_rejected(program("", "") + "subroutine s()\n  real(8) :: a(8)\n  common /c/ a\n"
                                    "!HPF$ DISTRIBUTE a(BLOCK)\nend subroutine s\n",
                  {"t.f90:7:", "is distributed here but not in the main program's COMMON /c/"});
  expect_rejected("program t\n  real(8) :: a(8), b(8)\n  common /c/ a, b\n!HPF$ DISTRIBUTE a(BLOCK)\n"
                  "!HPF$ ALIGN b(i) WITH a(i)\nend program t\n",
                  {"t.f90:4:", "'a' in COMMON /c/ is aligned, DYNAMIC or an alignment base"});
  const std::string m = "module m\n  real(8) :: a(8)\n!HPF$ DISTRIBUTE a(BLOCK)\n";
  expect_rejected(m + "end module m\nprogram t\n  use m, only: b => a\n  b = 1\nend program t\n",
                  {"t.f90:6:", "USE m: 'b => a' renames the distributed array 'a'"});
  expect_rejected(m + "contains\n  subroutine z()\n    a = 0\n  end subroutine z\nend module m\nprogram t\n"
                      "  use m\nend program t\n",
                  {"t.f90:6:", "distributed array 'a' in the module procedure SUBROUTINE z is not lowered"});
  expect_rejected(m + "!HPF$ DYNAMIC a\nend module m\nprogram t\n  use m\nend program t\n",
                  {"t.f90:3:", "'a' of MODULE m is aligned, DYNAMIC or an alignment base"});
}

} // namespace

namespace {

std::string lowered(const std::string& body) { return lower_hpf(program(kSpec, body), "t.f90"); }

// HPF 2.0 section 5.1: a DO nest whose iterations are independent is the FORALL over its ranges.
// Its body assigns one distributed array at the loop variables and reads it only there, so it is
// owner-computed; the loop variables end with the values the DO loops leave.
TEST(Lower, DoNestsWithoutLoopCarriedDependencesAreOwnerComputed) {
  const std::string out = lowered("!HPF$ INDEPENDENT, NEW(i)\n  do j = 1, 5\n    do i = 0, 9\n"
                                  "      b(i, j) = b(i, j) + i + j\n    end do\n  end do\n");
  EXPECT_TRUE(
      contains(out, "! forall (j = 1:5, i = 0:9) b(i, j) = b(i, j) + i + j   (line 13, owner computes)"))
      << out;
  EXPECT_TRUE(contains(out, "if ((5) >= (1)) j = (5) + 1")) << out;
  EXPECT_TRUE(contains(out, "if ((1) <= (5)) then")) << out;
  EXPECT_FALSE(contains(out, "replicated copies")) << out;
  // Several assignments at the loop variables, each reading what the others assign only there.
  const std::string two =
      lowered("  do j = 1, 5\n    do i = 0, 9\n      b(i, j) = i\n      b(i, j) = b(i, j) * 2\n"
              "    end do\n  end do\n");
  EXPECT_TRUE(contains(two, "! forall (j = 1:5, i = 0:9) b(i, j) = i   (line 12, owner computes)")) << two;
  EXPECT_TRUE(contains(two, "! forall (j = 1:5, i = 0:9) b(i, j) = b(i, j) * 2   (line 13, owner computes)"))
      << two;
  const std::string carried =
      lowered("  do i = 1, 9\n    b(i, 1) = 1\n    b(i, 2) = b(i + 1, 1)\n  end do\n");
  EXPECT_TRUE(contains(carried, "on every rank over replicated copies of b")) << carried;
  // Labelled loops sharing their terminal statement, as F77 writes them.
  const std::string f77 = lowered("  do 10 j = 1, 5\n  do 10 i = 0, 9\n10 b(i, j) = 2 * j\n");
  EXPECT_TRUE(contains(f77, "! forall (j = 1:5, i = 0:9) b(i, j) = 2 * j")) << f77;
}

// A whole-array assignment combining whole aligned arrays, scalars and elemental intrinsics is the
// FORALL over the array's bounds; a call that may return an array keeps it replicated.
TEST(Lower, ElementwiseArrayAssignmentsAreOwnerComputed) {
  const std::string out = lowered("  b = 2 * b + abs(b) - s\n");
  EXPECT_TRUE(contains(out, "! forall (hpf__j1 = 0:9, hpf__j2 = 1:5) b(hpf__j1, hpf__j2) = 2 * b(hpf__j1, "
                            "hpf__j2) + abs(b(hpf__j1, hpf__j2)) - s   (line 10, owner computes)"))
      << out;
  expect_replicated(program(kSpec, "  b = b + sum(b)\n"), {"not an elemental intrinsic"});
  expect_replicated(program(kSpec, "  a = a + b(1, 1)\n"), {"aligned with 'a'"});
}

// WHERE over whole aligned arrays is owner-computed as a = MERGE(expr, a, mask), the mask read
// before any assignment; an integer division that MERGE would evaluate where the mask is false, a
// mask that reads what the construct assigns, keep it replicated.
TEST(Lower, WhereOverAlignedArraysIsOwnerComputed) {
  const std::string spec = "  integer :: i\n  real(8) :: x(8), y(8)\n  integer :: k(8)\n"
                           "!HPF$ DISTRIBUTE (BLOCK) :: x, y, k\n";
  const std::string st = lower_hpf(program(spec, "  where (y > 0) x = x / y\n"), "t.f90");
  EXPECT_TRUE(contains(
      st, "x(hpf__j1) = merge(real(x(hpf__j1) / y(hpf__j1), c_double), x(hpf__j1), (y(hpf__j1) > 0))"))
      << st;
  const std::string construct =
      lower_hpf(program(spec, "  where (k > 2)\n    x = 1\n  elsewhere\n    y = 2\n  end where\n"), "t.f90");
  EXPECT_TRUE(contains(construct, "(.not. (k(hpf__j1) > 2)))   (line 10, owner computes)")) << construct;
  EXPECT_FALSE(contains(construct, "replicated copies")) << construct;
  expect_replicated(program(spec, "  where (k /= 0) k = 12 / k\n"),
                    {"a WHERE statement is owner-computed only"});
  const std::string reads =
      lower_hpf(program(spec, "  where (x > 0)\n    x = 0\n    y = 1\n  end where\n"), "t.f90");
  EXPECT_TRUE(contains(reads, "on every rank over replicated copies of x, y")) << reads;
}

// Loops and statements no owner-computes lowering takes run on every rank over replicated copies:
// the arrays they reference are gathered before, the ones they assign written back after.
TEST(Lower, OtherStatementsRunOnReplicatedCopies) {
  const std::string carried = lowered("  do i = 2, 100\n    a(i) = a(i - 1) + 1\n  end do\n");
  EXPECT_TRUE(contains(carried, "! lines 10 to 12: on every rank over replicated copies of a")) << carried;
  EXPECT_TRUE(contains(carried, "call hpf_check(hpf_array_allgather(a__h, c_loc(a__r))")) << carried;
  EXPECT_TRUE(contains(carried, "a__r(i) = a__r(i - 1) + 1")) << carried;
  EXPECT_TRUE(contains(carried, "call hpf_check(hpf_array_store_owned(a__h, c_loc(a__r))")) << carried;
  // An element read in an IF condition, a PRINT of a section: the condition over the copy, the
  // PRINT on rank 0.
  const std::string io = lowered("  if (a(3) > 0) print '(5f6.1)', b(2, 1:5)\n");
  EXPECT_TRUE(contains(io, "if (hpf__rank == 0 .and. (a__r(3) > 0)) print '(5f6.1)', b__r(2, 1:5)")) << io;

  // A whole-array assignment that does not read its target does not gather it.
  const std::string fresh = lowered("  b = reshape([(dble(i), i = 1, 50)], [10, 5])\n");
  EXPECT_TRUE(contains(fresh, "allocate (b__r(0:9, 1:5))")) << fresh;
  EXPECT_FALSE(contains(fresh, "hpf_array_allgather(b__h")) << fresh;
  EXPECT_TRUE(contains(fresh, "hpf_array_store_owned(b__h")) << fresh;
  // A WHERE construct runs as a whole, its masked assignments never alone.
  const std::string masked = lowered("  where (a > 1)\n    a = 0\n  elsewhere\n    a = 1\n  end where\n");
  EXPECT_TRUE(contains(masked, "! lines 10 to 14: on every rank over replicated copies of a")) << masked;
  // A label moves to a CONTINUE in front, so that a branch to it gathers too.
  const std::string target = lowered("  go to 10\n10 a(1) = 2\n");
  EXPECT_TRUE(contains(target, "10 continue\n  ! line 11: on every rank")) << target;
}

// READ runs on rank 0; every variable it reads (a replicated copy for a distributed array) is then
// broadcast as its bytes, and the copy is written back.
TEST(Lower, ReadRunsOnRankZeroAndBroadcastsWhatItRead) {
  const std::string out = lowered("  read (*, *, iostat = i) j, (a(k), k = 1, j)\n");
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0) read (*, *, iostat = i) j, (a__r(k), k = 1, j)")) << out;
  for (const char* v : {"i", "j", "k"}) {
    EXPECT_TRUE(contains(out, std::string("hpf__b = transfer(") + v + ", [0_c_int8_t])")) << v << out;
    EXPECT_TRUE(contains(out, std::string(v) + " = transfer(hpf__b, " + v + ")")) << v << out;
  }
  EXPECT_TRUE(contains(out, "a__r = reshape(transfer(hpf__b, a__r), shape(a__r))")) << out;
  EXPECT_TRUE(contains(out, "hpf_array_store_owned(a__h, c_loc(a__r))")) << out;
  // Without distributed arrays, and as a logical IF's action, with a label kept for branches.
  const std::string plain = lowered("10 if (j > 0) read *, s\n");
  EXPECT_TRUE(contains(plain, "10 continue\n  if (j > 0) then\n  if (hpf__rank == 0) read *, s\n")) << plain;
}

// A logical IF whose action prints prints once, in the main program and in the other units.
TEST(Lower, WritesToInternalFilesRunOnEveryRank) {
  const std::string out = lower_hpf(
      program("  character(len=8) :: c\n" + kSpec, "  write (c, '(i3)') 7\n  write (unit=c, fmt=*) a(1)\n"),
      "t.f90");
  EXPECT_TRUE(contains(out, "\n  write (c, '(i3)') 7\n")) << out;
  EXPECT_TRUE(contains(out, "\n  write (unit=c, fmt=*) a__r(1)\n")) << out;
}

// A derived-type definition declares components, not variables, and a component named like a
// distributed array is not the array.
TEST(Lower, DerivedTypeComponentsAreNotTheArrays) {
  const std::string out =
      lower_hpf(program("  type pair\n    real(8) :: a, b\n  end type pair\n  type(pair) :: q\n" + kSpec,
                        "  q%b = a(2) * q%a\n"),
                "t.f90");
  EXPECT_TRUE(contains(out, "q%b = a__r(2) * q%a\n")) << out;
}

TEST(Lower, LogicalIfsThatPrintPrintOnOneRank) {
  const std::string out = lower_hpf(program(kSpec, "  if (s > 1) write (*, '(f5.1)') s\n  call show(3)\n") +
                                        "subroutine show(k)\n  integer :: k\n  if (k > 2) print *, k\n"
                                        "end subroutine show\n",
                                    "t.f90");
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0 .and. (s > 1)) write (*, '(f5.1)') s")) << out;
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0 .and. (k > 2)) print *, k")) << out;
  // A unit that is copied (a module) asks hpf_io_root().
  const std::string copied = lower_hpf("module m\ncontains\n  subroutine show(k)\n    integer :: k\n"
                                       "    if (k > 2) print *, k\n  end subroutine show\nend module m\n" +
                                           program("", "  call show(3)\n"),
                                       "t.f90");
  EXPECT_TRUE(contains(copied, "module m\n  use hpfrt, only: hpf_io_root\n")) << copied;
  EXPECT_TRUE(contains(copied, "if (hpf_io_root() .and. (k > 2)) print *, k")) << copied;
}

// DO WHILE whose condition reads distributed arrays, around owner-computed statements: the condition
// is gathered and tested at the top of every iteration.
TEST(Lower, DoWhileReadingDistributedDataTestsAtTheTop) {
  const std::string out =
      lowered("  do while (a(1) < 5)\n    forall (i = 1:100) a(i) = a(i) + 1\n  end do\n");
  EXPECT_TRUE(contains(out, "  do\n  if (.not. allocated(a__r)) allocate (a__r(1:100))\n")) << out;
  EXPECT_TRUE(contains(out, "if (.not. (a__r(1) < 5)) exit\n")) << out;
  const std::string labelled =
      lowered("  do 10 while (a(1) < 5)\n    forall (i = 1:100) a(i) = a(i) + 1\n10 continue\n");
  EXPECT_TRUE(contains(labelled, "if (.not. (a__r(1) < 5)) exit\n")) << labelled;
  EXPECT_TRUE(contains(labelled, "  10 continue\n  end do\n")) << labelled;
}

// A labelled DO that holds owner-computed statements becomes a block DO; its terminal statement
// gets a CONTINUE with the label in front and may be lowered to several statements.
TEST(Lower, LabelledDoLoopsAroundOwnerComputedStatementsBecomeBlockLoops) {
  const std::string out = lowered("  do 10 j = 1, 3\n    forall (i = 1:100) a(i) = j\n10 a(j) = 1\n");
  EXPECT_TRUE(contains(out, "  do j = 1, 3\n")) << out;
  EXPECT_TRUE(contains(out, "  10 continue\n  ! line 12: on every rank over replicated copies of a\n"))
      << out;
  EXPECT_TRUE(contains(
      out,
      "a__r(j) = 1\n  call hpf_check(hpf_array_store_owned(a__h, c_loc(a__r)), 'line 12: a')\n  end do\n"))
      << out;
}

// A branch out of statements that run on replicated copies writes them back first.
TEST(Lower, BranchesOutOfReplicatedRunsWriteTheCopiesBack) {
  const std::string store = "call hpf_check(hpf_array_store_owned(a__h, c_loc(a__r)), 'line 10: a')\n";
  const std::string go =
      lowered("  do j = 1, 3\n    a(j) = 1\n    if (a(j) > 0) go to 20\n  end do\n20 continue\n");
  EXPECT_TRUE(contains(go, store + "  if (a__r(j) > 0) go to 20\n")) << go;
  // A labelled one (here the end of the loop): the label on a CONTINUE in front of the write-back.
  const std::string labelled =
      lowered("  do 15 j = 1, 3\n    a(j) = 1\n15  if (a(j) > 0) go to 20\n20 continue\n");
  EXPECT_TRUE(contains(labelled, "  15 continue\n  " + store + "  if (a__r(j) > 0) go to 20\n  end do\n"))
      << labelled;
  const std::string exit = lowered("  do j = 1, 3\n    forall (i = 1:100) a(i) = j\n    if (s > 0) then\n"
                                   "      a(1) = 2\n      exit\n    end if\n  end do\n");
  EXPECT_TRUE(
      contains(exit, "a__r(1) = 2\n  call hpf_check(hpf_array_store_owned(a__h, c_loc(a__r)), 'line 12: a')\n"
                     "  exit\n"))
      << exit;
}

// STOP in the main program releases the arrays and finalises the runtime first.
TEST(Lower, StopFinalisesTheRuntimeFirst) {
  const std::string out = lowered("  if (s > 1) stop 'done'\n");
  EXPECT_TRUE(contains(out, "  if (s > 1) then\n  ! --- hpfrt: release (lowered) ---\n")) << out;
  EXPECT_TRUE(contains(out, "call hpf_check(hpf_finalize(), 'hpf_finalize')\n  stop 'done'\n  end if\n"))
      << out;
}

// An ALIGN with triplets whose base is not mapped names it (it threw std::out_of_range).
TEST(Lower, AlignWithAnUnmappedBaseIsRefusedWithTheLine) {
  expect_rejected(program("  real(8) :: x(4), y(4)\n!HPF$ ALIGN x(:) WITH y(:)\n", ""),
                  {"t.f90:4:", "'y' is neither a TEMPLATE nor a distributed array"});
}

// END= / ERR= of a READ: an IOSTAT= that every rank gets, then the branch on every rank, after the
// write-back of what the READ read.
TEST(Lower, ReadBranchesAreTakenOnEveryRank) {
  const std::string out = lowered("  read (*, *, err = 20) a\n20 continue\n");
  EXPECT_TRUE(contains(out, "if (hpf__rank == 0) read (*, *, iostat=hpf__ios) a__r\n")) << out;
  EXPECT_TRUE(contains(out, "call hpf_broadcast_bytes(hpf__b)\n  hpf__ios = transfer(hpf__b, hpf__ios)\n"))
      << out;
  EXPECT_TRUE(
      contains(out, "if (hpf__ios > 0) then\n  call hpf_check(hpf_array_store_owned(a__h, c_loc(a__r))"))
      << out;
  EXPECT_TRUE(contains(out, "go to 20\n  end if\n  if (hpf__ios /= 0) error stop 'READ (line 10)")) << out;
  // With the program's own IOSTAT=, nothing stops: only the branch.
  const std::string own = lowered("  read (*, *, end = 20, iostat = i) s\n20 continue\n");
  EXPECT_TRUE(contains(own, "if (hpf__rank == 0) read (*, *, iostat = i) s\n")) << own;
  EXPECT_TRUE(contains(own, "if (is_iostat_end(i)) then\n    go to 20\n")) << own;
  EXPECT_FALSE(contains(own, "error stop 'READ")) << own;
}

TEST(Lower, ReplicatedRunsThatCannotBeLoweredAreRefusedWithTheLine) {
  expect_rejected(program(kSpec,
                          "  if (s > 0) then\n    forall (i = 1:100) a(i) = 1\n  else if (a(1) > 0) then\n"
                          "    s = 1\n  end if\n"),
                  {"t.f90:12:", "in an ELSE IF, CASE or ELSEWHERE"});
  expect_rejected(program(kSpec, "20 if (a(1) < 5) then\n    forall (i = 1:100) a(i) = a(i) + 1\n  end if\n"),
                  {"t.f90:10:", "in the header of a construct"});
}

} // namespace
