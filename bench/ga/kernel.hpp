// An island-model genetic algorithm, the GA control of CATS (seed 002,
// Table 1 and section 4.3). It minimizes the Rastrigin function
// 10 d + sum (x_i^2 - 10 cos(2 pi x_i)) over [-5.12, 5.12]^d, i.e. maximizes
// its negative, the fitness.
//
// Each island evolves its own population for `interval` generations at a time
// (an epoch): elitism (the best individual is kept), two binary tournaments
// per child, uniform crossover, and per gene a mutation with probability 1/d
// (a uniform step of at most +-0.5, clamped to the domain). The islands of an
// epoch run in parallel (bench::row_tree_run over the islands, one per leaf).
// Between epochs, at fixed points, the islands migrate around a ring: each
// island's `migrants` best individuals replace the worst of the next
// island's (posted at the end of an island's epoch, taken at the start of
// the next island's next epoch, through two outbox buffers). Every island draws from its own generator
// (splitmix64, seeded from the island's number), which only its own task
// advances, and ties are broken by index, so the result does not depend on
// the schedule: every variant evolves the same populations as the serial
// one, bit for bit.
//
// For the simulator (README.md) an island's epoch declares its populations,
// fitness and generator (written) and a fixed number of cycles per
// generation; nothing depends on the schedule.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

#include <locus/annotate.hpp>

#include "common/annotations.hpp"
#include "common/row_tree.hpp"
#include "common/splitmix64.hpp"

