// RMON frame-size histograms of ETHTOOL_MSG_STATS_GET: hand-built replies
// (attribute numbers from linux/ethtool_netlink.h, laid out as
// net/ethtool/stats.c stats_put_rmon_hist does) through the real parser and
// the collector.
#include <gtest/gtest.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "collectors/ethtool/ethtool_collector.h"
#include "collectors/ethtool/ethtool_nl.h"
#include "collectors/nl/attr_writer.h"
#include "collectors/nl/replay_transport.h"
#include "tests/unit/common/captured_log.h"
#include "tests/unit/ethtool/ethtool_test_util.h"
#include "tests/unit/family_check.h"
#include "tests/unit/series_map.h"

namespace rnic::ethtool {
namespace {

using testing::kEthtoolFixtures;
constexpr char kNetdev[] = "enp129s0f0np0";
const std::string kPort = "device=mlx5_0,port=1,netdev=enp129s0f0np0,";
constexpr char kFamily[] = "rnic_ethtool_rmon_frame_size_packets_total";

void PutU64(nl::AttrWriter& w, std::uint16_t type, std::uint64_t v) {
  w.PutBinary(type, std::span(reinterpret_cast<const std::uint8_t*>(&v), 8));
}

// One _HIST_RX/_HIST_TX nest as the kernel writes it: _BKT_LOW (u32),
// _BKT_HI (u32), then _VAL (u64 via nla_put_u64_64bit, which puts a
// _GRP_PAD first where the u64 would be unaligned on strict architectures).
void Bucket(nl::AttrWriter& w, std::uint16_t dir, std::uint32_t low,
            std::uint32_t high, std::uint64_t val, bool pad = false) {
  const std::size_t n = w.BeginNest(dir);
  w.PutU32(ETHTOOL_A_STATS_GRP_HIST_BKT_LOW, low);
  w.PutU32(ETHTOOL_A_STATS_GRP_HIST_BKT_HI, high);
  if (pad) w.PutFlag(ETHTOOL_A_STATS_GRP_PAD);
  PutU64(w, ETHTOOL_A_STATS_GRP_HIST_VAL, val);
  w.EndNest(n);
}

// ETHTOOL_MSG_STATS_GET_REPLY with one ETHTOOL_A_STATS_GRP nest for rmon:
// _GRP_ID ETHTOOL_STATS_RMON, _GRP_SS_ID, the histogram nests `hist`
// writes, then _GRP_STAT { ETHTOOL_A_STATS_RMON_UNDERSIZE: u64 }. Followed by
// the ack (NLMSG_ERROR 0) that ends the exchange.
template <typename Fn>
std::vector<std::uint8_t> RmonReply(Fn&& hist) {
  nl::AttrWriter w;
  const std::size_t hdr = w.BeginNest(ETHTOOL_A_STATS_HEADER);
  w.PutString(ETHTOOL_A_HEADER_DEV_NAME, kNetdev);
  w.EndNest(hdr);
  const std::size_t grp = w.BeginNest(ETHTOOL_A_STATS_GRP);
  w.PutU32(ETHTOOL_A_STATS_GRP_ID, ETHTOOL_STATS_RMON);
  w.PutU32(ETHTOOL_A_STATS_GRP_SS_ID, 23);  // ETH_SS_STATS_RMON
  hist(w);
  const std::size_t stat = w.BeginNest(ETHTOOL_A_STATS_GRP_STAT);
  PutU64(w, ETHTOOL_A_STATS_RMON_UNDERSIZE, 4);
  w.EndNest(stat);
  w.EndNest(grp);
  const auto& attrs = w.bytes();

  std::vector<std::uint8_t> out;
  auto append = [&](const void* p, std::size_t n) {
    const auto* b = static_cast<const std::uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  };
  const nlmsghdr h{
      static_cast<std::uint32_t>(NLMSG_HDRLEN + GENL_HDRLEN + attrs.size()),
      0x15, 0, 0, 0};
  const genlmsghdr g{ETHTOOL_MSG_STATS_GET_REPLY, ETHTOOL_GENL_VERSION, 0};
  append(&h, sizeof h);
  append(&g, sizeof g);
  append(attrs.data(), attrs.size());
  out.resize(NLMSG_ALIGN(out.size()));
  const nlmsghdr ack{NLMSG_HDRLEN + sizeof(nlmsgerr), NLMSG_ERROR, 0x100, 0, 0};
  const nlmsgerr err{0, {NLMSG_HDRLEN, 0, 0, 0, 0}};
  append(&ack, sizeof ack);
  append(&err, sizeof err);
  return out;
}

// The first message of `bytes`, aligned for nlmsghdr.
std::vector<std::uint32_t> First(const std::vector<std::uint8_t>& bytes) {
  nlmsghdr h;
  std::memcpy(&h, bytes.data(), sizeof h);
  std::vector<std::uint32_t> out((h.nlmsg_len + 3) / 4);
  std::memcpy(out.data(), bytes.data(), h.nlmsg_len);
  return out;
}

StatsReply Parse(const std::vector<std::uint8_t>& bytes) {
  const auto m = First(bytes);
  StatsReply r;
  const Status st =
      ParseStatsReply(*reinterpret_cast<const nlmsghdr*>(m.data()), r);
  EXPECT_TRUE(st.ok()) << st.error().message;
  return r;
}

// A driver with RX and TX histograms and an open-ended last bucket
// (high 0, which ethtool(8) prints as "1519toMaxOctets").
void RxTxWithOpenEnd(nl::AttrWriter& w) {
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 0, 64, 10);
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 65, 1518, 20, /*pad=*/true);
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 1519, 0, 30);
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 0, 64, 5);
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 65, 1518, 0);
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 1519, 0, 6);
}

