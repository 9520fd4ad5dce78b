#include "exporter/gzip.h"

#include <zlib.h>

#include <cstdlib>

namespace rnic {

bool AcceptsGzip(std::string_view h) {
  while (!h.empty()) {
    auto comma = h.find(',');
    std::string_view item = h.substr(0, comma);
    h = comma == std::string_view::npos ? std::string_view()
                                        : h.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    auto semi = item.find(';');
    std::string_view coding = item.substr(0, semi);
    while (!coding.empty() && coding.back() == ' ') coding.remove_suffix(1);
    if (coding != "gzip" && coding != "x-gzip" && coding != "*") continue;
    double q = 1.0;
    if (semi != std::string_view::npos) {
      std::string_view p = item.substr(semi + 1);
      auto eq = p.find("q=");
      if (eq != std::string_view::npos) {
        q = std::strtod(std::string(p.substr(eq + 2)).c_str(), nullptr);
      }
    }
    if (q > 0) return true;
  }
  return false;
}

Result<std::string> GzipCompress(std::string_view data) {
  z_stream zs{};
  // windowBits 15 + 16 selects the gzip wrapper; level 1: a scrape body is
  // small and repetitive, and CPU per scrape matters more than bytes.
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK) {
    return Error{"deflateInit2 failed"};
  }
  std::string out;
  out.resize(deflateBound(&zs, data.size()));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Error{"deflate failed"};
  out.resize(zs.total_out);
  return out;
}

}  // namespace rnic
