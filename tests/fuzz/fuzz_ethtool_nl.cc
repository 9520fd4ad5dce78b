// ethtool generic netlink replies: the first byte picks the reply parser
// (family, FEC, standard statistics, module EEPROM), the rest is the
// kernel's answer as recv() returns it, walked by WalkMessages. Seeds:
// tests/fixtures/ethtool/replay*/*.bin with their parser's byte.
#include <linux/netlink.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectors/ethtool/ethtool_nl.h"
#include "collectors/nl/transport.h"

namespace {
std::size_t g_sink;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace rnic;
  if (size < 1) return 0;
  // Heap storage: aligned like recv()'s buffer.
  const std::vector<std::uint8_t> bytes(data + 1, data + size);
  const int which = data[0] % 4;
  std::size_t sink = 0;
  bool finished = false;
  (void)nl::WalkMessages(
      bytes, 0,
      [&](const nlmsghdr& msg) -> Status {
        switch (which) {
          case 0:
            if (auto r = ethtool::ParseFamilyReply(msg); r.ok()) sink += *r;
            break;
          case 1:
            if (auto r = ethtool::ParseFecReply(msg); r.ok()) {
              sink += r->active.size() + r->corrected.size() +
                      r->uncorrectable.size() + r->corrected_bits.size();
            }
            break;
          case 2: {
            ethtool::StatsReply out;
            (void)ethtool::ParseStatsReply(msg, out);
            for (const auto& s : out.stats) {
              sink += ethtool::StdStatName(s.group, s.id).metric.size();
            }
            for (const auto& b : out.hist) sink += b.low + b.high + b.tx;
            sink += out.bad_buckets;
            break;
          }
          default:
            if (auto r = ethtool::ParseEepromReply(msg); r.ok()) {
              sink += r->size();
            }
            break;
        }
        return Status::Ok();
      },
      &finished);
  g_sink += sink;
  return 0;
}
