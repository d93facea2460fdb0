// The loop layer: automatic grain (lazy splitting), static partitions and
// loop affinity (locus/partition.hpp), on threads and under the simulator.
#include <gtest/gtest.h>

#include <atomic>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "locus/locus.hpp"

namespace {

locus::runtime_options workers(int n) {
  locus::runtime_options o;
  o.workers = n;
  return o;
}

locus::runtime_options simulated(int n) {
  locus::runtime_options o;
  o.engine = "sim";
  o.machine = "numa-ws-4x8";
  o.workers = n;
  o.seed = 7;
  return o;
}

// Every index visited exactly once.
void expect_each_once(const std::vector<std::atomic<int>>& seen) {
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i].load(), 1) << "index " << i;
}

}  // namespace

class Loops : public ::testing::TestWithParam<int> {};

TEST_P(Loops, EveryFormVisitsEachIndexOnce) {
  locus::runtime rt(workers(GetParam()));
  for (const std::int64_t n : {0, 1, 7, 1000, 100003}) {
    std::vector<std::atomic<int>> a(static_cast<std::size_t>(n)), b(a.size()), c(a.size()), d(a.size());
    auto visit = [](std::vector<std::atomic<int>>& v) { return [&v](std::int64_t i) { v[static_cast<std::size_t>(i)]++; }; };
    locus::parallel_for(std::int64_t{0}, n, visit(a));
    locus::parallel_for(std::int64_t{0}, n, visit(b), locus::static_partition);
    locus::loop_affinity aff;
    locus::parallel_for(std::int64_t{0}, n, visit(c), aff);
    locus::parallel_for(std::int64_t{0}, n, 16, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) d[static_cast<std::size_t>(i)]++;
    }, aff);
    expect_each_once(a);
    expect_each_once(b);
    expect_each_once(c);
    expect_each_once(d);
  }
}

TEST_P(Loops, ReductionsCombineInRangeOrder) {
  locus::runtime rt(workers(GetParam()));
  // String concatenation is associative but not commutative: any reordering
  // of partial results shows.
  const std::int64_t n = 3000;
  std::string expected;
  for (std::int64_t i = 0; i < n; ++i) expected += static_cast<char>('a' + i % 26);
  auto body = [](std::int64_t lo, std::int64_t hi, std::string acc) {
    for (std::int64_t i = lo; i < hi; ++i) acc += static_cast<char>('a' + i % 26);
    return acc;
  };
  auto cat = [](std::string x, std::string y) { return x + y; };
  locus::loop_affinity aff;
  EXPECT_EQ(locus::parallel_reduce(std::int64_t{0}, n, std::string(), body, cat), expected);
  EXPECT_EQ(locus::parallel_reduce(std::int64_t{0}, n, std::string(), body, cat, locus::static_partition), expected);
  for (int step = 0; step < 3; ++step)
    EXPECT_EQ(locus::parallel_reduce(std::int64_t{0}, n, std::string(), body, cat, aff), expected) << "step " << step;
  EXPECT_EQ(locus::parallel_reduce(std::int64_t{0}, n, 64, std::string(), body, cat), expected);
  EXPECT_EQ(locus::parallel_reduce(std::int64_t{5}, std::int64_t{5}, std::string("id"), body, cat, aff), "id");
}

TEST_P(Loops, ExceptionsReachTheCallerAfterEveryPieceIsDone) {
  locus::runtime rt(workers(GetParam()));
  const std::int64_t n = 4096;
  for (const std::int64_t bad : {std::int64_t{0}, n / 2, n - 1}) {
    std::atomic<std::int64_t> ran{0};
    auto body = [&](std::int64_t i) {
      ran++;
      if (i == bad) throw std::runtime_error("bad index");
    };
    locus::loop_affinity aff;
    EXPECT_THROW(locus::parallel_for(std::int64_t{0}, n, body, locus::static_partition), std::runtime_error);
    EXPECT_THROW(locus::parallel_for(std::int64_t{0}, n, body, aff), std::runtime_error);
    EXPECT_THROW(locus::parallel_for(std::int64_t{0}, n, body), std::runtime_error);
    // Each loop stops only the piece that threw; the others ran to their end.
    EXPECT_GT(ran.load(), 0);
  }
}

