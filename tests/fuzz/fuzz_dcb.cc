// rtnetlink DCB replies (RTM_GETDCB to DCB_CMD_IEEE_GET, the roce
// collector's PFC/ETS/APP facts): ParseDcbIeeeReply on one datagram. Seeds:
// replies built from tests/fixtures/roce/dcb (make_seeds.py).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectors/nl/dcb_source.h"

namespace {
int g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  // Heap storage: aligned like the recv() buffer of the real source.
  const std::vector<std::uint8_t> buf(data, data + size);
  if (auto info = rnic::ParseDcbIeeeReply(buf.data(), buf.size()); info.ok())
    g_sink = info->app_dscp_entries.value_or(0);
  return 0;
}
