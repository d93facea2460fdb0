#include "common/harness.hpp"

#include <charconv>
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
                                "locus:<policy>+static, tbb, tbb:affinity, omp, omp:static, "
                                "omp:dynamic, omp:guided");
  };
  if (head == "serial" && colon == std::string::npos) {
    v.kind = impl::serial;
  } else if (head == "locus") {
    v.kind = impl::locus;
    const auto plus = tail.find('+');
    v.policy = tail.substr(0, plus);
    if (v.policy.empty()) v.policy = "ws";
    const std::string loops = plus == std::string::npos ? "" : tail.substr(plus + 1);
    if (loops == "affinity") v.loops = locus_loops::affinity;
    else if (loops == "static") v.loops = locus_loops::static_blocks;
    else if (!loops.empty()) bad();
    v.name = "locus:" + v.policy + (loops.empty() ? "" : "+" + loops);
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
T parse_number(const std::string& key, const std::string& text) {
  T value{};
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw std::invalid_argument("--param " + key + "=" + text + ": not a number");
  return value;
}
}  // namespace

std::int64_t params::get(const std::string& key, std::int64_t tiny, std::int64_t quick, std::int64_t full,
                         size_class size, const std::string& meaning) {
  std::int64_t v = size == size_class::tiny ? tiny : size == size_class::quick ? quick : full;
  if (auto it = given_.find(key); it != given_.end()) v = parse_number<std::int64_t>(key, it->second);
  used_[key] = std::to_string(v);
  meanings_[key] = meaning;
  return v;
}

double params::get_real(const std::string& key, double tiny, double quick, double full, size_class size,
                        const std::string& meaning) {
  double v = size == size_class::tiny ? tiny : size == size_class::quick ? quick : full;
  if (auto it = given_.find(key); it != given_.end()) v = parse_number<double>(key, it->second);
  std::ostringstream s;
  s << v;
  used_[key] = s.str();
  meanings_[key] = meaning;
  return v;
}

std::vector<std::string> params::unused() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : given_)
    if (!used_.count(k)) out.push_back(k);
  return out;
}

}  // namespace bench
