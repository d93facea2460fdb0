// The benchmark harness: what a benchmark provides, and how the runner
// (bench/runner/main.cpp, `locus-bench`) finds and runs it.
//
// A benchmark is a folder bench/<name>/ with
//   kernel.hpp   the kernel, a template over a backend P (common/backend.hpp),
//                written once for every implementation;
//   case.cpp     its instance (inputs, the timed run, verification against the
//                serial result) and one `registrar` line that adds it to the
//                registry. The build picks up every bench/*/case.cpp.
//
// The runner sets up each implementation around run() (a locus runtime with
// the variant's policy and worker count, a oneTBB arena, an OpenMP team), so
// an instance only dispatches to its kernel with the variant's backend:
//
//   void run(const bench::variant& v) override {
//     bench::dispatch(v, [&]<class P>() { my_kernel<P>(data_.data(), n_); });
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/graph_colors.hpp"   // graph_colors
#include "common/locus_backend.hpp"  // locus_loops

namespace bench {

enum class impl { serial, locus, tbb, omp };
enum class omp_schedule { static_schedule, dynamic_schedule, guided_schedule };

// One implementation of the constructs: "serial", "locus:<policy>",
// "locus:<policy>+affinity", "locus:<policy>+static", "locus:<policy>+guided"
// (a model of OpenMP guided's chunks that the simulator can run),
// "locus:<policy>+nacs"
// (loops with a block distribution, TBB-NUMA's NACS), "locus:<policy>+noap"
// and "locus:<policy>+ap" (TBB-NUMA's standard-TBB configurations: plain
// loops, or loops with a loop_affinity, and no place hints at all; on a
// non-loop program, +nacs means that it gives its tasks place affinities
// and the others that it gives none), "tbb", "tbb:affinity",
// "omp" (= omp:static), "omp:static", "omp:dynamic", "omp:guided". A locus
// variant may also name where its data lives: "+interleave" or
// "+first-touch" or "+serial-init" (all at place 0, as a serial
// initialization leaves it under first touch) (data_layout), e.g.
// "locus:ws+affinity+interleave", and,
// last, the colors the task-graph benchmarks give their nodes:
// "+bad-colors" or "+invalid-colors" (graph_colors, NabbitC tables II and
// III). A locus variant may end in "+contender": the kernel runs beside
// TBB-NUMA's contender computation in a second arena (section 5.3,
// common/contender.hpp). On a task-graph benchmark, a loop modifier (+static, +guided, +affinity,
// +nacs, +noap, +ap) runs the loop version on locus instead of the graph:
// "locus:ws+static" is OpenMP static's partition and "locus:ws+guided" its
// guided schedule, under the simulator too.
struct variant {
  std::string name;
  impl kind = impl::serial;
  std::string policy;                                  // locus
  locus_loops loops = locus_loops::plain;              // locus
  data_layout data = data_layout::blocks;              // locus
  graph_colors colors = graph_colors::good;            // locus, task-graph benchmarks
  bool contender = false;                              // locus: +contender (contender.hpp)
  bool tbb_affinity = false;                           // tbb: affinity_partitioner for loops
  omp_schedule schedule = omp_schedule::static_schedule;  // omp: schedule of loops
};

// Throws std::invalid_argument naming the accepted forms.
variant parse_variant(const std::string& text);

// tiny: smoke tests (milliseconds, verification only); quick: `make run`
// (about a second per run on 2 cores); full: the papers' sizes where memory
// allows.
enum class size_class { tiny, quick, full };
const char* to_string(size_class s);

// The values an integer parameter accepts, both ends included.
struct int_range {
  std::int64_t min;
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
};
// The values a real parameter accepts: above `above`, up to `max` included.
struct real_range {
  double above;
  double max;
};

// Parameters of an instance. Every benchmark reads its parameters through
// get(), which records them (for --list and the results file) and checks
// them against the range it declares; a value given on the command line
// (--param key=value) wins over the size's default. A value outside the
// range throws std::invalid_argument naming the parameter, the value, what it
// means and the range, e.g.
//   --param n=-5: fib(n); accepted: an integer from 0 to 92
// Constraints between parameters (nonzer < na) are the benchmark's to check.
class params {
 public:
  params() = default;
  explicit params(std::map<std::string, std::string> given) : given_(std::move(given)) {}
  std::int64_t get(const std::string& key, std::int64_t tiny, std::int64_t quick, std::int64_t full,
                   size_class size, const std::string& meaning, int_range accepted);
  double get_real(const std::string& key, double tiny, double quick, double full, size_class size,
                  const std::string& meaning, real_range accepted);
  // key=value of every parameter read so far, for the results file.
  const std::map<std::string, std::string>& used() const { return used_; }
  const std::map<std::string, std::string>& meanings() const { return meanings_; }
  // key: "an integer from 0 to 92", for --list.
  const std::map<std::string, std::string>& ranges() const { return ranges_; }
  // Throws if `value` (given for `key`) is outside the range this
  // benchmark declared for it; does nothing for a key it did not read.
  void check(const std::string& key, const std::string& value) const;
  // Keys given on the command line that no benchmark read (a typo).
  std::vector<std::string> unused() const;

 private:
  std::map<std::string, std::string> given_;
  std::map<std::string, std::string> used_;
  std::map<std::string, std::string> meanings_;
  std::map<std::string, std::string> ranges_;
  std::map<std::string, int_range> int_ranges_;
  std::map<std::string, real_range> real_ranges_;
};

// A benchmark at one size: inputs built once, then run many times.
class instance {
 public:
  virtual ~instance() = default;
  // Untimed, before every run: restore the inputs the run overwrites.
  virtual void prepare() {}
  // The timed part.
  virtual void run(const variant& v) = 0;
  // After every run: an empty string if the output equals the serial
  // reference (within the stated tolerance for floating-point reductions),
  // else what differs.
  virtual std::string verify() = 0;
  // A short result line for the log, e.g. "residual 3.1e-11".
  virtual std::string summary() { return {}; }
};

struct benchmark {
  std::string name;         // as given to --benchmarks
  std::string source;       // the paper and section it comes from
  std::string description;  // algorithm, one or two sentences
  bool uses_loops = false;  // true: OpenMP schedules and TBB partitioners apply
  std::function<std::unique_ptr<instance>(size_class, params&)> make;
  // False for a benchmark of a library's own code (std::sort,
  // locus::parallel_sort), which has no memory annotations: the simulator
  // would see no memory traffic, so --engine sim leaves it out.
  bool simulated = true;
};

std::vector<benchmark>& registry();

struct registrar {
  explicit registrar(benchmark b);
};

}  // namespace bench

// Backends are defined after the variant type they read.
#include "common/backend.hpp"
#include "common/locus_backend.hpp"
#include "common/omp_backend.hpp"
#include "common/tbb_backend.hpp"

namespace bench {

// Calls fn.template operator()<P>() with the backend of v.
template <class Fn>
void dispatch(const variant& v, Fn&& fn) {
  switch (v.kind) {
    case impl::serial: fn.template operator()<serial_backend>(); break;
    case impl::locus: fn.template operator()<locus_backend>(); break;
    case impl::tbb: fn.template operator()<tbb_backend>(); break;
    case impl::omp: fn.template operator()<omp_backend>(); break;
  }
}

}  // namespace bench
