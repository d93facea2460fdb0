// The Chrome trace-event JSON of a recorder's logs (the "JSON Object
// Format" that chrome://tracing and the Perfetto UI open): one process per
// place, one thread per worker; slices as complete events ("X"), arrows as
// flow events ("s" on the track the arrow leaves, "f" with binding point
// "e" on the slice it enters), named events as thread-scoped instants,
// counters ("C") per worker. Timestamps are microseconds with nanosecond
// digits. Nothing in the file depends on addresses or the host, so under
// the simulator one seed gives one file, byte for byte.
#include <cinttypes>
#include <cstdio>
#include <string>

#include "engine/engine.hpp"
#include "topology/topology.hpp"
#include "trace/recorder.hpp"
#include "util/json_string.hpp"

namespace locus::detail::trace {
namespace {

const char* kind_name(slice_kind k) {
  switch (k) {
    case slice_kind::spawned: return "spawned";
    case slice_kind::fork: return "fork";
    case slice_kind::loop: return "loop";
    case slice_kind::stolen: return "stolen";
    case slice_kind::root: return "root";
    case slice_kind::resumed: return "resumed";
    case slice_kind::posted: return "posted";
    case slice_kind::queued: return "queued";
    case slice_kind::sleep: return "sleep";
  }
  return "task";
}

// A name cut to max_name_chars, quoted; labels are literals, but a quote or
// a control character in one must not break the file.
std::string name_json(const char* name) {
  std::string s;
  for (const char* p = name; *p != '\0' && s.size() < max_name_chars; ++p)
    s += (static_cast<unsigned char>(*p) < 0x20 || *p == '"' || *p == '\\') ? '?' : *p;
  return json_string(s);
}

struct writer {
  std::FILE* out;
  const recorder& rec;
  bool first = true;

  void begin_event() {
    std::fputs(first ? "\n" : ",\n", out);
    first = false;
  }
  void ts(const char* key, std::uint64_t ns) {
    std::fprintf(out, ",\"%s\":%" PRIu64 ".%03" PRIu64, key, ns / 1000, ns % 1000);
  }
  void where(int worker) { std::fprintf(out, "\"pid\":%d,\"tid\":%d", rec.place_of(worker), worker); }

  void slice(const record& r) {
    const char* kind = kind_name(r.kind);
    begin_event();
    std::fputs("{\"ph\":\"X\",", out);
    where(r.worker);
    ts("ts", r.ts);
    ts("dur", r.dur);
    std::fprintf(out, ",\"name\":%s,\"cat\":\"%s\",\"args\":{\"kind\":\"%s\"",
                 name_json(r.name != nullptr ? r.name : kind).c_str(), kind, kind);
    if (r.kind != slice_kind::sleep)
      std::fprintf(out, ",\"hint\":%" PRId64 ",\"seq\":%" PRId64, r.v[2], r.v[3]);
    if (r.kind == slice_kind::loop) std::fprintf(out, ",\"lo\":%" PRId64 ",\"hi\":%" PRId64, r.v[0], r.v[1]);
    if (r.other >= 0) std::fprintf(out, ",\"from\":%d,\"distance\":%d", r.other, rec.distance(r.other, r.worker));
    std::fputs("}}", out);
  }

  void instant(const record& r) {
    begin_event();
    std::fputs("{\"ph\":\"i\",\"s\":\"t\",", out);
    where(r.worker);
    ts("ts", r.ts);
    std::fprintf(out, ",\"name\":%s,\"cat\":\"event\",\"args\":{", name_json(r.name).c_str());
    if (r.other >= 0) std::fprintf(out, "\"worker\":%d,\"distance\":%d", r.other, rec.distance(r.worker, r.other));
    std::fputs("}}", out);
  }

  void flow(const record& r) {
    const bool out_end = r.type == record_type::flow_out;
    begin_event();
    std::fprintf(out, "{\"ph\":\"%s\",%s", out_end ? "s" : "f", out_end ? "" : "\"bp\":\"e\",");
    where(out_end ? r.other : r.worker);
    ts("ts", r.ts);
    std::fprintf(out, ",\"id\":%" PRIu64 ",\"name\":%s,\"cat\":%s,\"args\":{\"from\":%d,\"to\":%d,\"distance\":%d}}",
                 r.dur, name_json(r.name).c_str(), name_json(r.name).c_str(), r.other, r.worker,
                 rec.distance(r.other, r.worker));
  }