// Malformed nests among good ones.
void WithMalformed(nl::AttrWriter& w) {
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 0, 64, 10);  // good
  {                                                   // _BKT_HI missing
    const std::size_t n = w.BeginNest(ETHTOOL_A_STATS_GRP_HIST_RX);
    w.PutU32(ETHTOOL_A_STATS_GRP_HIST_BKT_LOW, 65);
    PutU64(w, ETHTOOL_A_STATS_GRP_HIST_VAL, 99);
    w.EndNest(n);
  }
  {  // _VAL truncated to 4 bytes
    const std::size_t n = w.BeginNest(ETHTOOL_A_STATS_GRP_HIST_RX);
    w.PutU32(ETHTOOL_A_STATS_GRP_HIST_BKT_LOW, 128);
    w.PutU32(ETHTOOL_A_STATS_GRP_HIST_BKT_HI, 255);
    w.PutU32(ETHTOOL_A_STATS_GRP_HIST_VAL, 98);
    w.EndNest(n);
  }
  {  // truncated: the nest ends inside _BKT_LOW, which claims 12 bytes
    const std::uint16_t inner[4] = {12, ETHTOOL_A_STATS_GRP_HIST_BKT_LOW, 64,
                                    0};
    w.PutBinary(ETHTOOL_A_STATS_GRP_HIST_TX,
                std::span(reinterpret_cast<const std::uint8_t*>(inner), 8));
  }
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 512, 256, 97);  // low above high
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 0, 0, 96);      // no range at all
  Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 1519, 0, 6);    // good
}

TEST(RmonHist, ParsesRxAndTxBucketsWithTheOpenEnd) {
  const StatsReply r = Parse(RmonReply(RxTxWithOpenEnd));
  ASSERT_EQ(r.hist.size(), 6u);
  EXPECT_EQ(r.bad_buckets, 0u);
  EXPECT_FALSE(r.hist[0].tx);
  EXPECT_EQ(r.hist[0].group, static_cast<std::uint32_t>(ETHTOOL_STATS_RMON));
  EXPECT_EQ(r.hist[1].low, 65u);
  EXPECT_EQ(r.hist[1].high, 1518u);
  EXPECT_EQ(r.hist[1].value, 20u);  // read past the pad
  EXPECT_EQ(r.hist[2].high, 0u);
  EXPECT_TRUE(r.hist[5].tx);
  EXPECT_EQ(r.hist[5].value, 6u);
  // The group's counters are still read.
  ASSERT_EQ(r.stats.size(), 1u);
  EXPECT_EQ(r.stats[0].id,
            static_cast<std::uint32_t>(ETHTOOL_A_STATS_RMON_UNDERSIZE));
  EXPECT_EQ(r.stats[0].value, 4u);
}

TEST(RmonHist, MalformedNestsCostOnlyTheirBucket) {
  const StatsReply r = Parse(RmonReply(WithMalformed));
  EXPECT_EQ(r.bad_buckets, 5u);
  ASSERT_EQ(r.hist.size(), 2u);
  EXPECT_EQ(r.hist[0].value, 10u);
  EXPECT_EQ(r.hist[1].low, 1519u);
  EXPECT_EQ(r.stats.size(), 1u);
}

using Series = rnic::testing::SeriesMap;

// The collector's series of kFamily (and the rmon counter) for a replay
// where the netdev's STATS_GET answer is `stats`, or the fixture's.
Series Collect(const std::vector<std::uint8_t>* stats) {
  auto r = nl::ReplayTransport::FromDirectory(kEthtoolFixtures + "/replay");
  EXPECT_TRUE(r.ok());
  r->SetMissingErrno(EOPNOTSUPP);
  if (stats) r->Set(std::string("ETHTOOL_STATS_GET_") + kNetdev, *stats);
  Sources s;
  s.sysfs = RNIC_FIXTURES_DIR "/roce/sys";
  s.transport = std::make_unique<nl::ReplayTransport>(std::move(*r));
  EthtoolCollector c(std::move(s), nullptr);
  MetricSet out;
  const ScrapeContext ctx{std::chrono::steady_clock::now() +
                          std::chrono::hours(1)};
  EXPECT_TRUE(c.Collect(ctx, out).ok());
  rnic::testing::ExpectDeclared(MakeEthtoolCollectorSpec(), out.families());
  Series got;
  for (const auto& f : out.families()) {
    if (f.name != kFamily && f.name != "rnic_ethtool_rmon_undersize_pkts_total")
      continue;
    for (const auto& m : f.metric) {
      got[rnic::testing::SeriesKey(f.name, m)] = m.counter.value;
    }
  }
  return got;
}

