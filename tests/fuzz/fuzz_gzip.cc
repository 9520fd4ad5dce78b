// The /metrics gzip encoder (exporter/gzip.cc): whatever the body, zlib's
// inflate must give it back whole, with the CRC and length it checks.
#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exporter/gzip.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  auto z = rnic::GzipCompress(in);
  if (!z.ok()) std::abort();
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) std::abort();
  std::string back(size + 1, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(z->data());
  zs.avail_in = static_cast<uInt>(z->size());
  zs.next_out = reinterpret_cast<Bytef*>(back.data());
  zs.avail_out = static_cast<uInt>(back.size());
  const int rc = inflate(&zs, Z_FINISH);
  const std::size_t got = zs.total_out;
  const std::size_t left = zs.avail_in;
  inflateEnd(&zs);
  // The whole stream is consumed, nothing trails it, and the text is equal.
  if (rc != Z_STREAM_END || left != 0 || got != size ||
      std::string_view(back.data(), got) != in) {
    std::abort();
  }
  return 0;
}
