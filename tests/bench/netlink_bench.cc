// Benchmarks of the netlink collectors: parsing and aggregating a 10k-QP
// resource dump (synthetic, kernel-shaped messages), the same dump's
// attributes read by our parser and by libnl-3's, and one whole scrape of
// both collectors over answers recorded from the real kernel.
#include <benchmark/benchmark.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include "collectors/netlink/netlink_resource_collector.h"
#include "collectors/netlink/netlink_stat_collector.h"
#include "collectors/netlink/resource_aggregator.h"
#include "collectors/nl/attr_parser.h"
#include "collectors/nl/kernel_transport.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/netlink/nl_test_util.h"

namespace rnic::nl {
namespace {

using testing::Done;
using testing::Msg;

constexpr int kProcesses = 50;

std::string FakeProc() {
  static const std::string dir = [] {
    std::string d =
        std::filesystem::temp_directory_path() / "rnic_nl_bench_proc";
    for (int i = 0; i < kProcesses; ++i) {
      std::filesystem::create_directories(d + "/" + std::to_string(5000 + i));
      std::ofstream(d + "/" + std::to_string(5000 + i) + "/comm")
          << "rank" << i << "\n";
    }
    return d;
  }();
  return dir;
}

// A RES_QP_GET dump of `n` QPs, 128 per message (the kernel fills each
// datagram with as many entries as fit), every field rdma-core sends.
std::vector<std::uint8_t> QpDump(int n) {
  std::vector<std::uint8_t> out;
  for (int base = 0; base < n; base += 128) {
    Msg m(kCmdResQpGet);
    m.U32(kAttrDevIndex, 0).Str(kAttrDevName, "mlx5_0").Begin(kAttrResQp);
    for (int i = base; i < std::min(n, base + 128); ++i) {
      m.Begin(kAttrResQpEntry)
          .U32(kAttrPortIndex, 1 + i % 2)
          .U32(kAttrResLqpn, 100 + i)
          .U32(kAttrResRqpn, 200 + i)
          .U32(kAttrResRqPsn, 7)
          .U32(kAttrResSqPsn, 9)
          .U8(kAttrResPathMigState, 2)
          .U8(kAttrResType, i % 7 == 0 ? 4 : 2)
          .U8(kAttrResState, i % 11 == 0 ? 6 : 3)
          .U32(kAttrResPdn, 3)
          .U32(kAttrResPid, 5000 + i % kProcesses)
          .End();
    }
    m.End();
    auto b = m.Bytes();
    out.insert(out.end(), b.begin(), b.end());
  }
  auto d = Done();
  out.insert(out.end(), d.begin(), d.end());
  return out;
}

void BM_QpDumpParseAggregate(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  ReplayTransport t;
  t.Set("RES_QP_GET_dump_dev0", QpDump(n));
  CommResolver comms(FakeProc());
  LabelCache labels;  // kept across scrapes, as the collector does
  for (auto _ : state) {
    comms.Clear();
    RdmaNetlinkSource src(t);
    DumpAggregate dump(comms);
    Status st = src.DumpResources(ResKind::kQp, 0,
                                  [&](const ResEntry& e) { dump.Add(e); });
    if (!st.ok()) state.SkipWithError(st.error().message.c_str());
    ResourceAggregator agg;
    agg.Commit("mlx5_0", std::move(dump));
    MetricSet out;
    agg.Emit(out, 20, labels);
    labels.Sweep();
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.counters["bytes"] =
      static_cast<double>(t.replies().begin()->second.size());
}
BENCHMARK(BM_QpDumpParseAggregate)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond);

// libnl's type for each of our attribute kinds (kBinary: any length).
std::uint16_t LibnlType(AttrKind kind) {
  switch (kind) {
    case AttrKind::kU8:
      return NLA_U8;
    case AttrKind::kU16:
      return NLA_U16;
    case AttrKind::kU32:
      return NLA_U32;
    case AttrKind::kU64:
      return NLA_U64;
    case AttrKind::kString:
      return NLA_STRING;
    case AttrKind::kNested:
      return NLA_NESTED;
    default:
      return NLA_UNSPEC;
  }
}

// The attribute reading of QpDump(100000) as DumpResources does
// it (each message, then each QP_ENTRY nest: port, type, state, pid), by
// the exporter's parser (Arg 0) or by libnl-3 (Arg 1: nlmsg_parse and
// nla_parse_nested against the same policy, nla_for_each_nested,
// nla_get_*), over the same messages and WalkMessages. libnl is given every
// advantage: its entries are parsed only up to the last attribute read, and
// nothing checks that its walk reached the end of a nest.
// collectors/netlink/README.md quotes the figures.
void BM_QpEntriesParse(benchmark::State& state) {
  const bool libnl = state.range(0) != 0;
  constexpr int kQps = 100000;
  const std::vector<std::uint8_t> bytes = QpDump(kQps);
  std::array<nla_policy, kAttrKnownEnd> policy{};
  for (std::uint16_t t = 0; t < kAttrKnownEnd; ++t) {
    policy[t].type = LibnlType(PolicyKind(t));
  }
  Attrs msg_attrs;
  Attrs entry;
  std::uint64_t sink = 0;
  std::size_t entries = 0;
  auto own = [&](const nlmsghdr& m) -> Status {
    if (Status st = msg_attrs.ParseMessage(m); !st.ok()) return st;
    auto table = msg_attrs.Nested(kAttrResQp);
    if (!table) return Status::Ok();
    return ForEachNested(*table, [&](std::uint16_t type, AttrView v) {
      if (type != kAttrResQpEntry) return Status::Ok();
      if (Status st = entry.ParseNested(v); !st.ok()) return st;
      sink += entry.U32(kAttrPortIndex).value_or(0) +
              entry.U8(kAttrResType).value_or(0) +
              entry.U8(kAttrResState).value_or(0) +
              entry.U32(kAttrResPid).value_or(0);
      ++entries;
      return Status::Ok();
    });
  };
  auto lib = [&](const nlmsghdr& m) -> Status {
    std::array<nlattr*, kAttrKnownEnd> tb;
    if (nlmsg_parse(const_cast<nlmsghdr*>(&m), 0, tb.data(), kAttrKnownEnd - 1,
                    policy.data()) < 0) {
      return Error{"nlmsg_parse", EBADMSG};
    }
    if (tb[kAttrResQp] == nullptr) return Status::Ok();
    std::array<nlattr*, kAttrResKernName + 1> e;
    nlattr* pos = nullptr;
    int rem = 0;
    nla_for_each_nested(pos, tb[kAttrResQp], rem) {
      if (nla_type(pos) != kAttrResQpEntry) continue;
      if (nla_parse_nested(e.data(), kAttrResKernName, pos, policy.data()) <
          0) {
        return Error{"nla_parse_nested", EBADMSG};
      }
      for (std::uint16_t t : {kAttrPortIndex, kAttrResPid}) {
        if (e[t] != nullptr) sink += nla_get_u32(e[t]);
      }
      for (std::uint16_t t : {kAttrResType, kAttrResState}) {
        if (e[t] != nullptr) sink += nla_get_u8(e[t]);
      }
      ++entries;
    }
    return Status::Ok();
  };
  for (auto _ : state) {
    bool finished = false;
    Status st = libnl ? WalkMessages(bytes, 0, lib, &finished)
                      : WalkMessages(bytes, 0, own, &finished);
    if (!st.ok() || !finished) state.SkipWithError("walk failed");
  }
  // Both parsers must see every entry of the dump (Msg's 4 KiB messages
  // hold fewer QPs than QpDump asks for: the count is what they hold).
  if (entries == 0 || entries % state.iterations() != 0) {
    state.SkipWithError("entries missing");
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(static_cast<std::int64_t>(entries));
  state.counters["qps"] = static_cast<double>(entries / state.iterations());
  state.SetLabel(libnl ? "libnl nla_parse" : "own Attrs");
}
BENCHMARK(BM_QpEntriesParse)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

TransportOpener OpenerOf(std::shared_ptr<ReplayTransport> t) {
  return [t]() -> Result<std::shared_ptr<NetlinkTransport>> {
    return std::shared_ptr<NetlinkTransport>(t);
  };
}

void BM_WholeScrapeReplayedCapture(benchmark::State& state,
                                   const char* capture) {
  const std::string dir =
      std::string(RNIC_FIXTURES_DIR) + "/netlink/" + capture;
  auto loaded = ReplayTransport::FromDirectory(dir);
  if (!loaded.ok()) {
    state.SkipWithError("no capture");
    return;
  }
  auto t = std::make_shared<ReplayTransport>(std::move(loaded).value());
  NetlinkStatCollector stat(OpenerOf(t), {.procfs = dir + "/proc"});
  NetlinkResourceCollector res(OpenerOf(t), {.procfs = dir + "/proc"});
  const ScrapeContext ctx{std::chrono::steady_clock::now() +
                          std::chrono::hours(1)};
  std::size_t series = 0;
  for (auto _ : state) {
    MetricSet out;
    (void)stat.Collect(ctx, out);
    (void)res.Collect(ctx, out);
    series = out.SeriesCount();
    benchmark::DoNotOptimize(out);
  }
  state.counters["series"] = static_cast<double>(series);
}
// 2 rxe devices idle-ish (75 series); and with 1000 QPs, 200 CQs, 100 MRs.
BENCHMARK_CAPTURE(BM_WholeScrapeReplayedCapture, rxe_live, "rxe-live")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(BM_WholeScrapeReplayedCapture, rxe_many, "rxe-many")
    ->Unit(benchmark::kMicrosecond);

// The real kernel's cost of 16 single-reply GETs (rtnetlink's RTM_GETLINK of
// lo, the one netlink every host has): asked one by one (a send and a read
// each), or together (one datagram, one recvmmsg per KernelTransport::kSlots).
// The transport change that sends a scrape's STAT_GETs and PORT_GETs together
// is measured here natively; its effect in the Soft-RoCE VM is below that
// harness's run-to-run noise.
void BM_KernelGetLinkOfLo(benchmark::State& state) {
  const bool together = state.range(0) != 0;
  auto t = KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2));
  if (!t.ok()) {
    state.SkipWithError("no rtnetlink");
    return;
  }
  Request r;
  r.msg_type = RTM_GETLINK;
  r.single_reply = true;
  r.name = "GETLINK";
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = static_cast<int>(if_nametoindex("lo"));
  r.header.resize(sizeof ifi);
  std::memcpy(r.header.data(), &ifi, sizeof ifi);
  const std::vector<Request> reqs(16, r);
  std::vector<Status> results;
  std::size_t answers = 0;
  for (auto _ : state) {
    if (together) {
      (*t)->ExchangeBatch(
          reqs,
          [&](std::size_t, const nlmsghdr&) {
            ++answers;
            return Status::Ok();
          },
          results);
    } else {
      for (const Request& q : reqs) {
        (void)(*t)->Exchange(q, [&](const nlmsghdr&) {
          ++answers;
          return Status::Ok();
        });
      }
    }
  }
  if (answers != 16 * static_cast<std::size_t>(state.iterations())) {
    state.SkipWithError("answers missing");
  }
  state.counters["syscalls_per_get"] =
      benchmark::Counter(static_cast<double>((*t)->sends() + (*t)->reads()) /
                         (16.0 * static_cast<double>(state.iterations())));
}
BENCHMARK(BM_KernelGetLinkOfLo)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace rnic::nl
