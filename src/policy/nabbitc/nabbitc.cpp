#include "policy/nabbitc/nabbitc.hpp"

#include <atomic>
#include <charconv>
#include <exception>
#include <string>

#include "locus/errors.hpp"
#include "policy/spi/option_words.hpp"

namespace locus::detail {
namespace {

std::uint64_t parse_count(std::string_view setting, std::string_view v, std::uint64_t max) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n > max)
    throw config_error(std::string(setting) + "=\"" + std::string(v) + "\": expected an integer from 0 to " +
                       std::to_string(max));
  return n;
}

constexpr std::uint64_t max_colored_attempts = 1000000;

std::uint32_t parse_colored_attempts(std::string_view s, std::string_view v) {
  return static_cast<std::uint32_t>(parse_count(s, v, max_colored_attempts));
}

// "unbounded", the default: the paper's (section III, "we enforce that the
// first steal a worker performs is a successful colored steal"; section
// IV's C is not bounded). A cap is ours: "auto" is 32 attempts per worker.
// A thief finds a victim whose oldest frame holds its color in about as
// many attempts as there are workers when every color hangs off the root
// (section V-C: the time to the first steal "is strictly determined by the
// number of processors"); 32 times that rarely gives up with good colors.
constexpr std::uint64_t unbounded_patience = ~std::uint64_t{0};

std::uint64_t parse_patience(std::string_view s, std::string_view v, int workers) {
  if (v == "unbounded") return unbounded_patience;
  if (v == "auto") return 32 * static_cast<std::uint64_t>(workers);
  return parse_count(s, v, std::uint64_t{1} << 40);
}

void check_patience(std::string_view s, std::string_view v) {
  if (v != "auto" && v != "unbounded") parse_count(s, v, std::uint64_t{1} << 40);
}

bool parse_by_place(std::string_view s, std::string_view v) { return parse_either(s, v, "place", "worker"); }

// handed_wait (ours, with hand-offs): "auto" is one look per worker. An
// idle thief picks one of the P - 1 others at random per attempt, so while
// the others are idle a list gets about one look per round of attempts,
// and P looks is about P attempt times: long enough for an owner that is
// running to come back to its list in most cases, short enough to keep
// the critical path moving when it is not. A stated rule, not tuned.
constexpr std::uint64_t unbounded_wait = ~std::uint64_t{0};

std::uint64_t parse_handed_wait(std::string_view s, std::string_view v, int workers) {
  if (v == "unbounded") return unbounded_wait;
  if (v == "auto") return static_cast<std::uint64_t>(workers);
  return parse_count(s, v, std::uint64_t{1} << 40);
}

void check_handed_wait(std::string_view s, std::string_view v) {
  if (v != "auto" && v != "unbounded") parse_count(s, v, std::uint64_t{1} << 40);
}

}  // namespace

nabbitc_policy::nabbitc_policy(policy_context& c)
    : policy_base(c),
      sets_(parse_by_place("colors", c.option("colors")) ? c.places().num_places : c.num_workers()),
      thieves_(static_cast<std::size_t>(c.num_workers())),
      handed_(new handed_list[static_cast<std::size_t>(sets_.colors())]),
      colored_attempts_(parse_colored_attempts("colored_attempts", c.option("colored_attempts"))),
      first_patience_(parse_patience("first_steal_patience", c.option("first_steal_patience"), c.num_workers())),
      by_place_(parse_by_place("colors", c.option("colors"))),
      hand_offs_(parse_on_off("hand_offs", c.option("hand_offs"))),
      wake_colors_(parse_on_off("wake_colors", c.option("wake_colors"))),
      tag_compute_(parse_on_off("tag_compute", c.option("tag_compute"))),
      handed_wait_(parse_handed_wait("handed_wait", c.option("handed_wait"), c.num_workers())) {
  // Every push carries the frame's color set as its deque tag (steal_if).
  for (int i = 0; i < c.num_workers(); ++i) c.worker_at(i).hooks |= hook_tag_frames;
}

nabbitc_policy::~nabbitc_policy() = default;

int nabbitc_policy::place_of_color(int color) const {
  if (by_place_) return color >= 0 && color < ctx->places().num_places ? color : -1;
  return color >= 0 && color < ctx->num_workers() ? ctx->worker_at(color).place : -1;
}

