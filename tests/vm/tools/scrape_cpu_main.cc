// rnic_vm_scrape_cpu: CPU an exporter process spends per scrape, scraped the
// way Prometheus does (one kept-alive HTTP/1.1 connection, gzip accepted).
//
//   rnic_vm_scrape_cpu --pid PID [--port N] [--path /metrics]
//                      [--scrapes N] [--warmup N] [--no-idle] [--plain]
//
// CPU is the process's CPU clock (clock_getcpuclockid: every thread, alive or
// exited, in nanoseconds), read before and after the scrapes. /proc/PID/stat
// gives the same total only in 10 ms ticks, which made each block of 5
// scrapes +-2 ms per scrape; the floor's getrusage is as precise as this.
// Then the process is left alone for as long as the scrapes took and read
// again: that idle CPU (background threads, timers) is subtracted, so the
// figure is what the scrapes themselves cost. Prints one
// line of key=value pairs (parsed by tests/bench/vm_cost_table.py). A
// benchmark: it reports and asserts nothing about time; exit 1 only if a scrape
// fails.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

#include "tests/vm/tools/http_get.h"

namespace rnic::vmtest {
namespace {

struct Options {
  int pid = 0;
  int port = 9709;
  std::string path = "/metrics";
  int scrapes = 50;
  int warmup = 5;
  bool idle = true;
  bool gzip = true;
};

std::optional<Options> ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--pid") {
      o.pid = std::atoi(next());
    } else if (a == "--port") {
      o.port = std::atoi(next());
    } else if (a == "--path") {
      o.path = next();
    } else if (a == "--scrapes") {
      o.scrapes = std::atoi(next());
    } else if (a == "--warmup") {
      o.warmup = std::atoi(next());
    } else if (a == "--no-idle") {
      o.idle = false;
    } else if (a == "--plain") {
      o.gzip = false;
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return std::nullopt;
    }
  }
  if (o.pid <= 0 || o.scrapes <= 0 || o.warmup < 0) return std::nullopt;
  return o;
}

// CPU time of every thread of `pid`, alive or exited, in nanoseconds.
std::optional<long long> CpuNs(int pid) {
  clockid_t clock{};
  if (clock_getcpuclockid(pid, &clock) != 0) return std::nullopt;
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return std::nullopt;
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

long RssKib(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return -1;
}

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Samples in a text exposition: lines that are neither comments nor empty.
long CountSeries(const std::string& body) {
  long n = 0;
  std::size_t pos = 0;
  while (pos < body.size()) {
    std::size_t eol = body.find('\n', pos);
    if (eol == std::string::npos) eol = body.size();
    if (eol > pos && body[pos] != '#') ++n;
    pos = eol + 1;
  }
  return n;
}

int Run(const Options& o) {
  std::string error;
  auto conn = HttpConnection::Open(o.port, &error);
  if (!conn) {
    std::fprintf(stderr, "rnic_vm_scrape_cpu: %s\n", error.c_str());
    return 1;
  }
  auto get = [&](bool gzip) -> std::optional<HttpConnection::Response> {
    auto r = conn->Get(o.path, gzip, &error);
    if (!r || r->status != 200) {
      std::fprintf(
          stderr, "rnic_vm_scrape_cpu: scrape failed: %s\n",
          r ? ("HTTP " + std::to_string(r->status)).c_str() : error.c_str());
      return std::nullopt;
    }
    return r;
  };
  // One uncompressed answer on the same connection, to count the series.
  auto plain = get(false);
  if (!plain) return 1;
  const long series = CountSeries(plain->body);
  std::size_t wire_bytes = 0;
  std::string encoding;
  for (int i = 0; i < o.warmup; ++i) {
    if (!get(o.gzip)) return 1;
  }
  auto c0 = CpuNs(o.pid);
  const double t0 = Now();
  for (int i = 0; i < o.scrapes; ++i) {
    auto r = get(o.gzip);
    if (!r) return 1;
    wire_bytes = r->body.size();
    encoding = r->content_encoding;
  }
  const double wall = Now() - t0;
  auto c1 = CpuNs(o.pid);
  if (!c0 || !c1) {
    std::fprintf(
        stderr, "rnic_vm_scrape_cpu: cannot read the CPU clock of %d\n", o.pid);
    return 1;
  }
  long long idle_ns = 0;
  if (o.idle) {
    // Same length as the scrapes, the connection left open and quiet.
    std::this_thread::sleep_for(std::chrono::duration<double>(wall));
    auto c2 = CpuNs(o.pid);
    if (!c2) return 1;
    idle_ns = *c2 - *c1;
  }
  const double cpu = static_cast<double>(*c1 - *c0) / 1e9;
  const double idle = static_cast<double>(idle_ns) / 1e9;
  const double per_scrape = (cpu - idle) / o.scrapes;
  std::printf(
      "scrapes=%d series=%ld encoding=%s wire_bytes=%zu plain_bytes=%zu "
      "wall_s=%.3f cpu_s=%.6f idle_cpu_s=%.6f cpu_per_scrape_ms=%.3f "
      "cpu_per_series_us=%.3f rss_kib=%ld connections=1\n",
      o.scrapes, series, encoding.empty() ? "identity" : encoding.c_str(),
      wire_bytes, plain->body.size(), wall, cpu, idle, per_scrape * 1e3,
      series > 0 ? per_scrape / static_cast<double>(series) * 1e6 : 0.0,
      RssKib(o.pid));
  return 0;
}

}  // namespace
}  // namespace rnic::vmtest

int main(int argc, char** argv) {
  auto o = rnic::vmtest::ParseArgs(argc, argv);
  if (!o) {
    std::fprintf(stderr,
                 "usage: rnic_vm_scrape_cpu --pid PID [--port N] [--path P] "
                 "[--scrapes N] [--warmup N] [--no-idle] [--plain]\n");
    return 2;
  }
  return rnic::vmtest::Run(*o);
}
