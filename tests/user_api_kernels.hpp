// The user-API constructs' test programs (issue 45), written once and
// compiled twice: by test_user_api.cpp as they are, and by
// user_api_serial.cpp under LOCUS_SERIAL_ELISION, where each construct is
// plain calls. Each returns what the test compares with a serial answer.
#pragma once

#include <algorithm>
#include <atomic>
#include <numeric>
#include <random>
#include <cstdint>
#include <deque>
#include <ranges>
#include <functional>
#include <stdexcept>
#include <thread>
#include <string>
#include <utility>
#include <vector>

#include "locus/locus.hpp"

namespace user_api {

// What cancellation_counts() (below) saw; one type for both compilations.
struct cancel_counts {
  long from_child, queued, after_cancel, canceling_after_sync, reused, loop_indices;
  std::string error;
};

// Named after how the constructs compile (par or serial_elision), so the two
// translation units' inline functions are different functions (no ODR clash).
inline namespace LOCUS_CONSTRUCTS_NS {

inline long fib_by_join(int n) {
  if (n < 2) return n;
  auto [a, b] = locus::join([n] { return fib_by_join(n - 1); }, [n] { return fib_by_join(n - 2); });
  return a + b;
}

// parallel_invoke over 1..7 callables: each writes its own slot.
inline std::vector<int> invoke_slots() {
  std::vector<int> slots(28, 0);
  auto mark = [&](int first, int count) {
    for (int i = 0; i < count; ++i) slots[static_cast<std::size_t>(first + i)] = first + i + 1;
  };
  locus::parallel_invoke([&] { mark(0, 1); });
  locus::parallel_invoke([&] { mark(1, 1); }, [&] { mark(2, 1); });
  locus::parallel_invoke([&] { mark(3, 1); }, [&] { mark(4, 1); }, [&] { mark(5, 1); });
  locus::parallel_invoke([&] { mark(6, 1); }, [&] { mark(7, 1); }, [&] { mark(8, 1); }, [&] { mark(9, 1); },
                         [&] { mark(10, 1); }, [&] { mark(11, 1); }, [&] { mark(12, 1); });
  // Nested, with a callable that is an lvalue and one that is mutable.
  auto lvalue = [&] { mark(13, 5); };
  int calls = 0;
  locus::parallel_invoke(lvalue, [&, calls]() mutable { mark(18, 5 + calls++); },
                         [&] { locus::parallel_invoke([&] { mark(23, 2); }, [&] { mark(25, 3); }); });
  return slots;
}

// Which exception parallel_invoke and join rethrow: the leftmost's.
inline std::string invoke_error() {
  try {
    locus::parallel_invoke([] {}, [] { throw std::runtime_error("second"); }, [] {},
                           [] { throw std::runtime_error("fourth"); });
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "nothing thrown";
}

inline std::string join_error() {
  try {
    auto r = locus::join([]() -> int { throw std::runtime_error("left"); }, []() -> int { throw std::runtime_error("right"); });
    (void)r;
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "nothing thrown";
}

// join of move-only and non-default-constructible results.
struct no_default {
  explicit no_default(int v) : value(v) {}
  int value;
};

inline std::pair<std::string, int> join_kinds() {
  auto [text, nd] = locus::join([] { return std::string(100, 'x'); }, [] { return no_default{7}; });
  return {text, nd.value};
}

// Loops over what programs have: a loop from an int to a size_t, a reduce
// over mixed types, for_each over iterators and ranges, 2-D loops. Returns
// a checksum the test compares with the serial formula.
inline std::vector<long> loops_over_containers() {
  std::vector<long> out;
  std::vector<int> v(1000);
  locus::parallel_for(0, v.size(), [&](std::int64_t i) { v[static_cast<std::size_t>(i)] = static_cast<int>(i); });
  out.push_back(locus::parallel_reduce(
      0u, static_cast<long long>(v.size()), 0L,
      [&](std::int64_t lo, std::int64_t hi, long acc) {
        for (auto i = lo; i < hi; ++i) acc += v[static_cast<std::size_t>(i)];
        return acc;
      },
      [](long a, long b) { return a + b; }));
  locus::parallel_for_each(v.begin(), v.end(), [](int& x) { x *= 2; });
  std::deque<long> d(777, 1);
  locus::parallel_for_each(d, [](long& x) { x += 2; });
  std::atomic<long> iota_sum{0};
  locus::parallel_for_each(std::views::iota(0, 500), [&](int x) { iota_sum += x; });
  long v_sum = 0, d_sum = 0;
  for (int x : v) v_sum += x;
  for (long x : d) d_sum += x;
  out.push_back(v_sum);
  out.push_back(d_sum);
  out.push_back(iota_sum.load());
  return out;
}

// Every cell of a rows x cols space visited once, by cells and by blocks no
// larger than the grains; returns {cells visited wrongly, largest block
// rows, largest block cols}.
inline std::vector<long> loop_2d(long rows, long cols, long row_grain, long col_grain) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(rows * cols));
  locus::parallel_for_2d(0, rows, 0, cols, [&](std::int64_t i, std::int64_t j) { hits[static_cast<std::size_t>(i * cols + j)]++; });
  std::atomic<long> max_rows{0}, max_cols{0};
  locus::parallel_for_2d(0, rows, 0, cols, row_grain, col_grain,
                         [&](std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
                           for (auto i = r0; i < r1; ++i)
                             for (auto j = c0; j < c1; ++j) hits[static_cast<std::size_t>(i * cols + j)]++;
                           long r = r1 - r0, c = c1 - c0;
                           for (long m = max_rows.load(); r > m && !max_rows.compare_exchange_weak(m, r);) {
                           }
                           for (long m = max_cols.load(); c > m && !max_cols.compare_exchange_weak(m, c);) {
                           }
                         });
  long wrong = 0;
  for (auto& h : hits) wrong += h.load() != 2;
  return {wrong, max_rows.load(), max_cols.load()};
}

// combinable: counts made in a loop, in tasks that move between a local()
// before a sync and one after, and from threads outside the pool; returns
// {evens, increments, slots used, thread total, a default-initialized
// combine, init-made value}.
inline std::vector<long> combinable_counts() {
  locus::combinable<long> evens;
  locus::parallel_for(0, 100000, [&](std::int64_t i) {
    if (i % 2 == 0) ++evens.local();
  });
  locus::combinable<long> increments;
  locus::task_group outer;
  for (int child = 0; child < 64; ++child)
    outer.spawn([&] {
      ++increments.local();  // the slot of the worker running now
      locus::task_group inner;
      for (int k = 0; k < 4; ++k) inner.spawn([&] { ++increments.local(); });
      inner.sync();           // may resume on another worker:
      ++increments.local();   // local() again, never the reference from before
    });
  outer.sync();
  long slots = 0;
  increments.combine_each([&](long) { ++slots; });
  locus::combinable<long> by_threads(std::function<long()>([] { return 100L; }));
  std::thread a([&] { by_threads.local() += 1; });
  std::thread b([&] { by_threads.local() += 2; });
  a.join();
  b.join();
  bool existed = true;
  by_threads.local(existed);  // this thread's first use
  locus::combinable<long> untouched;
  return {evens.combine(std::plus<>()),
          increments.combine(std::plus<>()),
          slots,
          by_threads.combine(std::plus<>()),
          untouched.combine(std::plus<>()),
          existed ? 1L : 0L};
}

// A floating-point sum whose last bits depend on the order of additions
// (terms of very different magnitudes), reduced deterministically.
inline double deterministic_sum() {
  auto term = [](std::int64_t i) { return (i % 3 == 0 ? 1e10 : 1e-6) / static_cast<double>(i + 1); };
  return locus::parallel_deterministic_reduce(
      0, 1'000'003, 1000, 0.0,
      [&](std::int64_t lo, std::int64_t hi, double acc) {
        for (auto i = lo; i < hi; ++i) acc += term(i);
        return acc;
      },
      [](double a, double b) { return a + b; });
}

// parallel_sort on inputs that trouble quicksorts; "" when every result
// equals std::sort's, else what differed.
inline std::string sort_problems() {
  std::mt19937_64 random(7);
  auto check = [&](std::vector<long> v, const char* what, auto comp) -> std::string {
    std::vector<long> expected = v;
    std::sort(expected.begin(), expected.end(), comp);
    locus::parallel_sort(v.begin(), v.end(), comp);
    return v == expected ? "" : std::string(what) + " differs; ";
  };
  std::string problems;
  for (const std::size_t n : {0u, 1u, 2u, 2047u, 2049u, 100'000u}) {
    std::vector<long> v(n);
    for (auto& x : v) x = static_cast<long>(random() % 1'000'000);
    problems += check(v, "random", std::less<>());
    problems += check(v, "random, descending", std::greater<>());
    std::vector<long> few(n);
    for (auto& x : few) x = static_cast<long>(random() % 3);
    problems += check(few, "three keys", std::less<>());
    std::vector<long> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    problems += check(sorted, "sorted", std::less<>());
    problems += check(std::vector<long>(sorted.rbegin(), sorted.rend()), "reversed", std::less<>());
    problems += check(std::vector<long>(n, 42), "all equal", std::less<>());
  }
  std::vector<std::string> words;
  for (int i = 0; i < 10'000; ++i) words.push_back(std::to_string(random() % 5000));
  std::vector<std::string> expected = words;
  std::sort(expected.begin(), expected.end());
  locus::parallel_sort(words);
  if (words != expected) problems += "strings differ; ";
  return problems;
}

// Scans against std::inclusive_scan / exclusive_scan: sums of ints, and the
// composition of affine maps x -> a x + b (mod 2^32), associative but not
// commutative; in place too. "" when all agree.
struct affine {
  std::uint32_t a = 1, b = 0;
  bool operator==(const affine&) const = default;
};
inline affine then(affine f, affine g) { return {f.a * g.a, f.b * g.a + g.b}; }  // g after f

inline std::string scan_problems() {
  std::mt19937_64 random(11);
  std::string problems;
  auto compose = [](affine f, affine g) { return then(f, g); };
  for (const std::size_t n : {0u, 1u, 4095u, 3u * 4096u + 7u, 100'003u}) {
    std::vector<long> x(n), got(n), want(n);
    for (auto& v : x) v = static_cast<long>(random() % 1000) - 500;
    locus::inclusive_scan(x.begin(), x.end(), got.begin());
    std::inclusive_scan(x.begin(), x.end(), want.begin());
    if (got != want) problems += "inclusive sum n=" + std::to_string(n) + "; ";
    locus::exclusive_scan(x.begin(), x.end(), got.begin(), 17L);
    std::exclusive_scan(x.begin(), x.end(), want.begin(), 17L);
    if (got != want) problems += "exclusive sum n=" + std::to_string(n) + "; ";
    std::vector<long> in_place = x;
    const auto end = locus::inclusive_scan(in_place.begin(), in_place.end(), in_place.begin());
    std::inclusive_scan(x.begin(), x.end(), want.begin());
    if (in_place != want || end != in_place.end()) problems += "in place n=" + std::to_string(n) + "; ";
    std::vector<affine> maps(n), got_maps(n), want_maps(n);
    for (auto& m : maps) m = {static_cast<std::uint32_t>(random()) | 1u, static_cast<std::uint32_t>(random())};
    locus::inclusive_scan(maps.begin(), maps.end(), got_maps.begin(), compose);
    std::inclusive_scan(maps.begin(), maps.end(), want_maps.begin(), compose);
    if (got_maps != want_maps) problems += "inclusive affine n=" + std::to_string(n) + "; ";
    locus::exclusive_scan(maps.begin(), maps.end(), got_maps.begin(), affine{3, 4}, compose);
    std::exclusive_scan(maps.begin(), maps.end(), want_maps.begin(), affine{3, 4}, compose);
    if (got_maps != want_maps) problems += "exclusive affine n=" + std::to_string(n) + "; ";
  }
  return problems;
}

// Cancellation. Returns {children run of 100 canceled from child 10 (work-
// first), parent-first children run of 100 canceled before sync, children
// run of 5 spawned after cancel, canceling after sync (0/1), children run
// when the group is used again, loop indices run before index 1000 stops
// the loop, the exception's text (a child throws and cancels)}.
inline cancel_counts cancellation_counts() {
  cancel_counts r{};
  std::atomic<long> ran{0};
  {
    locus::task_group g;
    for (int k = 0; k < 100; ++k)
      g.spawn([&, k] {
        ++ran;
        if (k == 10) g.cancel();
      });
    g.sync();
    r.from_child = ran.exchange(0);
  }
  {
    locus::task_group g;
    for (int k = 0; k < 100; ++k) g.spawn([&] { ++ran; }, locus::parent_first);
    g.cancel();
    g.sync();
    r.queued = ran.exchange(0);
    g.cancel();
    for (int k = 0; k < 5; ++k) g.spawn([&] { ++ran; });
    g.enqueue([&] { ++ran; });
    r.after_cancel = ran.exchange(0);
    g.sync();
    r.canceling_after_sync = g.is_canceling() ? 1 : 0;
    for (int k = 0; k < 7; ++k) g.spawn([&] { ++ran; }, locus::parent_first);
    g.sync();
    r.reused = ran.exchange(0);
  }
  locus::cancellation stop;
  locus::parallel_for(0, 1'000'000, [&](std::int64_t i) {
    ++ran;
    if (i == 1000) stop.cancel();
  }, stop);
  r.loop_indices = ran.exchange(0);
  try {
    locus::task_group g;
    for (int k = 0; k < 50; ++k)
      g.spawn([&, k] {
        if (k == 3) {
          g.cancel();
          throw std::runtime_error("child 3");
        }
      });
    g.sync();
  } catch (const std::runtime_error& e) {
    r.error = e.what();
  }
  return r;
}

}  // namespace LOCUS_CONSTRUCTS_NS
}  // namespace user_api
