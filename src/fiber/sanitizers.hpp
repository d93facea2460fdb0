// Fiber-switch annotations for AddressSanitizer and ThreadSanitizer. Without
// a sanitizer every function here compiles to nothing.
#pragma once

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
#define LOCUS_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define LOCUS_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCUS_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define LOCUS_TSAN 1
#endif
#endif

#ifdef LOCUS_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef LOCUS_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace locus::detail::sanitizers {

#ifdef LOCUS_ASAN
inline constexpr bool address_sanitizer = true;
#else
inline constexpr bool address_sanitizer = false;
#endif

#ifdef LOCUS_TSAN
inline constexpr bool thread_sanitizer = true;
#else
inline constexpr bool thread_sanitizer = false;
#endif

inline void* create_fiber() {
#ifdef LOCUS_TSAN
  return __tsan_create_fiber(0);
#else
  return nullptr;
#endif
}

inline void destroy_fiber([[maybe_unused]] void* f) {
#ifdef LOCUS_TSAN
  if (f != nullptr) __tsan_destroy_fiber(f);
#endif
}

inline void* current_fiber() {
#ifdef LOCUS_TSAN
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}

// Before jumping: `fake_stack_save` is null when the fiber we leave is done;
// ASan then destroys that fiber's fake stack (where it keeps the frames of
// functions whose locals' addresses escape, with detect_stack_use_after_return)
// at once, before the jump: nothing the next fiber reads may live there
// (see switch_fiber).
inline void start_switch([[maybe_unused]] void** fake_stack_save, [[maybe_unused]] const void* to_bottom,
                         [[maybe_unused]] std::size_t to_size, [[maybe_unused]] void* to_tsan) {
#ifdef LOCUS_ASAN
  __sanitizer_start_switch_fiber(fake_stack_save, to_bottom, to_size);
#endif
#ifdef LOCUS_TSAN
  __tsan_switch_to_fiber(to_tsan, 0);
#endif
}

// After arriving.
inline void finish_switch([[maybe_unused]] void* fake_stack) {
#ifdef LOCUS_ASAN
  const void* from_bottom = nullptr;
  std::size_t from_size = 0;
  __sanitizer_finish_switch_fiber(fake_stack, &from_bottom, &from_size);
#endif
}

inline void unpoison([[maybe_unused]] void* p, [[maybe_unused]] std::size_t n) {
#ifdef LOCUS_ASAN
  __asan_unpoison_memory_region(p, n);
#endif
}

}  // namespace locus::detail::sanitizers
