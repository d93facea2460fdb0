#include "runner/provenance.hpp"

#include <fcntl.h>
#include <hwloc.h>
#include <omp.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/version.hpp>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <oneapi/tbb/version.h>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

// Set by bench/CMakeLists.txt: how locus-bench was compiled and where its
// sources are.
#ifndef LOCUS_BENCH_BUILD_FLAGS
#define LOCUS_BENCH_BUILD_FLAGS "unknown"
#endif
#ifndef LOCUS_SOURCE_DIR
#define LOCUS_SOURCE_DIR "."
#endif

namespace bench {
namespace {

std::string first_line(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

// The output of `git -C <sources> args...`, or "" if git is missing or
// fails. git is started directly (posix_spawnp), never through a shell.
std::string git(std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", LOCUS_SOURCE_DIR});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const bool started = posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ) == 0;
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; started && (n = read(out[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  if (!started || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return "";
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// The commit of the source tree at the start of the run (`make run` builds
// first, so it is the commit the binary was built from), "+ local changes"
// when tracked files differ from it.
std::string commit() {
  const std::string head = git({"rev-parse", "HEAD"});
  if (head.empty()) return "unknown (no git or not a git checkout: " LOCUS_SOURCE_DIR ")";
  const bool dirty = !git({"status", "--porcelain", "--untracked-files=no"}).empty();
  return head + (dirty ? " + local changes" : "");
}

std::string compiler() {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "GCC " __VERSION__;
#else
  return "unknown";
#endif
}

std::string cpu_model() {
  std::ifstream info("/proc/cpuinfo");
  for (std::string line; std::getline(info, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

// The caches of cpu 0 as Linux reports them, e.g. "L1d 32K, L1i 32K,
// L2 1024K, L3 32768K (shared by cpus 0-1)".
std::string caches() {
  const std::filesystem::path dir = "/sys/devices/system/cpu/cpu0/cache";
  std::vector<std::string> out;
  std::error_code ec;
  std::vector<std::filesystem::path> indexes;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("index", 0) == 0) indexes.push_back(e.path());
  std::sort(indexes.begin(), indexes.end());
  for (const auto& index : indexes) {
    const std::string type = first_line(index / "type");
    const std::string kind = type == "Data" ? "d" : type == "Instruction" ? "i" : "";
    std::string text = "L" + first_line(index / "level") + kind + " " + first_line(index / "size");
    const std::string shared = first_line(index / "shared_cpu_list");
    if (shared.find_first_of(",-") != std::string::npos) text += " (shared by cpus " + shared + ")";
    out.push_back(text);
  }
  if (out.empty()) return "unknown";
  std::string joined;
  for (const auto& s : out) joined += (joined.empty() ? "" : ", ") + s;
  return joined;
}

std::string os() {
  utsname u{};
  if (uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

std::string host() {
  char name[256] = "?";
  gethostname(name, sizeof name);
  name[sizeof name - 1] = '\0';
  return name;
}

}  // namespace

std::string machine_name() {
  return host() + " (" + std::to_string(std::thread::hardware_concurrency()) + " cpus, " + cpu_model() + ")";
}

std::string now_iso() {
  char buf[64];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

json::object provenance() {
  json::object libraries;
  libraries.add("oneTBB", std::string(TBB_VERSION_STRING) + " (runtime " + TBB_runtime_version() + ")")
      .add("Boost", std::to_string(BOOST_VERSION / 100000) + "." + std::to_string(BOOST_VERSION / 100 % 1000) + "." +
                        std::to_string(BOOST_VERSION % 100))
      .add("hwloc", HWLOC_VERSION)
      .add("OpenMP", std::to_string(_OPENMP) + " (the compiler's)");
  json::object settings;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string var = *e;
    if (var.rfind("LOCUS_", 0) == 0) {
      const auto eq = var.find('=');
      settings.add(var.substr(0, eq), var.substr(eq + 1));
    }
  }
  json::object o;
  o.add("record", "run")
      .add("time", now_iso())
      .add("commit", commit())
      .add("compiler", compiler())
      .add("build_flags", LOCUS_BENCH_BUILD_FLAGS)
      .add("host", host())
      .add("os", os())
      .add("cpu", cpu_model())
      .add("cpus", static_cast<int>(std::thread::hardware_concurrency()))
      .add("caches", caches())
      .add_raw("libraries", libraries.str())
      .add_raw("settings", settings.str());
  return o;
}

}  // namespace bench