std::string Key(const std::string& dir, const std::string& low,
                const std::string& high) {
  return std::string(kFamily) + "{" + kPort + "direction=" + dir +
         ",low=" + low + ",high=" + high + ",}";
}

TEST(RmonHist, CollectorExportsOneCounterPerBucketAndDirection) {
  const auto bytes = RmonReply(RxTxWithOpenEnd);
  const Series want = {
      {Key("rx", "0", "64"), 10},
      {Key("rx", "65", "1518"), 20},
      {Key("rx", "1519", "+Inf"), 30},
      {Key("tx", "0", "64"), 5},
      {Key("tx", "65", "1518"), 0},
      {Key("tx", "1519", "+Inf"), 6},
      {"rnic_ethtool_rmon_undersize_pkts_total{" + kPort + "}", 4}};
  EXPECT_EQ(Collect(&bytes), want);
}

TEST(RmonHist, BucketLabelSetsAreBuiltOnceAcrossScrapes) {
  // The hot path builds no label set for a bucket it has seen: the second
  // scrape's histogram samples carry the first scrape's sets.
  const auto bytes = RmonReply(RxTxWithOpenEnd);
  auto r = nl::ReplayTransport::FromDirectory(kEthtoolFixtures + "/replay");
  ASSERT_TRUE(r.ok());
  r->SetMissingErrno(EOPNOTSUPP);
  r->Set(std::string("ETHTOOL_STATS_GET_") + kNetdev, bytes);
  Sources s;
  s.sysfs = RNIC_FIXTURES_DIR "/roce/sys";
  s.transport = std::make_unique<nl::ReplayTransport>(std::move(*r));
  EthtoolCollector c(std::move(s), nullptr);
  const ScrapeContext ctx{std::chrono::steady_clock::now() +
                          std::chrono::hours(1)};
  auto sets = [&] {
    MetricSet out;
    EXPECT_TRUE(c.Collect(ctx, out).ok());
    // The sets themselves, held: a set built anew cannot reuse the
    // address of one still alive.
    std::vector<LabelSetPtr> v;
    for (const auto& f : out.raw()) {
      if (f.desc->name != kFamily) continue;
      for (const Sample& smp : f.samples) v.push_back(smp.labels);
    }
    return v;
  };
  const auto first = sets();
  ASSERT_EQ(first.size(), 6u);
  EXPECT_EQ(sets(), first);
}

TEST(RmonHist, CollectorDropsMalformedBucketsWithOneLogLine) {
  CapturedLog log;
  const auto bytes = RmonReply(WithMalformed);
  const Series want = {
      {Key("rx", "0", "64"), 10},
      {Key("tx", "1519", "+Inf"), 6},
      {"rnic_ethtool_rmon_undersize_pkts_total{" + kPort + "}", 4}};
  EXPECT_EQ(Collect(&bytes), want);
  const std::string text = log.Take();
  EXPECT_NE(text.find("malformed rmon histogram buckets"), std::string::npos)
      << text;
}

TEST(RmonHist, ABucketNamedTwiceIsExportedOnce) {
  CapturedLog log;
  const auto bytes = RmonReply([](nl::AttrWriter& w) {
    Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 0, 64, 10);
    Bucket(w, ETHTOOL_A_STATS_GRP_HIST_RX, 0, 64, 11);
    Bucket(w, ETHTOOL_A_STATS_GRP_HIST_TX, 0, 64, 12);  // other direction
  });
  const Series want = {
      {Key("rx", "0", "64"), 10},
      {Key("tx", "0", "64"), 12},
      {"rnic_ethtool_rmon_undersize_pkts_total{" + kPort + "}", 4}};
  EXPECT_EQ(Collect(&bytes), want);
  EXPECT_NE(log.Take().find("malformed rmon histogram buckets"),
            std::string::npos);
}

TEST(RmonHist, Mlx5FixtureHasTheRxHistogramOnly) {
  // tests/fixtures/ethtool/replay: mlx5e_rmon_ranges, RX only.
  const Series got = Collect(nullptr);
  EXPECT_EQ(got.at(Key("rx", "1024", "1518")), 600000);
  EXPECT_EQ(got.at(Key("rx", "8192", "10239")), 0);
  int rx = 0;
  for (const auto& [k, v] : got) {
    EXPECT_EQ(k.find("direction=tx"), std::string::npos) << k;
    rx += k.find("direction=rx") != std::string::npos;
  }
  EXPECT_EQ(rx, 10);
}

}  // namespace
}  // namespace rnic::ethtool
