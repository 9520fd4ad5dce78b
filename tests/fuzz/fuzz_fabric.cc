// Everything the fabric collector reads from the network: the private data
// of an rdma_cm CONNECT_REQUEST / ESTABLISHED reply, a peer exporter's
// /fabric/addresses JSON (libcurl parses the HTTP around it), a file_sd file
// and a /probe query string. The first byte picks the parser. Seeds:
// make_seeds.py.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "collectors/fabric/addresses.h"
#include "collectors/fabric/peer_sources.h"
#include "collectors/fabric/private_data.h"
#include "collectors/fabric/probe_target.h"
#include "exporter/query_string.h"

namespace {
std::size_t g_sink;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace rnic::fabric;
  if (size == 0) return 0;
  const std::uint8_t which = data[0];
  const std::span<const std::uint8_t> rest(data + 1, size - 1);
  const std::string_view text(reinterpret_cast<const char*>(rest.data()),
                              rest.size());
  std::size_t sink = 0;
  switch (which % 4) {
    case 0: {
      const auto req = ParseHello(rest, HelloKind::kRequest, kMaxMessage);
      const auto rep = ParseHello(rest, HelloKind::kReply, kMaxMessage);
      // What parses encodes back to the same first 20 bytes.
      if (req.ok && EncodeHello(req.hello) !=
                        std::vector<std::uint8_t>(
                            rest.begin(), rest.begin() + kPrivateDataSize))
        __builtin_trap();
      sink += req.ok + rep.ok;
      break;
    }
    case 1:
      if (auto a = ParseAddressesJson(text); a.ok()) {
        sink += a->addresses.size();
        // Our own answer of what we parsed parses to the same.
        auto again = ParseAddressesJson(AddressesToJson(*a));
        if (!again.ok()) __builtin_trap();
        sink +=
            PairAddresses(a->addresses, a->addresses, Pairing::kSubnet).size();
      }
      break;
    case 2:
      if (auto p = ParseFileSd(text); p.ok()) sink += p->size();
      break;
    case 3:
      if (auto q = rnic::ParseQueryString(text); q.ok()) {
        const std::vector<PeerSpec> peers = {{"node-a", 0, {}}};
        auto r = ParseProbeRequest(*q, peers, {}, 9709);
        sink += r.ok();
      }
      break;
  }
  g_sink = sink;
  return 0;
}