worker_view* nabbitc_policy::choose_victim(worker_view& thief) {
  const auto n = static_cast<std::uint32_t>(ctx->num_workers());
  if (n < 2) return nullptr;
  std::uint32_t v = ctx->rng(thief).below(n - 1);  // uniform over the others, as Cilk Plus
  if (v >= static_cast<std::uint32_t>(thief.id)) ++v;
  return &ctx->worker_at(static_cast<int>(v));
}

search_result nabbitc_policy::find_work(worker_view& w) {
  if (frame* f = w.deque.pop()) {
    found_work(w);
    return {f, found_at::own_deque};
  }
  if (frame* f = take_handed(w, color_of(w))) {
    ctx->count(w, hand_off_takes);
    found_work(w);
    return {f, found_at::policy};
  }
  if (frame* f = ctx->take_root(w)) {
    found_work(w);
    return {f, found_at::roots};
  }
  worker_view* victim = choose_victim(w);
  if (victim == nullptr || !ctx->steal_attempt(w, *victim)) return {};
  thief_state& me = thieves_[static_cast<std::size_t>(w.id)];
  // Section III: colored attempts first, each time the worker runs out of
  // work; only colored ones until the first steal (unbounded by default,
  // the paper's; first_steal_patience caps it, ours).
  const bool first = first_steal_turn(me);
  if (colored_turn(me)) {
    const int mine = color_of(w);
    std::uint32_t seen = 0;  // the tag of the victim's oldest frame, if it has one
    bool colorless = false;
    std::uint32_t peeked = 0;  // the tag the attempt read, matched or not
    frame* f = victim->deque.steal_if([&](std::uint32_t tag) {
      colorless = false;
      peeked = tag;
      if (sets_.has(tag, mine)) return true;
      seen = tag;
      // Liveness of the unbounded first steal: a frame whose set holds no
      // worker's color (plain fork-join code: tag 0; table III's invalid
      // colors) is work no colored steal can ever take, so waiting for it
      // to hold the thief's color would wait forever. A first-steal attempt
      // takes it; that is not the worker's first (colored) steal. Table III
      // reports NabbitC with invalid colors within noise of Nabbit, so the
      // paper's runtime balanced such frames too.
      colorless = first && sets_.some_color(tag, 0) < 0;
      return colorless;
    });
    // A tag is beside the deque's slot (the steal attempt's lines); a
    // side-slot set's words are one more line, written by its maker, most
    // likely the victim (section III: the thief's check of the flag array).
    if (peeked & color_sets::side_bit) ctx->charge(w, color_set_op, victim->id);
    if (f != nullptr && colorless) {
      ctx->stole(w);
      ctx->count(w, colorless_steals);
      ctx->trace(w, "colorless steal", victim->id);
      me.last_colored = false;
      found_work(w);
      return {f, found_at::steal};
    }
    if (f != nullptr) {
      ctx->stole(w);
      ctx->count(w, colored_steals);
      ctx->trace(w, "colored steal", victim->id);
      me.stolen = true;
      me.last_colored = true;
      found_work(w);
      return {f, found_at::steal};
    }
    // A node handed to a busy place-mate: local by the section V-B
    // measure, so a colored attempt may take it (with colors by place the
    // place's list is the thief's own, already looked at).
    if (victim->place == w.place && !by_place_)
      if (frame* f = take_handed(w, color_of(*victim))) {
        ctx->stole(w);
        ctx->count(w, place_mate_takes);
        me.stolen = true;
        me.last_colored = true;
        found_work(w);
        return {f, found_at::steal};
      }
    if (frame* f = take_stale(w, *victim)) return {f, found_at::steal};
    ctx->count(w, colored_misses);
    if (wake_colors_ && seen != 0) wake_color(w, seen);  // ours (option wake_colors)
    colored_miss(w, me);
    return {};
  }
  me.misses = 0;  // the random attempt of section III, then colored ones again
  // The deque only: a random attempt that also took handed nodes measured
  // worse than none (most of them went to idle workers of other places,
  // docs/benchmarks.md); a handed node waits for a worker of its place,
  // until its list's wait runs out (take_stale).
  if (frame* f = victim->deque.steal()) {
    ctx->stole(w);
    ctx->count(w, random_steals);
    me.stolen = true;
    me.last_colored = false;
    return {f, found_at::steal};
  }
  if (frame* f = take_stale(w, *victim)) return {f, found_at::steal};
  return {};
}

void nabbitc_policy::colored_miss(worker_view& w, thief_state& me) {
  ++me.misses;
  if (!me.stolen && ++me.first_attempts == first_patience_) ctx->count(w, first_steal_giveups);
}

