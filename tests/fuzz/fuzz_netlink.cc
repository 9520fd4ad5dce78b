// RDMA netlink replies: the first byte picks which RdmaNetlinkSource call
// asks, the rest is the kernel's answer (one or more netlink messages, as
// recv() returns them), walked by WalkMessages and parsed by the attribute
// tables. Seeds: tests/fixtures/netlink/*/*.bin with their call's byte.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collectors/nl/cm_id_dump.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/transport.h"

namespace {

using rnic::Status;
using namespace rnic::nl;

// Answers every request with the same bytes, like ReplayTransport does with
// a recorded file.
class BytesTransport final : public NetlinkTransport {
 public:
  explicit BytesTransport(std::vector<std::uint8_t> bytes)
      : bytes_(std::move(bytes)) {}
  Status Exchange(const Request&, const MessageCallback& on_msg) override {
    bool finished = false;
    return WalkMessages(bytes_, 0, on_msg, &finished);
  }

 private:
  std::vector<std::uint8_t> bytes_;  // heap storage: aligned like recv()'s
};

std::size_t g_sink;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  if (size < 1) return 0;
  BytesTransport t(std::vector<std::uint8_t>(data + 1, data + size));
  RdmaNetlinkSource src(t);
  std::size_t sink = 0;
  switch (data[0] % 15) {
    case 0:
      if (auto r = src.Devices(); r.ok()) sink += r->size();
      break;
    case 1:
      if (auto r = src.Ports(1, (data[0] / 15) & 1); r.ok()) sink += r->size();
      break;
    case 2:
      if (auto r = src.PortStats(1, 1); r.ok()) sink += r->counters.size();
      break;
    case 3: {
      const RdmaNetlinkSource::PortRef two[] = {{1, 1}, {1, 2}};
      std::vector<Status> results;
      src.PortStatsBatch(
          two,
          [&](std::size_t i, std::string_view n, std::uint64_t) {
            sink += i + n.size();
          },
          results);
      for (const Status& st : results) sink += st.ok();
    } break;
    case 4:
      if (auto r = src.CounterStatus(1, 1); r.ok()) sink += r->size();
      break;
    case 5:
      (void)src.BoundCounters(1, 1, [&](const BoundCounter& c) {
        sink += c.counters.size() + c.owner.kern_name.size();
      });
      break;
    case 6:
      if (auto r = src.ResourceSummary(); r.ok()) sink += r->size();
      break;
    case 7:
      if (auto r = src.BindQpToCounter(1, 1, 7, std::nullopt); r.ok())
        sink += *r;
      break;
    case 8:
      if (auto r = src.CounterValues(1, 1, 1); r.ok()) sink += r->size();
      break;
    case 14:  // the rdma_cm IDs (the fabric probe's live peers)
      (void)DumpCmIds(t, 1, [&](const CmIdEntry& e) {
        sink +=
            e.owner.kern_name.size() + e.port + (e.dst ? e.dst->ip.size() : 0);
      });
      break;
    default: {  // 9..13: the resource dumps
      static constexpr ResKind kKinds[] = {ResKind::kQp, ResKind::kCq,
                                           ResKind::kMr, ResKind::kPd,
                                           ResKind::kCtx};
      const ResKind kind = kKinds[data[0] % 15 - 9];
      (void)src.DumpResources(kind, 1, [&](const ResEntry& e) {
        sink += e.owner.kern_name.size() + e.port;
      });
      break;
    }
  }
  g_sink = sink;  // what the parsers returned stays used
  return 0;
}