namespace ga {

struct shape {
  std::int64_t islands;
  std::int64_t population;   // individuals per island (at least 2)
  std::int64_t genes;        // d, the dimension
  std::int64_t generations;  // in all
  std::int64_t interval;     // generations between migrations
  std::int64_t migrants;     // individuals each island sends per migration (below population, at most max_migrants)
};

inline constexpr std::int64_t max_migrants = 64;
inline constexpr double domain = 5.12;
inline constexpr double step = 1.0;  // a mutation moves a gene by at most step / 2

// Cycles (one per arithmetic operation or comparison, docs/benchmarks.md):
// a draw of splitmix64 (an add, three xor-shifts, two multiplies) and its
// conversion: 8; a gene's fitness term: cos (counted as 20), the scaling
// by 2 pi, x^2 and the multiply-add, the sum: 24; a gene of a child: three
// draws (crossover, mutation test, mutation step) and the choice, the step
// and the clamp (4); a tournament: two draws and a comparison.
inline constexpr std::uint64_t draw_cycles = 8;
inline constexpr std::uint64_t term_cycles = 24;
inline constexpr std::uint64_t breed_gene_cycles = 3 * draw_cycles + 4;
inline constexpr std::uint64_t tournament_cycles = 2 * draw_cycles + 1;

inline std::uint64_t generation_cycles(const shape& s) {
  const auto pop = static_cast<std::uint64_t>(s.population), d = static_cast<std::uint64_t>(s.genes);
  return pop                                                    // the elite's search
         + (pop - 1) * (2 * tournament_cycles + d * breed_gene_cycles)  // the children
         + pop * d * term_cycles;                               // their fitness
}

// An island's random draws (bench/common/splitmix64.hpp).
using generator = bench::splitmix64;

// An island's generator and which of its two population buffers is current,
// on a cache line of its own.
struct alignas(64) island_state {
  generator random;
  std::int64_t current;
};

// The state of every island; the arrays belong to the caller.
struct world {
  shape s;
  double* genomes;      // per island two populations of population x genes, current and next
  double* fitness;      // per island population values, of the current population
  double* outbox;       // two buffers (epochs in turn) of, per island, migrants x (genes + 1): genomes, then fitness
  island_state* state;  // per island
};

inline double fitness_of(const double* x, std::int64_t genes) {
  double sum = 10.0 * static_cast<double>(genes);
  for (std::int64_t g = 0; g < genes; ++g) sum += x[g] * x[g] - 10.0 * std::cos(2.0 * std::numbers::pi * x[g]);
  return -sum;
}

// Island i's population buffer b (0 or 1) and its fitness.
inline double* population(const world& w, std::int64_t i, std::int64_t b) {
  return w.genomes + (2 * i + b) * w.s.population * w.s.genes;
}
inline double* fitness(const world& w, std::int64_t i) { return w.fitness + i * w.s.population; }
inline double* current(const world& w, std::int64_t i) { return population(w, i, w.state[i].current); }

// Whether individual a ranks before b: fitter, or as fit and first.
inline bool ranks_before(const double* fit, std::int64_t a, std::int64_t b) {
  return fit[a] > fit[b] || (fit[a] == fit[b] && a < b);
}

// The individual of rank r (0: the best) in the order ranks_before, found
// by r + 1 scans (r is small: a migrant's rank), from the top (best) or the
// bottom (worst).
inline std::int64_t ranked(const double* fit, std::int64_t n, std::int64_t r, bool from_top) {
  std::int64_t pick = -1;
  for (std::int64_t k = 0; k <= r; ++k) {
    std::int64_t next = -1;
    for (std::int64_t j = 0; j < n; ++j) {
      // j must lie strictly beyond the previous pick, in the scan's direction.
      if (pick >= 0 && (from_top ? !ranks_before(fit, pick, j) : !ranks_before(fit, j, pick))) continue;
      if (next < 0 || (from_top ? ranks_before(fit, j, next) : ranks_before(fit, next, j))) next = j;
    }
    pick = next;
  }
  return pick;
}
inline std::uint64_t ranked_cycles(const shape& s) {
  return static_cast<std::uint64_t>(s.migrants * (s.migrants + 1) / 2 * s.population * 2);
}

// The fitness of island i's current population.
inline void evaluate(const world& w, std::int64_t i) {
  const shape& s = w.s;
  const double* pop = current(w, i);
  double* fit = fitness(w, i);
  bench::touch_n(pop, s.population * s.genes, locus::access::read);
  bench::touch_n(fit, s.population, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(s.population * s.genes) * term_cycles);
  for (std::int64_t j = 0; j < s.population; ++j) fit[j] = fitness_of(pop + j * s.genes, s.genes);
}

inline std::int64_t tournament(generator& random, const double* fit, std::int64_t n) {
  const std::int64_t a = random.below(n), b = random.below(n);
  return ranks_before(fit, b, a) ? b : a;
}

// `count` generations of island i.
inline void evolve(const world& w, std::int64_t i, std::int64_t count) {
  const shape& s = w.s;
  island_state& st = w.state[i];
  bench::touch_n(population(w, i, 0), 2 * s.population * s.genes, locus::access::write);
  bench::touch_n(fitness(w, i), s.population, locus::access::write);
  bench::touch_n(&st, 1, locus::access::write);
  locus::compute(static_cast<std::uint64_t>(count) * generation_cycles(s));
  const double mutation = 1.0 / static_cast<double>(s.genes);
  double* fit = fitness(w, i);
  for (std::int64_t generation = 0; generation < count; ++generation) {
    const double* from = population(w, i, st.current);
    double* to = population(w, i, 1 - st.current);
    const std::int64_t elite = ranked(fit, s.population, 0, true);
    std::copy(from + elite * s.genes, from + (elite + 1) * s.genes, to);
    for (std::int64_t j = 1; j < s.population; ++j) {
      const double* a = from + tournament(st.random, fit, s.population) * s.genes;
      const double* b = from + tournament(st.random, fit, s.population) * s.genes;
      double* child = to + j * s.genes;
      for (std::int64_t g = 0; g < s.genes; ++g) {
        double x = st.random.uniform() < 0.5 ? a[g] : b[g];
        const bool mutate = st.random.uniform() < mutation;
        const double delta = (st.random.uniform() - 0.5) * step;
        if (mutate) x = std::clamp(x + delta, -domain, domain);
        child[g] = x;
      }
    }
    st.current = 1 - st.current;
    for (std::int64_t j = 0; j < s.population; ++j) fit[j] = fitness_of(to + j * s.genes, s.genes);
  }
}

// Island i's outbox in buffer b (0 or 1).
inline double* outbox(const world& w, std::int64_t i, std::int64_t b) {
  return w.outbox + (b * w.s.islands + i) * w.s.migrants * (w.s.genes + 1);
}

// Island i posts copies of its best `migrants` individuals (best first) in
// its outbox of buffer b.
inline void emigrate(const world& w, std::int64_t i, std::int64_t b) {
  const shape& s = w.s;
  const double* pop = current(w, i);
  const double* fit = fitness(w, i);
  double* box = outbox(w, i, b);
  bench::touch_n(pop, s.population * s.genes, locus::access::read);
  bench::touch_n(fit, s.population, locus::access::read);
  bench::touch_n(box, s.migrants * (s.genes + 1), locus::access::write);
  locus::compute(ranked_cycles(s));
  for (std::int64_t r = 0; r < s.migrants; ++r) {
    const std::int64_t j = ranked(fit, s.population, r, true);
    std::copy(pop + j * s.genes, pop + (j + 1) * s.genes, box + r * s.genes);
    box[s.migrants * s.genes + r] = fit[j];
  }
}

// Island i replaces its worst `migrants` individuals (worst first) with the
// emigrants (best first) the previous island posted in buffer b.
inline void immigrate(const world& w, std::int64_t i, std::int64_t b) {
  const shape& s = w.s;
  double* pop = current(w, i);
  double* fit = fitness(w, i);
  const double* box = outbox(w, (i + s.islands - 1) % s.islands, b);
  bench::touch_n(box, s.migrants * (s.genes + 1), locus::access::read);
  bench::touch_n(pop, s.population * s.genes, locus::access::write);
  bench::touch_n(fit, s.population, locus::access::write);
  locus::compute(ranked_cycles(s));
  // Find every slot before filling any, so a newcomer is never replaced.
  std::int64_t slots[max_migrants];
  for (std::int64_t r = 0; r < s.migrants; ++r) slots[r] = ranked(fit, s.population, r, false);
  for (std::int64_t r = 0; r < s.migrants; ++r) {
    std::copy(box + r * s.genes, box + (r + 1) * s.genes, pop + slots[r] * s.genes);
    fit[slots[r]] = box[s.migrants * s.genes + r];
  }
}
// step(i) for every island i: the islands halved by P::fork2 down to one.
template <class P, class Step>
void each_island(const world& w, const Step& step) {
  bench::row_tree_run<P>(bench::row_tree::balanced, 0, w.s.islands, 1, [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) step(i);
  });
}

