// ethtool collector: one scrape of the roce fixture tree (mlx5 PF with FEC,
// standard statistics and a cached QSFP28 reading; a VF and Soft-RoCE that
// answer EOPNOTSUPP), replayed; one module read and decode (what the
// background poller does per module and interval, off the scrape path); and
// the decoder alone.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <iterator>

#include "collectors/ethtool/ethtool_collector.h"
#include "collectors/ethtool/module_eeprom.h"
#include "collectors/nl/replay_transport.h"

namespace {

const std::string kReplay = RNIC_FIXTURES_DIR "/ethtool/replay";
const std::string kSysfs = RNIC_FIXTURES_DIR "/roce/sys";

std::unique_ptr<rnic::nl::ReplayTransport> Replay() {
  auto r = rnic::nl::ReplayTransport::FromDirectory(kReplay);
  r->SetMissingErrno(EOPNOTSUPP);
  return std::make_unique<rnic::nl::ReplayTransport>(std::move(*r));
}

rnic::optics::EepromReadFn ReplayEeprom() {
  std::shared_ptr<rnic::nl::NetlinkTransport> t = Replay();
  auto client = std::make_shared<rnic::ethtool::EthtoolNetlink>(
      std::move(*rnic::ethtool::EthtoolNetlink::Open(*t)));
  return [t, client](std::string_view netdev,
                     const rnic::ethtool::EepromWindow& w) {
    return client->ReadEeprom(netdev, w);
  };
}

void BM_EthtoolScrapeFixtureTree(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  rnic::ethtool::Sources s;
  s.sysfs = kSysfs;
  s.transport = Replay();
  s.eeprom = ReplayEeprom();
  s.start_poller = false;
  rnic::ethtool::EthtoolCollector c(std::move(s), nullptr);
  const rnic::ScrapeContext ctx{std::chrono::steady_clock::now() +
                                std::chrono::hours(24)};
  {
    rnic::MetricSet warm;
    (void)c.Collect(ctx, warm);
    c.poller()->PollOnce();
  }
  for (auto _ : state) {
    rnic::MetricSet out;
    benchmark::DoNotOptimize(c.Collect(ctx, out).ok());
    benchmark::DoNotOptimize(out.SeriesCount());
  }
}
BENCHMARK(BM_EthtoolScrapeFixtureTree)->Unit(benchmark::kMicrosecond);

void BM_ModuleReadAndDecode(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  const auto read = ReplayEeprom();
  for (auto _ : state) {
    auto d = rnic::optics::ReadModule(read, "enp129s0f0np0");
    benchmark::DoNotOptimize(d.ok());
  }
}
BENCHMARK(BM_ModuleReadAndDecode)->Unit(benchmark::kMicrosecond);

void BM_DecodeCmis(benchmark::State& state) {
  const std::string dir = RNIC_FIXTURES_DIR "/ethtool/eeprom/cmis_qsfpdd/";
  auto load = [&](const std::string& name, rnic::optics::Page& page) {
    std::ifstream in(dir + name, std::ios::binary);
    std::vector<char> b((std::istreambuf_iterator<char>(in)),
                        std::istreambuf_iterator<char>());
    std::copy(b.begin(), b.end(), page.begin());
  };
  rnic::optics::ModulePages p;
  load("lower.bin", p.lower);
  for (int page : {0x00, 0x01, 0x02, 0x11}) {
    char name[32];
    std::snprintf(name, sizeof(name), "page0_%02xh.bin", page);
    load(name, p.upper[{0, static_cast<std::uint8_t>(page)}]);
  }
  for (auto _ : state) {
    auto d = rnic::optics::Decode(p);
    benchmark::DoNotOptimize(d.ok());
  }
}
BENCHMARK(BM_DecodeCmis)->Unit(benchmark::kMicrosecond);

}  // namespace