// Each skipped round was one failed attempt, advanced by find_work's own
// rule (colored_turn, colored_miss); not counted in colored_misses, which
// counts the attempts made.
void nabbitc_policy::skipped_rounds(worker_view& w, std::uint64_t rounds) {
  thief_state& me = thieves_[static_cast<std::size_t>(w.id)];
  for (; rounds > 0; --rounds) {
    if (colored_turn(me)) colored_miss(w, me);
    else me.misses = 0;  // the random attempt
  }
}

std::uint32_t nabbitc_policy::tag_of_set(const int* colors, std::size_t n) {
  const std::uint32_t tag = sets_.make(colors, n);
  if (tag & color_sets::side_bit) charge_set(last_set_user_.load(std::memory_order_relaxed));
  return tag;
}

void nabbitc_policy::release(std::uint32_t tag) {
  sets_.release(tag);
  if (tag & color_sets::side_bit) charge_set(last_set_user_.load(std::memory_order_relaxed));
}

void nabbitc_policy::charge_set(int other) {
  worker_view* w = current_worker();
  // Not while an exception unwinds (release() runs in next_colors'
  // destructor): the simulator may switch workers at a charge, and the
  // exception state is the thread's, which its workers share.
  if (w == nullptr || std::uncaught_exceptions() != 0) return;
  last_set_user_.store(w->id, std::memory_order_relaxed);
  ctx->charge(*w, color_set_op, other == w->id ? -1 : other);
}

frame* nabbitc_policy::take_stale(worker_view& w, worker_view& victim) {
  if (!hand_offs_ || handed_wait_ == unbounded_wait) return nullptr;
  const int c = color_of(victim);
  if (c == color_of(w)) return nullptr;  // the thief's own list: looked at first
  handed_list& list = handed_[static_cast<std::size_t>(c)];
  if (list.count.load(std::memory_order_acquire) <= 0) return nullptr;
  // Looks since the list was last empty: past the wait, every look takes.
  if (list.looks.fetch_add(1, std::memory_order_relaxed) + 1 < handed_wait_) return nullptr;
  frame* f = take_handed(w, c);
  if (f == nullptr) return nullptr;
  ctx->stole(w);
  ctx->count(w, stale_takes);
  ctx->trace(w, "stale take", victim.id);
  thief_state& me = thieves_[static_cast<std::size_t>(w.id)];
  me.last_colored = false;
  found_work(w);
  return f;
}

bool nabbitc_policy::has_work_for(worker_view& w) {
  // The last look of a worker about to sleep: seq_cst, pairs with hand_off.
  return handed_[static_cast<std::size_t>(color_of(w))].count.load(std::memory_order_seq_cst) > 0;
}

bool nabbitc_policy::hand_off(worker_view& w, frame* f, int color) {
  if (place_of_color(color) < 0) return false;
  handed_list& list = handed_[static_cast<std::size_t>(color)];
  ctx->charge(w, handoff_op, list.last_user.exchange(w.id, std::memory_order_relaxed));
  {
    std::lock_guard lock(list.mutex);
    if (list.frames.empty()) list.looks.store(0, std::memory_order_relaxed);  // a new wait begins
    list.frames.push_back(f);
    // Under the lock, so that count is the list's length whenever the lock
    // is free; seq_cst for the sleepers (handed_list).
    list.count.fetch_add(1, std::memory_order_seq_cst);
  }
  ctx->count(w, hand_offs);
  ctx->trace(w, "hand off", by_place_ ? -1 : color);
  wake_one_of(w, color);
  return true;
}

frame* nabbitc_policy::take_handed(worker_view& w, int color) {
  if (color < 0 || color >= num_colors()) return nullptr;
  handed_list& list = handed_[static_cast<std::size_t>(color)];
  if (list.count.load(std::memory_order_acquire) <= 0) return nullptr;
  // Charged before the lock: the simulator may switch workers at a charge.
  ctx->charge(w, handoff_op, list.last_user.exchange(w.id, std::memory_order_relaxed));
  std::lock_guard lock(list.mutex);
  if (list.frames.empty()) return nullptr;  // another taker was first
  frame* f = list.frames.front();  // the oldest: the wavefront advances in order
  list.frames.pop_front();
  list.count.fetch_sub(1, std::memory_order_relaxed);
  if (list.frames.empty()) list.looks.store(0, std::memory_order_relaxed);
  return f;
}