// Runs the whole algorithm on w (its populations initialized, their fitness
// not yet) from the calling thread and returns the best fitness of the
// final populations. Each epoch e is one root task tree (P::run) over the
// islands, the same every epoch, whose leaf for island i takes the
// immigrants the previous island posted at the end of epoch e - 1 (in
// outbox buffer (e - 1) % 2; in epoch 0 it evaluates its initial
// population instead), evolves `interval` generations and posts its
// emigrants (in buffer e % 2; not after the last epoch). A leaf reads one
// buffer and writes the other, and an epoch's posts are read only in the
// next epoch, after the root's join. So the program is iterative as CATS
// sees one (section 3.2: the first tree is profiled, the later ones
// recognized by their spawn paths), and every leaf of every epoch is an
// island's evolution.
template <class P>
double run(const world& w) {
  const shape& s = w.s;
  std::int64_t epoch = 0;
  for (std::int64_t done = 0; done < s.generations; ++epoch) {
    const std::int64_t count = std::min(s.interval, s.generations - done);
    const bool last = done + count == s.generations;
    P::run([&] {
      each_island<P>(w, [&](std::int64_t i) {
        if (epoch == 0) evaluate(w, i);
        else if (s.migrants > 0) immigrate(w, i, (epoch - 1) % 2);
        evolve(w, i, count);
        if (!last && s.migrants > 0) emigrate(w, i, epoch % 2);
      });
    });
    done += count;
  }
  // On the calling thread, undeclared: islands x population comparisons.
  return *std::max_element(w.fitness, w.fitness + s.islands * s.population);
}

}  // namespace ga
