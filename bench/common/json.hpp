// A minimal JSON object writer for the results file (one object per line).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace json {

inline std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

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
