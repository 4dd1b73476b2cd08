// How many random cases a test runs. Sanitizer builds (HPF_SANITIZE, which defines HPF_SANITIZED for
// the tests) run 10-50x slower, so there the randomised tests run a tenth of their cases: the normal
// build keeps the full counts, the sanitizer pass still exercises every code path.
#pragma once

namespace hpf::test {

#ifdef HPF_SANITIZED
inline constexpr int case_divisor = 10;
#else
inline constexpr int case_divisor = 1;
#endif

/// `n` random cases in a normal build, n / 10 (at least 1) under sanitizers.
constexpr int cases(int n) { return n / case_divisor > 0 ? n / case_divisor : 1; }

} // namespace hpf::test
