// The scheduler's part of LOCUS_SPAN (span.cpp): a root's measure opens
// when a worker starts it and is added to the pool's totals when it ends.
#pragma once

namespace locus::detail {

struct worker;
void span_root_begin(worker& w);
void span_root_end(worker& w);

}  // namespace locus::detail