TEST_P(Loops, StaticPartitionRunsEachBlockWhole) {
  locus::runtime rt(workers(GetParam()));
  const int p = locus::num_workers();
  const std::int64_t n = 1000;
  std::vector<int> who(n, -1);
  for (int rep = 0; rep < 3; ++rep) {
    locus::parallel_for(std::int64_t{0}, n, [&](std::int64_t i) { who[static_cast<std::size_t>(i)] = locus::worker_id(); },
                        locus::static_partition);
    // Block k is posted to worker k, and no other worker may take it from
    // there (OpenMP's static schedule): the whole block on worker k, every
    // time, whoever is idle first.
    for (int k = 0; k < p; ++k)
      for (std::int64_t i = n * k / p; i < n * (k + 1) / p; ++i)
        ASSERT_EQ(who[static_cast<std::size_t>(i)], k) << "index " << i << ", rep " << rep;
  }
}

// Posted loops nested in fork-join recursion: a posted sub-range that
// completes a join resumes its parent on the worker that ran it, which must
// not then take a frame of its own for the parent's (a regression: the
// inbox was once checked before a non-empty own deque, and such runs hung).
namespace {
std::atomic<long> nested_total{0};
template <class Loop>
void nested(int depth, std::int64_t n, Loop& loop) {
  loop(n);
  if (depth == 0) return;
  locus::fork_join([&] { nested(depth - 1, n / 2 + 1, loop); }, [&] { nested(depth - 1, n / 3 + 1, loop); });
}
}  // namespace

