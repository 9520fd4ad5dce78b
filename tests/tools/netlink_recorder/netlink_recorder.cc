// rnic_netlink_recorder OUTDIR
//
// Runs one scrape of the netlink_stat and netlink_resource collectors and
// the rdma_cm ID dump of every device against the real kernel and writes the
// raw bytes of every reply to OUTDIR/<request key>.bin (the files
// ReplayTransport loads), the comm of every pid the replies name to
// OUTDIR/proc/<pid>/comm, and the resulting metrics to OUTDIR/metrics.txt. Run
// it inside the Soft-RoCE VM to make fixtures for tests/fixtures/netlink/.
#include <prometheus/text_serializer.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/nl/cm_id_dump.h"
#include "collectors/nl/kernel_transport.h"
#include "collectors/nl/rdma_source.h"
#include "collectors/nl/replay_transport.h"

namespace fs = std::filesystem;
using namespace rnic;
using namespace rnic::nl;

namespace {

// Forwards to the kernel and keeps each answer's bytes.
class RecordingTransport final : public NetlinkTransport {
 public:
  RecordingTransport(std::unique_ptr<KernelTransport> inner, fs::path dir)
      : inner_(std::move(inner)), dir_(std::move(dir)) {
    inner_->SetTap([this](const Request&, std::span<const std::uint8_t> b) {
      pending_.insert(pending_.end(), b.begin(), b.end());
    });
  }
  Status Exchange(const Request& req, const MessageCallback& on_msg) override {
    pending_.clear();
    Status st = inner_->Exchange(req, on_msg);
    std::ofstream out(dir_ / (req.Key() + ".bin"), std::ios::binary);
    out.write(reinterpret_cast<const char*>(pending_.data()),
              static_cast<std::streamsize>(pending_.size()));
    std::cerr << "recorded " << req.Key() << " (" << pending_.size() << " bytes"
              << (st.ok() ? "" : ", " + st.error().ToString()) << ")\n";
    return st;
  }

 private:
  std::unique_ptr<KernelTransport> inner_;
  fs::path dir_;
  std::vector<std::uint8_t> pending_;
};

// Every pid the recorded resource and counter dumps mention.
std::set<std::uint32_t> RecordedPids(const fs::path& dir) {
  std::set<std::uint32_t> pids;
  auto replay = ReplayTransport::FromDirectory(dir.string());
  if (!replay.ok()) return pids;
  RdmaNetlinkSource src(*replay);
  auto summary = src.ResourceSummary();
  if (!summary.ok()) return pids;
  std::map<std::uint32_t, std::uint32_t> num_ports;  // by device index
  if (auto devs = src.Devices(); devs.ok()) {
    for (const auto& d : *devs) num_ports[d.index] = d.num_ports;
  }
  for (const auto& dev : *summary) {
    for (ResKind k : {ResKind::kQp, ResKind::kCq, ResKind::kMr, ResKind::kPd,
                      ResKind::kCtx}) {
      (void)src.DumpResources(k, dev.dev_index, [&](const ResEntry& e) {
        if (e.owner.pid) pids.insert(*e.owner.pid);
      });
    }
    (void)DumpCmIds(*replay, dev.dev_index, [&](const CmIdEntry& e) {
      if (e.owner.pid) pids.insert(*e.owner.pid);
    });
    auto ports = src.Ports(dev.dev_index, num_ports[dev.dev_index]);
    if (!ports.ok()) continue;
    for (const auto& p : *ports) {
      (void)src.BoundCounters(dev.dev_index, p.port,
                              [&](const BoundCounter& bc) {
                                if (bc.owner.pid) pids.insert(*bc.owner.pid);
                              });
    }
  }
  return pids;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTDIR\n";
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  auto opened = KernelTransport::Open();
  if (!opened.ok()) {
    std::cerr << "open: " << opened.error().ToString() << "\n";
    return 1;
  }
  auto rec =
      std::make_shared<RecordingTransport>(std::move(opened).value(), dir);
  TransportOpener opener =
      [rec]() -> Result<std::shared_ptr<NetlinkTransport>> {
    return std::shared_ptr<NetlinkTransport>(rec);
  };
  NetlinkStatCollector stat(opener, {});
  NetlinkResourceCollector res(opener, {.max_comms = 0});
  ScrapeContext ctx{std::chrono::steady_clock::now() +
                    std::chrono::seconds(30)};
  MetricSet metrics;
  Status s1 = stat.Collect(ctx, metrics);
  Status s2 = res.Collect(ctx, metrics);
  if (!s1.ok()) std::cerr << "netlink_stat: " << s1.error().ToString() << "\n";
  if (!s2.ok())
    std::cerr << "netlink_resource: " << s2.error().ToString() << "\n";

  // The rdma_cm IDs of every device (the fabric probe's live peers).
  RdmaNetlinkSource src(*rec);
  if (auto devs = src.Devices(); devs.ok()) {
    for (const auto& d : *devs) {
      (void)DumpCmIds(*rec, d.index, [](const CmIdEntry&) {});
    }
  }

  for (std::uint32_t pid : RecordedPids(dir)) {
    const fs::path comm_path = fs::path("/proc") / std::to_string(pid) / "comm";
    const fs::path dst = dir / "proc" / std::to_string(pid);
    fs::create_directories(dst);
    // procfs files report size 0, so copy by reading, not fs::copy_file.
    std::ifstream in(comm_path);
    std::string comm;
    if (in && std::getline(in, comm))
      std::ofstream(dst / "comm") << comm << "\n";
  }
  std::ofstream(dir / "metrics.txt")
      << prometheus::TextSerializer().Serialize(metrics.families());
  return s1.ok() && s2.ok() ? 0 : 1;
}
