// Where results come from: the run record locus-bench writes before the
// cells of each run, so that a report can state its provenance (date,
// commit, compiler and flags, CPU and caches, library versions, settings).
#pragma once

#include <string>

#include "common/json.hpp"

namespace bench {

// The run record's first fields: "record": "run", then "time",
// "commit", "compiler", "build_flags", "host", "os", "cpu", "cpus",
// "caches", "libraries" and "settings" (the LOCUS_* variables set).
// The caller adds what the command line chose. Cell records carry no
// "record" field; each belongs to the run record before it in the file.
json::object provenance();

// "host (N cpus, CPU model)": the "machine" of a measured cell.
std::string machine_name();

// The current time in UTC, ISO 8601.
std::string now_iso();

}  // namespace bench
