#include "common/harness.hpp"

#include <charconv>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace bench {

std::vector<benchmark>& registry() {
  static std::vector<benchmark> all;
  return all;
}

registrar::registrar(benchmark b) { registry().push_back(std::move(b)); }

const char* to_string(size_class s) {
  switch (s) {
    case size_class::tiny: return "tiny";
    case size_class::quick: return "quick";
    case size_class::full: return "full";
  }
  return "?";
}

variant parse_variant(const std::string& text) {
  variant v;
  v.name = text;
  const auto colon = text.find(':');
  const std::string head = text.substr(0, colon);
  const std::string tail = colon == std::string::npos ? "" : text.substr(colon + 1);
  auto bad = [&] {
    throw std::invalid_argument("variant \"" + text +
                                "\": accepted are serial, locus:<policy>, locus:<policy>+affinity, "
                                "locus:<policy>+static, locus:<policy>+guided, locus:<policy>+nacs, locus:<policy>+noap, locus:<policy>+ap, tbb, tbb:affinity, "
                                "omp, omp:static, "
                                "omp:dynamic, omp:guided; a locus variant may end in +interleave or "
                                "+first-touch or +serial-init (where its data lives; default: block p at place p), then "
                                "+bad-colors or +invalid-colors (task graphs' node colors; default: good), then "
                                "+contender (a contender computation in a second arena)");
  };
  if (head == "serial" && colon == std::string::npos) {
    v.kind = impl::serial;
  } else if (head == "locus") {
    v.kind = impl::locus;
    auto plus = tail.find('+');
    v.policy = tail.substr(0, plus);
    if (v.policy.empty()) v.policy = "ws";
    v.name = "locus:" + v.policy;
    // Modifiers in the order loops, data, colors, contender; each at most once.
    bool loops_given = false, data_given = false, colors_given = false, contender_given = false;
    while (plus != std::string::npos) {
      const auto next = tail.find('+', plus + 1);
      const std::string mod = tail.substr(plus + 1, next == std::string::npos ? std::string::npos : next - plus - 1);
      if (contender_given) bad();
      const bool loop_mod =
          mod == "affinity" || mod == "static" || mod == "guided" || mod == "nacs" || mod == "noap" || mod == "ap";
      if (loop_mod && !loops_given && !data_given && !colors_given) {
        v.loops = mod == "affinity" ? locus_loops::affinity
                  : mod == "static" ? locus_loops::static_blocks
                  : mod == "guided" ? locus_loops::guided
                  : mod == "nacs"   ? locus_loops::distributed
                  : mod == "noap"   ? locus_loops::unhinted
                                    : locus_loops::affinity_unhinted;
        loops_given = true;
      } else if ((mod == "interleave" || mod == "first-touch" || mod == "serial-init") && !data_given && !colors_given) {
        v.data = mod == "interleave"    ? data_layout::interleave
                 : mod == "first-touch" ? data_layout::first_touch
                                        : data_layout::serial_init;
        data_given = true;
      } else if ((mod == "bad-colors" || mod == "invalid-colors") && !colors_given) {
        v.colors = mod == "bad-colors" ? graph_colors::bad : graph_colors::invalid;
        colors_given = true;
      } else if (mod == "contender") {
        v.contender = true;
        contender_given = true;
      } else {
        bad();
      }
      v.name += "+" + mod;
      plus = next;
    }
  } else if (head == "tbb") {
    v.kind = impl::tbb;
    if (tail == "affinity") v.tbb_affinity = true;
    else if (!tail.empty()) bad();
  } else if (head == "omp") {
    v.kind = impl::omp;
    if (tail.empty() || tail == "static") v.schedule = omp_schedule::static_schedule;
    else if (tail == "dynamic") v.schedule = omp_schedule::dynamic_schedule;
    else if (tail == "guided") v.schedule = omp_schedule::guided_schedule;
    else bad();
    if (tail.empty()) v.name = "omp:static";
  } else {
    bad();
  }
  return v;
}

namespace {

template <class T>
bool parse_number(const std::string& text, T& value) {
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return !text.empty() && ec == std::errc() && ptr == text.data() + text.size();
}

std::string describe(const int_range& r) {
  if (r.max == std::numeric_limits<std::int64_t>::max()) return "an integer of at least " + std::to_string(r.min);
  return "an integer from " + std::to_string(r.min) + " to " + std::to_string(r.max);
}

std::string describe(const real_range& r) {
  std::ostringstream s;
  s << "a number above " << r.above;
  if (r.max < std::numeric_limits<double>::max()) s << " and at most " << r.max;
  return s.str();
}

bool accepts(const int_range& r, std::int64_t v) { return v >= r.min && v <= r.max; }
bool accepts(const real_range& r, double v) { return v > r.above && v <= r.max; }

// A default outside its own range is a mistake in the benchmark, not in
// the command line.
template <class T, class Range>
void check_default(const std::string& key, T v, const Range& r) {
  if (!accepts(r, v))
    throw std::logic_error("parameter " + key + ": the default " + std::to_string(v) + " is not " + describe(r));
}

}  // namespace

void params::check(const std::string& key, const std::string& value) const {
  bool ok = true;
  if (const auto it = int_ranges_.find(key); it != int_ranges_.end()) {
    std::int64_t v = 0;
    ok = parse_number(value, v) && accepts(it->second, v);
  } else if (const auto r = real_ranges_.find(key); r != real_ranges_.end()) {
    double v = 0;
    ok = parse_number(value, v) && accepts(r->second, v);
  }
  if (!ok)
    throw std::invalid_argument("--param " + key + "=" + value + ": " + meanings_.at(key) +
                                "; accepted: " + ranges_.at(key));
}

std::int64_t params::get(const std::string& key, std::int64_t tiny, std::int64_t quick, std::int64_t full,
                         size_class size, const std::string& meaning, int_range accepted) {
  std::int64_t v = size == size_class::tiny ? tiny : size == size_class::quick ? quick : full;
  check_default(key, v, accepted);
  meanings_[key] = meaning;
  ranges_[key] = describe(accepted);
  int_ranges_[key] = accepted;
  if (auto it = given_.find(key); it != given_.end()) {
    check(key, it->second);
    parse_number(it->second, v);
  }
  used_[key] = std::to_string(v);
  return v;
}

double params::get_real(const std::string& key, double tiny, double quick, double full, size_class size,
                        const std::string& meaning, real_range accepted) {
  double v = size == size_class::tiny ? tiny : size == size_class::quick ? quick : full;
  check_default(key, v, accepted);
  meanings_[key] = meaning;
  ranges_[key] = describe(accepted);
  real_ranges_[key] = accepted;
  if (auto it = given_.find(key); it != given_.end()) {
    check(key, it->second);
    parse_number(it->second, v);
  }
  std::ostringstream s;
  s << v;
  used_[key] = s.str();
  return v;
}

std::vector<std::string> params::unused() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : given_)
    if (!used_.count(k)) out.push_back(k);
  return out;
}

}  // namespace bench
