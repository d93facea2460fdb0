// `example`: colored work stealing in miniature (after NabbitC, seed 004),
// the complete policy of docs/architecture.md "Adding a policy". A worker's
// color is its id modulo the `colors` option. A job the scheduler starts
// takes its worker's color into the task context, and the tasks it creates
// inherit it. A thief first peeks at a victim's oldest frame and takes it
// only if it has the thief's color (counted: colored_steals), then searches
// as ws does. With `strict`, a worker steals only within its color and
// sleeps rather than look at work it may not take.
#include <string>

#include "locus/errors.hpp"
#include "policy/spi/registry.hpp"

namespace locus::detail {
namespace {

std::uint32_t parse_colors(std::string_view setting, std::string_view v) {
  if (v.size() == 1 && v[0] >= '1' && v[0] <= '9') return static_cast<std::uint32_t>(v[0] - '0');
  throw config_error(std::string(setting) + "=\"" + std::string(v) + "\": expected the number of colors, 1 to 9");
}

class example_policy final : public policy_base {
 public:
  enum counter : int { colored_steals };
  explicit example_policy(policy_context& c)
      : policy_base(c), colors_(parse_colors("colors", c.option("colors"))), strict_(c.option("strict") == "1") {
    // on_task stamps colors (task events); pushes carry them as deque tags.
    for (int i = 0; i < c.num_workers(); ++i) c.worker_at(i).hooks |= hook_task_events | hook_tag_frames;
  }

  worker_view* choose_victim(worker_view& thief) override {
    const auto n = static_cast<std::uint32_t>(ctx->num_workers());
    if (n < 2) return nullptr;
    std::uint32_t v = ctx->rng(thief).below(n - 1);
    worker_view& victim = ctx->worker_at(static_cast<int>(v >= static_cast<std::uint32_t>(thief.id) ? v + 1 : v));
    return may_take(thief, &victim) ? &victim : nullptr;
  }

  search_result find_work(worker_view& w) override {
    // A colored attempt first: peek at the color of the victim's oldest frame.
    if (worker_view* victim = choose_victim(w); victim != nullptr && ctx->steal_attempt(w, *victim)) {
      const std::uint32_t mine = 1 + color(w);
      if (frame* f = victim->deque.steal_if([&](std::uint32_t tag) { return tag == mine; })) {
        ctx->stole(w);
        ctx->count(w, colored_steals);
        return {f, found_at::steal};
      }
    }
    return default_search(w);  // then as ws: own deque, root tasks, any frame
  }

  void on_task(worker_view& w, task_event e, const frame*) override {
    if (e == task_event::begin) w.ctx.policy[0] = 1 + color(w);  // inherited by what the task creates
  }

  bool may_take(const worker_view& w, const worker_view* owner) override {
    return !strict_ || owner == nullptr || owner == &w || color(*owner) == color(w);
  }
  bool filters_work() const override { return strict_; }

 private:
  std::uint32_t color(const worker_view& w) const { return static_cast<std::uint32_t>(w.id) % colors_; }
  std::uint32_t colors_;
  bool strict_;
};

}  // namespace

policy_entry example_entry() {
  return {.name = "example",
          .make = &make_policy_of<example_policy>,
          .options = {{"colors", "LOCUS_EXAMPLE_COLORS", "1 to 9", "2", "how many worker colors",
                       [](std::string_view s, std::string_view v) { parse_colors(s, v); }},
                      {"strict", "LOCUS_EXAMPLE_STRICT", "0 or 1", "0", "1: steal only within a color",
                       [](std::string_view s, std::string_view v) {
                         if (v != "0" && v != "1")
                           throw config_error(std::string(s) + "=\"" + std::string(v) + "\": expected 0 or 1");
                       }}},
          .counters = {"colored_steals"}};
}

// Registered when the test program starts: the one line a built-in policy
// has in src/policy/registry.cpp.
const bool example_registered = (register_policy(example_entry()), true);

}  // namespace locus::detail
