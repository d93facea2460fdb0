// A name for a spawned task in traces (LOCUS_TRACE, docs/observability.md):
//
//   g.spawn([&] { left(); }, locus::label("left"));
//   g.spawn(f, locus::at(1), locus::label("block"));
//   g.spawn(f, locus::parent_first, locus::label("leaf"));
//
// The trace names the task's slice by its label instead of its kind. With
// tracing off a label costs one look-up of the calling worker. A label
// is a string literal: the trace keeps the pointer, not a copy.
#pragma once

#include <cstddef>

namespace locus {

struct label {
  template <std::size_t N>
  consteval label(const char (&literal)[N]) noexcept : text(literal) {}
  const char* text;
};

}  // namespace locus
