// A minimal JSON object writer for the results file (one object per line).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include <locus_support/json.hpp>

namespace json {

inline std::string quote(const std::string& s) { return locus_support::json_string(s); }

class object {
 public:
  object& add(const std::string& key, const std::string& v) { return add_raw(key, quote(v)); }
  object& add(const std::string& key, const char* v) { return add_raw(key, quote(v)); }
  object& add(const std::string& key, bool v) { return add_raw(key, v ? "true" : "false"); }
  object& add(const std::string& key, int v) { return add_raw(key, std::to_string(v)); }
  object& add(const std::string& key, double v) {
    if (!std::isfinite(v)) return add_raw(key, "null");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return add_raw(key, buf);
  }
  object& add_raw(const std::string& key, const std::string& raw) {
    body_ += (body_.empty() ? "" : ",") + quote(key) + ":" + raw;
    return *this;
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

}  // namespace json
