// locus_support/json.hpp: the runtime's JSON string escaping.
#include "locus_support/json.hpp"

#include "util/json_string.hpp"

namespace locus_support {

std::string json_string(std::string_view s) { return locus::detail::json_string(s); }

}  // namespace locus_support