TEST_P(Loops, PostedLoopsNestedInRecursionFinish) {
  locus::runtime rt(workers(GetParam()));
  auto body = [](std::int64_t lo, std::int64_t hi) { nested_total += hi - lo; };
  auto by_static = [&](std::int64_t n) { locus::parallel_for(std::int64_t{0}, n, body, locus::static_partition); };
  auto by_affinity = [&](std::int64_t n) {
    locus::loop_affinity aff;
    locus::parallel_for(std::int64_t{0}, n, std::int64_t{1}, body, aff);
  };
  long expect = 0;
  auto count = [&](auto&& self, int depth, std::int64_t n) -> void {
    expect += n;
    if (depth > 0) {
      self(self, depth - 1, n / 2 + 1);
      self(self, depth - 1, n / 3 + 1);
    }
  };
  count(count, 6, 100);
  for (int rep = 0; rep < 20; ++rep) {
    nested_total = 0;
    locus::fork_join([&] { nested(6, 100, by_static); }, [] {});
    ASSERT_EQ(nested_total.load(), expect) << "static, rep " << rep;
    nested_total = 0;
    locus::fork_join([&] { nested(6, 100, by_affinity); }, [] {});
    ASSERT_EQ(nested_total.load(), expect) << "affinity, rep " << rep;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, Loops, ::testing::Values(1, 2, 3, 8));

TEST(Loops, FromSeveralOutsideThreadsAtOnce) {
  locus::runtime rt(workers(2));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      locus::loop_affinity aff;
      for (int step = 0; step < 20; ++step) {
        const std::int64_t n = 5000 + t;
        const long s = locus::parallel_reduce(std::int64_t{0}, n, 0L,
                                              [](std::int64_t lo, std::int64_t hi, long acc) {
                                                for (std::int64_t i = lo; i < hi; ++i) acc += i;
                                                return acc;
                                              },
                                              std::plus<>(), aff);
        if (s != n * (n - 1) / 2) wrong++;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// Under the simulator (deterministic): once the mapping has settled, at
// least 90% of the sub-ranges run on the worker that ran them the step before.
class LoopAffinitySimulated : public ::testing::TestWithParam<int> {};

TEST_P(LoopAffinitySimulated, SubRangesStayWithTheirWorker) {
  locus::runtime rt(simulated(GetParam()));
  const std::int64_t n = 1 << 14;
  std::vector<double> a(static_cast<std::size_t>(n), 1.0), b(a.size());
  locus::loop_affinity aff;
  std::size_t moved = 0, pieces = 0;
  constexpr int settle = 3, steps = 20;
  for (int step = 0; step < settle + steps; ++step) {
    const double* src = step % 2 == 0 ? a.data() : b.data();
    double* dst = step % 2 == 0 ? b.data() : a.data();
    locus::parallel_for(std::int64_t{0}, n, 64, [&](std::int64_t lo, std::int64_t hi) {
      locus::touch(src + lo, static_cast<std::size_t>(hi - lo) * sizeof(double));
      locus::touch(dst + lo, static_cast<std::size_t>(hi - lo) * sizeof(double), locus::access::write);
      locus::compute(static_cast<std::uint64_t>(hi - lo) * 4);
      for (std::int64_t i = lo; i < hi; ++i) dst[i] = src[i] * 0.5 + 1.0;
    }, aff);
    if (step >= settle) {
      moved += aff.moved_last_time();
      pieces += aff.pieces();
    }
  }
  ASSERT_GT(pieces, 0u);
  const double stayed = 1.0 - static_cast<double>(moved) / static_cast<double>(pieces);
  RecordProperty("stayed", std::to_string(stayed));
  EXPECT_GE(stayed, 0.9) << moved << " of " << pieces << " sub-ranges moved (SIMULATED, numa-ws-4x8, "
                         << GetParam() << " workers)";
}

INSTANTIATE_TEST_SUITE_P(Workers, LoopAffinitySimulated, ::testing::Values(2, 8));

// Pieces taken by an idle worker follow it only up to its share: no
// worker is ever mapped more than pieces / workers (rounded up), whatever
// the OS does to the threads (oversubscribed: 4 workers on this machine's
// cores, and a body that makes some pieces slow).
TEST(LoopAffinity, NoWorkerGetsMoreThanItsShare) {
  for (const int p : {2, 3, 4}) {
    locus::runtime rt(workers(p));
    const std::int64_t n = 4096;
    std::vector<double> a(static_cast<std::size_t>(n), 1.0);
    locus::loop_affinity aff;
    for (int step = 0; step < 200; ++step) {
      locus::parallel_for(std::int64_t{0}, n, 16, [&](std::int64_t lo, std::int64_t hi) {
        const int rounds = (lo / 512 + step) % 5 == 0 ? 200 : 1;
        for (int r = 0; r < rounds; ++r)
          for (std::int64_t i = lo; i < hi; ++i) a[static_cast<std::size_t>(i)] = a[static_cast<std::size_t>(i)] * 0.5 + 0.5;
      }, aff);
      const std::size_t share = (aff.pieces() + static_cast<std::size_t>(p) - 1) / static_cast<std::size_t>(p);
      std::vector<std::size_t> mapped(static_cast<std::size_t>(p), 0);
      for (std::size_t i = 0; i < aff.pieces(); ++i) {
        const int w = aff.worker_of(i);
        ASSERT_GE(w, 0);
        ASSERT_LT(w, p);
        ++mapped[static_cast<std::size_t>(w)];
      }
      for (int w = 0; w < p; ++w)
        ASSERT_LE(mapped[static_cast<std::size_t>(w)], share) << "worker " << w << " of " << p << ", step " << step;
    }
    for (const double v : a) ASSERT_DOUBLE_EQ(v, 1.0);
  }
}

TEST(StaticPartitionSimulated, BlockKRunsOnWorkerK) {
  for (const int p : {2, 8}) {
    locus::runtime rt(simulated(p));
    const std::int64_t n = 1 << 12;
    std::vector<int> who(static_cast<std::size_t>(n), -1);
    int on_own_worker = 0, blocks = 0;
    for (int step = 0; step < 10; ++step) {
      locus::parallel_for(std::int64_t{0}, n, [&](std::int64_t lo, std::int64_t hi) {
        locus::compute(static_cast<std::uint64_t>(hi - lo) * 20);
        for (std::int64_t i = lo; i < hi; ++i) who[static_cast<std::size_t>(i)] = locus::worker_id();
      }, locus::static_partition);
      for (int k = 0; k < p; ++k, ++blocks)
        if (who[static_cast<std::size_t>(n * k / p)] == k) ++on_own_worker;
    }
    EXPECT_EQ(on_own_worker, blocks) << "SIMULATED numa-ws-4x8, " << p << " workers";
  }
}

