#include <hpf/core/memory.hpp>

#include <cstdint>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace hpf::detail {

void advise_huge_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + huge_page_bytes - 1) / huge_page_bytes * huge_page_bytes;
  const std::uintptr_t last = (begin + bytes) / huge_page_bytes * huge_page_bytes;
  if (p == nullptr || last <= first) return;
  // Advice only: a kernel without THP returns EINVAL and the pages stay small.
  (void)madvise(reinterpret_cast<void*>(first), last - first,
                MADV_HUGEPAGE); // NOLINT(performance-no-int-to-ptr)
#else
  (void)p;
  (void)bytes;
#endif
}

void* allocate_large(std::size_t bytes) {
  if (bytes < huge_page_bytes) return ::operator new(bytes);
  void* p = ::operator new (bytes, std::align_val_t{huge_page_bytes});
  advise_huge_pages(p, bytes);
  return p;
}

void free_large(void* p, std::size_t bytes) noexcept {
  if (p == nullptr) return;
  if (bytes < huge_page_bytes) {
    ::operator delete(p);
  } else {
    ::operator delete (p, std::align_val_t{huge_page_bytes});
  }
}

} // namespace hpf::detail
