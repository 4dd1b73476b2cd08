// How many random cases a test runs. Sanitizer builds (HPF_SANITIZE, which defines HPF_SANITIZED for
// the tests) run 10-50x slower, so there the randomised tests run a tenth of their cases: the normal
// build keeps the full counts, the sanitizer pass still exercises every code path.
#pragma once

// HPF_TEST_ASAN: built with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang answers
// __has_feature), which aborts on an allocation past its limit instead of failing it.
#if defined(__SANITIZE_ADDRESS__)
#define HPF_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HPF_TEST_ASAN 1
#endif
#endif

namespace hpf::test {

#ifdef HPF_SANITIZED
inline constexpr int case_divisor = 10;
#else
inline constexpr int case_divisor = 1;
#endif

/// `n` random cases in a normal build, n / 10 (at least 1) under sanitizers.
constexpr int cases(int n) { return n / case_divisor > 0 ? n / case_divisor : 1; }

} // namespace hpf::test