  void counter(const record& r) {
    begin_event();
    std::fputs("{\"ph\":\"C\",", out);
    where(r.worker);
    ts("ts", r.ts);
    const std::string name = r.name;
    if (name == "accesses") {
      std::fprintf(out,
                   ",\"name\":\"w%d accesses\",\"cat\":\"accesses\",\"args\":{\"local cache\":%" PRId64
                   ",\"remote cache\":%" PRId64 ",\"local DRAM\":%" PRId64 ",\"remote DRAM\":%" PRId64 "}}",
                   r.worker, r.v[0], r.v[1], r.v[2], r.v[3]);
    } else {
      std::fprintf(out, ",\"name\":\"w%d %s\",\"cat\":%s,\"args\":{\"count\":%" PRId64 "}}", r.worker,
                   name.c_str(), name_json(r.name).c_str(), r.v[0]);
    }
  }
};

}  // namespace

void recorder::write(std::FILE* out) {
  const int workers = static_cast<int>(logs_.size());
  const int places = places_->num_places;
  std::fprintf(out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"locus\",\"engine\":%s,\"policy\":%s,"
                    "\"clock\":\"%s\",\"workers\":%d,\"places\":%d,\"worker_place\":[",
               json_string(eng_->name()).c_str(), json_string(policy_).c_str(),
               std::string(eng_->name()) == "sim" ? "virtual" : "steady", workers, places);
  for (int w = 0; w < workers; ++w) std::fprintf(out, "%s%d", w ? "," : "", place_of(w));
  std::fputs("],\"place_distance\":[", out);
  for (int a = 0; a < places; ++a) {
    std::fputs(a ? ",[" : "[", out);
    for (int b = 0; b < places; ++b) {
      const auto& d = places_->place_distance;
      const int v = static_cast<std::size_t>(a) < d.size() && static_cast<std::size_t>(b) < d[static_cast<std::size_t>(a)].size()
                        ? d[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]
                        : (a == b ? 10 : 20);
      std::fprintf(out, "%s%d", b ? "," : "", v);
    }
    std::fputs("]", out);
  }
  std::fprintf(out, "],\"limit_bytes\":%zu,\"stopped\":%s", max_bytes_, stopped() ? "true" : "false");
  if (stopped()) {
    std::fprintf(out, ",\"stopped_at_us\":%" PRIu64 ".%03" PRIu64, stopped_at_ / 1000, stopped_at_ % 1000);
  }
  std::fputs("},\"traceEvents\":[", out);

  writer wr{out, *this};
  for (int p = 0; p < places; ++p) {
    wr.begin_event();
    std::fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"place %d\"}}", p, p);
    wr.begin_event();
    std::fprintf(out, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"args\":{\"sort_index\":%d}}", p, p);
  }
  for (int w = 0; w < workers; ++w) {
    wr.begin_event();
    std::fprintf(out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"worker %d\"}}",
                 place_of(w), w, w);
    wr.begin_event();
    std::fprintf(out,
                 "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
                 place_of(w), w, w);
  }
  for (const worker_log& L : logs_) {
    for (std::size_t c = 0; c < L.chunks.size(); ++c) {
      const std::size_t n = c + 1 == L.chunks.size() ? L.used : chunk_records;
      for (std::size_t i = 0; i < n; ++i) {
        const record& r = L.chunks[c][i];
        switch (r.type) {
          case record_type::slice: wr.slice(r); break;
          case record_type::instant: wr.instant(r); break;
          case record_type::flow_out:
          case record_type::flow_in: wr.flow(r); break;
          case record_type::counter: wr.counter(r); break;
        }
      }
    }
  }
  if (stopped()) {
    wr.begin_event();
    std::fprintf(out, "{\"ph\":\"i\",\"s\":\"g\",\"pid\":%d,\"tid\":%d", place_of(stopped_by_), stopped_by_);
    wr.ts("ts", stopped_at_);
    std::fprintf(out,
                 ",\"name\":\"trace stopped: LOCUS_TRACE_MAX reached\",\"cat\":\"trace\",\"args\":{\"limit_bytes\":%zu}}",
                 max_bytes_);
  }
  std::fputs("\n]}\n", out);
}

}  // namespace locus::detail::trace
