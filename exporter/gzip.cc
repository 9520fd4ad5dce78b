#include "exporter/gzip.h"

#include <zlib.h>

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
