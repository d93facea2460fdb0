// The bytes tasks declare with locus::touch and locus::touch_indexed,
// counted per OS thread when no simulator hears them: a footprint the
// program states rather than one measured (cats's `declared` miss source,
// for machines without hardware counters). Off unless a policy asks; the
// inline test in touch() is the same one load either way.
#pragma once

#include <cstdint>

namespace locus::detail {

// The simulator starts or stops (sim_engine).
void set_simulating(bool on) noexcept;
// A user of declared bytes starts (true) or stops (false); counted, so that
// touch() is heard while any user runs.
void count_declared_bytes(bool on) noexcept;
// Bytes declared on the calling thread so far (while counting).
std::uint64_t declared_bytes_on_this_thread() noexcept;

}  // namespace locus::detail
