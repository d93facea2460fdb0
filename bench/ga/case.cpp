// GA in the suite: the island model run from the same initial populations
// and generators every run; the best final fitness and a digest of every
// island's final population must equal the serial run's (made once per
// instance) exactly.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu_common/checks.hpp"
#include "ga/kernel.hpp"

namespace {

struct outcome {
  double best;           // the best final fitness
  std::uint64_t digest;  // FNV-1a of every island's final population, bit for bit
  bool operator==(const outcome&) const = default;
};
std::ostream& operator<<(std::ostream& s, const outcome& o) {
  return s << o.best << " (population digest " << std::hex << o.digest << std::dec << ")";
}

class ga_instance final : public cpu_common::value_instance<outcome> {
 public:
  explicit ga_instance(ga::shape s)
      : value_instance("best fitness", "serial gives"),
        genomes_(static_cast<std::size_t>(s.islands * 2 * s.population * s.genes)),
        fitness_(static_cast<std::size_t>(s.islands * s.population)),
        outbox_(static_cast<std::size_t>(2 * s.islands * s.migrants * (s.genes + 1))),
        state_(static_cast<std::size_t>(s.islands)),
        world_{s, genomes_.data(), fitness_.data(), outbox_.data(), state_.data()} {
    // Island i's generator starts from its own seed and draws its initial
    // population (buffer 0).
    for (std::int64_t i = 0; i < s.islands; ++i) {
      ga::island_state& st = state_[static_cast<std::size_t>(i)];
      st = {{0x5eed0000ULL + static_cast<std::uint64_t>(i) * 0x632be59bd9b4e019ULL}, 0};
      double* pop = ga::population(world_, i, 0);
      for (std::int64_t k = 0; k < s.population * s.genes; ++k)
        pop[k] = (2.0 * st.random.uniform() - 1.0) * ga::domain;
    }
    initial_genomes_ = genomes_;
    initial_state_ = state_;
    prepare();
    expected_ = evolve<bench::serial_backend>();
  }
  void prepare() override {
    value_instance::prepare();
    genomes_ = initial_genomes_;
    state_ = initial_state_;
  }
  void run(const bench::variant& v) override {
    bench::dispatch(v, [&]<class P>() { record(evolve<P>()); });
  }
  std::string summary() override {
    const ga::shape& s = world_.s;
    std::ostringstream out;
    out << s.islands << " islands x " << s.population << " individuals, " << s.generations
        << " generations: " << value_instance::summary();
    return out.str();
  }

 private:
  template <class P>
  outcome evolve() {
    const double best = ga::run<P>(world_);
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    for (std::int64_t i = 0; i < world_.s.islands; ++i) {
      const double* pop = ga::current(world_, i);
      for (std::int64_t k = 0; k < world_.s.population * world_.s.genes; ++k)
        hash = (hash ^ std::bit_cast<std::uint64_t>(pop[k])) * 0x100000001b3ULL;
    }
    return {best, hash};
  }

  std::vector<double> genomes_, fitness_, outbox_, initial_genomes_;
  std::vector<ga::island_state> state_, initial_state_;
  ga::world world_;
};

const bench::registrar registered{{
    "ga",
    "CATS (seed 002), Table 1 (GA: island model of genetic algorithm) and section 4.3: CPU-bound control",
    "Island-model genetic algorithm minimizing the Rastrigin function: islands evolve in parallel (fork2 over "
    "the islands) for `interval` generations, each such epoch one root task tree, and migrate their best "
    "individuals around a ring between epochs; one generator per island, so the result is the serial one.",
    false,
    [](bench::size_class s, bench::params& p) -> std::unique_ptr<bench::instance> {
      ga::shape shape{};
      shape.islands = p.get("islands", 4, 16, 64, s, "islands (populations evolving in parallel)", {1, 1 << 20});
      shape.population = p.get("population", 16, 64, 128, s, "individuals per island", {2, 1 << 20});
      shape.genes = p.get("genes", 8, 32, 32, s, "genes per individual (the dimension of the Rastrigin function)",
                          {1, 1 << 20});
      shape.generations = p.get("generations", 20, 200, 1000, s, "generations in all", {1, 1 << 30});
      shape.interval = p.get("interval", 5, 10, 10, s, "generations between migrations", {1, 1 << 30});
      shape.migrants =
          p.get("migrants", 2, 4, 4, s, "individuals each island sends to the next one per migration",
                {0, ga::max_migrants});
      if (shape.migrants >= shape.population)
        throw std::invalid_argument("--param migrants=" + std::to_string(shape.migrants) +
                                    ": must be below population (" + std::to_string(shape.population) + ")");
      return std::make_unique<ga_instance>(shape);
    }}};

}  // namespace
