// gzip of a realistic /metrics body: the 16-port scaled tree's sysfs scrape
// (as BM_ScrapeScaledTree/16 in scrape_bench.cc), compressed by the
// exporter's encoder (exporter/gzip.cc: libdeflate) and the alternatives.
// BM_Gzip: CPU and output bytes of the compression alone. BM_ScrapeGzip: the
// whole in-process scrape (collect, serialize, compress) and the share of its
// CPU that compression takes.
#include <benchmark/benchmark.h>
#include <libdeflate.h>
#include <malloc.h>
#include <time.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "collectors/collector_spec.h"
#include "exporter/exposition.h"
#include "exporter/gzip.h"
#include "exporter/registry.h"

namespace rnic {
namespace {

constexpr int kPorts = 16;

// The exporter's malloc settings (exporter/main.cc): an encoder's state above
// 64 KiB is mapped and unmapped per request there, and its page faults count.
[[maybe_unused]] const bool kMallocAsExporter = [] {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  return true;
}();

// Every candidate writes into a buffer of a quarter of the input, as the
// exporter does (metrics text compresses 5-9 x): below the 64 KiB mmap
// threshold, so what differs between them is the encoder and its state.
std::string OutputBuffer(std::string_view in) {
  return std::string(std::max<std::size_t>(4096, in.size() / 4), '\0');
}

std::string Deflate(z_stream& zs, std::string_view in) {
  std::string out = OutputBuffer(in);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(rc == Z_STREAM_END ? zs.total_out : 0);
  return out;
}

// zlib's gzip stream (windowBits 15 + 16, memLevel 8) at `level`, its state
// allocated per call, as a request would.
std::string Zlib(std::string_view in, int level) {
  z_stream zs{};
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return {};
  }
  std::string out = Deflate(zs, in);
  deflateEnd(&zs);
  return out;
}

// zlib level 1 with one stream for every call (deflateReset): no
// allocation, but its state (about 260 KiB) stays resident.
std::string ZlibKept(std::string_view in) {
  static z_stream zs = [] {
    z_stream z{};
    deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    return z;
  }();
  deflateReset(&zs);
  return Deflate(zs, in);
}

std::string Compress(libdeflate_compressor* c, std::string_view in) {
  std::string out = OutputBuffer(in);
  out.resize(libdeflate_gzip_compress(c, in.data(), in.size(), out.data(),
                                      out.size()));
  return out;
}

// libdeflate's whole-buffer gzip at `level`, a compressor per call.
std::string Libdeflate(std::string_view in, int level) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(level);
  if (c == nullptr) return {};
  std::string out = Compress(c, in);
  libdeflate_free_compressor(c);
  return out;
}

// The exporter's: libdeflate level 1, one compressor kept for every call.
std::string Exporter(std::string_view in) {
  auto z = GzipCompress(in);
  return z.ok() ? std::move(z).value() : std::string();
}

using Encoder = std::string (*)(std::string_view);
struct Candidate {
  const char* name;
  Encoder encode;
};
const Candidate kCandidates[] = {
    {"exporter", Exporter},
    {"zlib_1", [](std::string_view in) { return Zlib(in, 1); }},
    {"zlib_6", [](std::string_view in) { return Zlib(in, 6); }},
    {"libdeflate_1", [](std::string_view in) { return Libdeflate(in, 1); }},
    {"libdeflate_6", [](std::string_view in) { return Libdeflate(in, 6); }},
    {"zlib_1_kept", ZlibKept},
};

std::string ScaledTree(int ports) {
  std::string dir = "/tmp/rnic_bench_tree_" + std::to_string(ports);
  if (!std::filesystem::exists(dir + "/class/infiniband")) {
    std::string cmd = "python3 " RNIC_FIXTURES_DIR
                      "/make_scaled_tree.py --out " +
                      dir + " --ports " + std::to_string(ports) + " >/dev/null";
    if (std::system(cmd.c_str()) != 0) return "";
  }
  return dir;
}

std::unique_ptr<CollectorRunner> SysfsRunner(const std::string& sysfs) {
  for (const auto& spec : AllCollectors()) {
    if (spec.name != "sysfs") continue;
    CollectorArgs args;
    args.paths.sysfs = sysfs;
    args.options = spec.ParseOptions().value();
    args.shared = std::make_shared<SharedFacts>();
    auto c = spec.factory(args);
    if (!c.ok()) return nullptr;
    std::vector<CollectorRunner::Entry> e;
    e.push_back({spec.name, std::move(c).value()});
    auto r = std::make_unique<CollectorRunner>(std::move(e));
    // The first scrape opens every file and builds the per-port caches.
    (void)r->Gather(std::chrono::steady_clock::now() +
                    std::chrono::seconds(60));
    return r;
  }
  return nullptr;
}

void Scrape(CollectorRunner& runner, std::string& body) {
  MetricSet set = runner.Gather(std::chrono::steady_clock::now() +
                                std::chrono::seconds(10));
  body.clear();
  Serialize(set, ExpositionFormat::kText004, body);
}

const std::string& Body() {
  static const std::string body = [] {
    std::string b;
    auto runner = SysfsRunner(ScaledTree(kPorts));
    if (runner) Scrape(*runner, b);
    return b;
  }();
  return body;
}

void BM_Gzip(benchmark::State& state) {
  const Candidate& c = kCandidates[state.range(0)];
  state.SetLabel(c.name);
  const std::string& body = Body();
  if (body.empty()) {
    state.SkipWithError("no scrape body");
    return;
  }
  std::size_t out = 0;
  for (auto _ : state) {
    std::string z = c.encode(body);
    out = z.size();
    benchmark::DoNotOptimize(z.data());
  }
  if (out == 0) state.SkipWithError("encoder failed");
  state.counters["in_bytes"] = static_cast<double>(body.size());
  state.counters["out_bytes"] = static_cast<double>(out);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(body.size()));
}
BENCHMARK(BM_Gzip)
    ->DenseRange(0, std::size(kCandidates) - 1)
    ->Unit(benchmark::kMicrosecond);

std::int64_t ProcessCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Collectors run on the runner's threads: the process's CPU clock counts
// them, around each part of every scrape.
void BM_ScrapeGzip(benchmark::State& state) {
  const Candidate& c = kCandidates[state.range(0)];
  state.SetLabel(c.name);
  auto runner = SysfsRunner(ScaledTree(kPorts));
  if (!runner) {
    state.SkipWithError("sysfs collector not available");
    return;
  }
  std::string body;
  std::int64_t scrape_ns = 0;
  std::int64_t gzip_ns = 0;
  for (auto _ : state) {
    const std::int64_t t0 = ProcessCpuNs();
    Scrape(*runner, body);
    const std::int64_t t1 = ProcessCpuNs();
    std::string z = c.encode(body);
    benchmark::DoNotOptimize(z.data());
    const std::int64_t t2 = ProcessCpuNs();
    scrape_ns += t1 - t0;
    gzip_ns += t2 - t1;
  }
  state.counters["gzip_share"] =
      static_cast<double>(gzip_ns) / static_cast<double>(scrape_ns + gzip_ns);
}
BENCHMARK(BM_ScrapeGzip)
    ->DenseRange(0, std::size(kCandidates) - 1)
    ->Unit(benchmark::kMicrosecond)
    ->MeasureProcessCPUTime();

}  // namespace
}  // namespace rnic