void nabbitc_policy::wake_one_of(worker_view& w, int c) {
  if (!by_place_) {
    if (c < ctx->num_workers()) ctx->wake(ctx->worker_at(c));
    return;
  }
  const auto& members = ctx->places().place_workers[static_cast<std::size_t>(c)];
  if (!members.empty())
    ctx->wake(ctx->worker_at(members[ctx->rng(w).below(static_cast<std::uint32_t>(members.size()))]));
}

void nabbitc_policy::wake_color(worker_view& w, std::uint32_t tag) {
  const int c = sets_.some_color(tag, static_cast<std::uint32_t>(ctx->rng(w).below(static_cast<std::uint32_t>(num_colors()))));
  if (c < 0) return;
  ctx->count(w, color_wakes);
  wake_one_of(w, c);
}

policy_entry nabbitc_entry() {
  return {
      .name = "nabbitc",
      .make = &make_policy_of<nabbitc_policy>,
      .options = {{.name = "colored_attempts",
                   .env = "LOCUS_COLORED_ATTEMPTS",
                   .accepted = "an integer from 0 to 1000000",
                   .default_value = "4",
                   .help = "colored steal attempts before one random attempt (section III: 'a constant number')",
                   .check = [](std::string_view s, std::string_view v) { parse_colored_attempts(s, v); }},
                  {.name = "first_steal_patience",
                   .env = "LOCUS_FIRST_STEAL_PATIENCE",
                   .accepted = "unbounded, auto (32 per worker) or an integer from 0 to 2^40",
                   .default_value = "unbounded",
                   .help = "colored attempts a worker makes for its first steal before it takes any frame "
                           "(unbounded: the paper's, section III; a cap is ours)",
                   .check = &check_patience},
                  {.name = "colors",
                   .env = "LOCUS_NABBITC_COLORS",
                   .accepted = "worker or place",
                   .default_value = "worker",
                   .help = "a worker's color: its id (the paper's) or its place's index",
                   .check = [](std::string_view s, std::string_view v) { parse_by_place(s, v); }},
                  {.name = "hand_offs",
                   .env = "LOCUS_NABBITC_HAND_OFFS",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours: a node made ready by a worker of another color goes to its color (off, the "
                           "paper's: figure 3 alone, its readier computes it)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }},
                  {.name = "handed_wait",
                   .env = "LOCUS_NABBITC_HANDED_WAIT",
                   .accepted = "auto (one per worker), unbounded, or an integer from 0 to 2^40",
                   .default_value = "auto",
                   .help = "ours, with hand_offs=on: attempts of other workers that may find a hand-off list "
                           "waiting before any of them takes its nodes whatever their color",
                   .check = &check_handed_wait},
                  {.name = "wake_colors",
                   .env = "LOCUS_NABBITC_WAKE_COLORS",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours: a colored miss on a frame of other colors wakes a sleeping worker of one of them "
                           "(off: the paper's, which has no sleeping workers)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }},
                  {.name = "tag_compute",
                   .env = "LOCUS_NABBITC_TAG_COMPUTE",
                   .accepted = "on or off",
                   .default_value = "off",
                   .help = "ours: what a node's compute() spawns carries the node's own color (off: the paper's, "
                           "colors are set only at the library's spawns, figure 3)",
                   .check = [](std::string_view s, std::string_view v) { parse_on_off(s, v); }}},
      // In the order of nabbitc_policy::counter.
      .counters = {"colored_steals", "random_steals", "colored_misses", "first_steal_giveups", "hand_offs",
                   "hand_off_takes", "place_mate_takes", "color_wakes", "colorless_steals", "stale_takes"},
      // In the order of nabbitc_policy::cost, derived as numa-ws's mailbox
      // is (lines the other worker last wrote, plus one locked operation;
      // sim/machine_model.cpp). A hand-off deposit or take: the list's
      // mutex word (the locked operation), the std::deque's block slot
      // holding the frame, and the count beside them: 3 lines the list's
      // last user wrote. A side-slot color set: made or released under the
      // sets' mutex (the locked operation) with its free-list entry, or its
      // words read by a colored attempt: 1 line (a read is charged the
      // locked operation too, 20 cycles more than it costs). Tags of one
      // color or of colors below 30 live in the deque slot and cost nothing
      // beyond the steal attempt.
      .costs = {{.name = "nabbitc_handoff", .lines = 3}, {.name = "nabbitc_color_set", .lines = 1}},
  };
}

}  // namespace locus::detail
