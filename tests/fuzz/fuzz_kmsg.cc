// Kernel log records as /dev/kmsg returns them, and the mlx5 CQ error line
// inside them. Seeds: the lines of the kmsg fixtures.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collectors/kmsg/kmsg_parser.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace rnic::kmsg;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const KmsgRecord rec = ParseKmsgRecord(text);
  std::size_t sink = rec.message.size() + rec.device.size() + rec.seq;
  if (auto cq = ParseCqError(rec.message, rec.device)) {
    sink += cq->pci.size() + SyndromeHex(cq->syndrome).size() +
            std::string_view(SyndromeReason(cq->syndrome)).size();
  }
  // The raw bytes too: a message need not come through the record parser.
  if (auto cq = ParseCqError(text)) sink += cq->cqn;
  sink += FindPciAddress(text).size();
  g_sink = sink;
  return 0;
}
