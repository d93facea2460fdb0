// A string as a JSON string literal, quoted and escaped as every JSON
// writer of locus escapes it (stats, traces, locus-topo), for the
// programs' own JSON (locus-bench's records). Part of locus::support.
#pragma once

#include <string>
#include <string_view>

namespace locus_support {

std::string json_string(std::string_view s);

}  // namespace locus_support
