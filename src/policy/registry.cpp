// The registry: one line per built-in policy (policy_entry, registry.hpp).
#include "policy/spi/registry.hpp"

#include <deque>
#include <mutex>
#include <stdexcept>

#include "policy/adws/adws.hpp"
#include "policy/cats/cats.hpp"
#include "policy/multilevel/ml_adws.hpp"
#include "policy/multilevel/ml_ws.hpp"
#include "policy/multilevel/sb.hpp"
#include "policy/nabbitc/nabbitc.hpp"
#include "policy/numa_ws/numa_ws.hpp"
#include "policy/tbb_numa/tbb_numa.hpp"
#include "policy/tbb_std/tbb_std.hpp"
#include "policy/ws/ws.hpp"

namespace locus::detail {
namespace {

struct registry {
  std::mutex mutex;
  std::deque<policy_entry> entries;  // a deque: entries never move
};

void check_entry(const std::deque<policy_entry>& entries, const policy_entry& e) {
  if (e.name.empty() || e.make == nullptr)
    throw std::logic_error("register_policy: a policy needs a name and a factory");
  for (const auto& other : entries)
    if (other.name == e.name) throw std::logic_error("register_policy: a policy \"" + e.name + "\" exists already");
  if (e.counters.size() > static_cast<std::size_t>(max_policy_counters))
    throw std::logic_error("register_policy: policy \"" + e.name + "\" declares more than " +
                           std::to_string(max_policy_counters) + " counters");
}

// The built-in policies, one line each.
std::vector<policy_entry> built_in() { return {ws_entry(), numa_ws_entry(), nabbitc_entry(), adws_entry(), cats_entry(),
                                                ml_ws_entry(), ml_adws_entry(), sb_entry(), tbb_numa_entry(),
                                                tbb_std_entry()}; }

// Never destroyed: the implicit pool stops at program exit and reports its
// policy's counters by name after function-local statics may be gone.
registry& the_registry() {
  static registry& r = *new registry;
  static const bool filled = [] {
    for (auto& entry : built_in()) {
      check_entry(r.entries, entry);
      r.entries.push_back(std::move(entry));
    }
    return true;
  }();
  (void)filled;
  return r;
}

}  // namespace

std::vector<std::string> policy_names() {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> out;
  for (const auto& e : r.entries) out.push_back(e.name);
  return out;
}

const policy_entry* find_policy(std::string_view name) {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  for (const auto& e : r.entries)
    if (e.name == name) return &e;
  return nullptr;
}

std::vector<const policy_entry*> all_policies() {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  std::vector<const policy_entry*> out;
  for (const auto& e : r.entries) out.push_back(&e);
  return out;
}

void register_policy(policy_entry entry) {
  auto& r = the_registry();
  std::lock_guard lock(r.mutex);
  check_entry(r.entries, entry);
  r.entries.push_back(std::move(entry));
}

}  // namespace locus::detail
