#include "util/rank_path.hpp"

#include <cstdlib>

namespace locus::detail {

int launcher_rank() noexcept {
  for (const char* variable : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* text = std::getenv(variable);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    const long rank = std::strtol(text, &end, 10);
    if (*end == '\0' && rank >= 0 && rank < (1L << 30)) return static_cast<int>(rank);
  }
  return 0;
}

std::string with_rank(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '%' && i + 1 < path.size() && path[i + 1] == 'r') {
      out += std::to_string(launcher_rank());
      ++i;
    } else {
      out += path[i];
    }
  }
  return out;
}

}  // namespace locus::detail
