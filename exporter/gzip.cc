#include "exporter/gzip.h"

#include <libdeflate.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <mutex>

#include "exporter/http_header.h"

namespace rnic {

bool AcceptsGzip(std::string_view h) {
  bool yes = false;
  ForEachHeaderItem(h, [&](const HeaderItem& item) {
    if (item.q > 0 && (IEquals(item.value, "gzip") ||
                       IEquals(item.value, "x-gzip") || item.value == "*")) {
      yes = true;
    }
  });
  return yes;
}

namespace {

// libdeflate's level 1: on the 16-port scrape body it is the fastest of
// zlib and libdeflate and its output the smaller of the two fast levels
// (tests/bench/gzip_bench.cc, README there).
constexpr int kLevel = 1;

using Compressor =
    std::unique_ptr<libdeflate_compressor, void (*)(libdeflate_compressor*)>;

Compressor NewCompressor() {
  return {libdeflate_alloc_compressor(kLevel), libdeflate_free_compressor};
}

std::size_t Compress(libdeflate_compressor* c, std::string_view data,
                     std::string& out) {
  return libdeflate_gzip_compress(c, data.data(), data.size(), out.data(),
                                  out.size());
}

}  // namespace

Result<std::string> GzipCompress(std::string_view data) {
  // One compressor (about 200 KiB) serves every scrape: allocating it per
  // request maps and faults it in each time, several times the cost of
  // compressing. A scrape that finds it busy takes a compressor of its own.
  // Never freed: no scrape can outlive it at exit.
  static std::mutex mu;
  static libdeflate_compressor* const shared =
      libdeflate_alloc_compressor(kLevel);
  std::unique_lock lock(mu, std::try_to_lock);
  Compressor own(nullptr, libdeflate_free_compressor);
  libdeflate_compressor* c = shared;
  if (!lock.owns_lock() || c == nullptr) {
    own = NewCompressor();
    c = own.get();
  }
  if (c == nullptr) return Error{"gzip: cannot allocate a compressor", ENOMEM};
  // A quarter of the input first (metrics text compresses 5-9 x): below the
  // 64 KiB mmap threshold (exporter/main.cc) for bodies up to 256 KiB. Only
  // a body that does not compress needs the bound.
  std::string out(std::max<std::size_t>(4096, data.size() / 4), '\0');
  std::size_t n = Compress(c, data, out);
  if (n == 0) {
    out.resize(libdeflate_gzip_compress_bound(c, data.size()));
    n = Compress(c, data, out);
  }
  if (n == 0) return Error{"gzip: compression failed", EIO};
  out.resize(n);
  return out;
}

}  // namespace rnic
