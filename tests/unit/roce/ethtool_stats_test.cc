#include "collectors/roce/ethtool_stats.h"

#include <gtest/gtest.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "tests/unit/roce/test_netns.h"

namespace rnic {
namespace {

using rnic::testing::TestNetns;

TEST(EthtoolSOutputTest, ParsesNamesAndValues) {
  auto s = ParseEthtoolSOutput(
      "NIC statistics:\n     rx_prio3_pause: 12\n"
      "     tx_prio3_pause_duration: 18446744073709551615\n"
      "     queue:0_x: 7\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->names->size(), 3u);
  EXPECT_EQ((*s->names)[0], "rx_prio3_pause");
  EXPECT_EQ(s->values[0], 12u);
  EXPECT_EQ(s->values[1], 18446744073709551615u);
  EXPECT_EQ((*s->names)[2], "queue:0_x");
  EXPECT_FALSE(ParseEthtoolSOutput("NIC statistics:\n     a: -1\n").ok());
  EXPECT_FALSE(ParseEthtoolSOutput("NIC statistics:\n     a 1\n").ok());
  EXPECT_FALSE(ParseEthtoolSOutput("NIC statistics:\n     a: 1x\n").ok());
  EXPECT_FALSE(ParseEthtoolSOutput("NIC statistics:\n").ok());
}

TEST(EthtoolFixtureTest, MissingCaptureIsEopnotsupp) {
  auto src = MakeFixtureEthtoolStats(RNIC_FIXTURES_DIR "/roce/ethtool");
  auto r = src->Read("ens5f0v0");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errno_value, EOPNOTSUPP);
  EXPECT_TRUE(src->Read("enp129s0f0np0").ok());
}

// Sets a veth's RX channel count through the real ioctl (what `ethtool -L`
// does); the veth statistics table has per-queue names, so its size changes.
bool SetRxChannels(const std::string& netdev, std::uint32_t n) {
  const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  ethtool_channels ch{};
  ch.cmd = ETHTOOL_GCHANNELS;
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, netdev.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = reinterpret_cast<char*>(&ch);
  bool ok = ioctl(fd, SIOCETHTOOL, &ifr) == 0;
  ch.cmd = ETHTOOL_SCHANNELS;
  ch.rx_count = n;
  ok = ok && ioctl(fd, SIOCETHTOOL, &ifr) == 0;
  close(fd);
  return ok;
}

class RealEthtoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ns_.ok()) GTEST_SKIP() << "cannot create a network namespace";
    ASSERT_EQ(ns_.Ip("link add va numrxqueues 4 numtxqueues 4 type veth peer "
                     "name vb numrxqueues 4 numtxqueues 4"),
              0);
    ASSERT_TRUE(ns_.Enter());
  }
  void TearDown() override { ns_.Leave(); }
  TestNetns ns_;
};

TEST_F(RealEthtoolTest, ReadsVethStatisticsFromTheKernel) {
  auto src = MakeIoctlEthtoolStats();
  auto s = src->Read("va");
  ASSERT_TRUE(s.ok()) << s.error().ToString();
  ASSERT_EQ(s->names->size(), s->values.size());
  // veth's first statistic is its peer's ifindex: a value we can check.
  ASSERT_FALSE(s->names->empty());
  EXPECT_EQ(s->names->front(), "peer_ifindex");
  EXPECT_EQ(s->values.front(), if_nametoindex("vb"));
  EXPECT_NE(
      std::find(s->names->begin(), s->names->end(), "rx_queue_3_xdp_packets"),
      s->names->end());

  // Same table on the next read: the cached strings are reused.
  auto again = src->Read("va");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->names.get(), s->names.get());

  // Fewer RX queues -> fewer names: the table is fetched again.
  ASSERT_TRUE(SetRxChannels("va", 1));
  auto after = src->Read("va");
  ASSERT_TRUE(after.ok()) << after.error().ToString();
  EXPECT_NE(after->names.get(), s->names.get());
  EXPECT_LT(after->names->size(), s->names->size());
  EXPECT_EQ(after->names->size(), after->values.size());
  EXPECT_EQ(std::find(after->names->begin(), after->names->end(),
                      "rx_queue_3_xdp_packets"),
            after->names->end());
}

TEST_F(RealEthtoolTest, LoopbackHasNoStatisticsAndVanishedNetdevIsEnodev) {
  auto src = MakeIoctlEthtoolStats();
  auto lo = src->Read("lo");
  ASSERT_FALSE(lo.ok());
  EXPECT_EQ(lo.error().errno_value, EOPNOTSUPP) << lo.error().ToString();

  ASSERT_TRUE(src->Read("va").ok());
  ASSERT_EQ(ns_.Ip("link del va"), 0);
  auto gone = src->Read("va");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().errno_value, ENODEV) << gone.error().ToString();
}

// The names the ioctl returns are the ones `ethtool -S` prints.
TEST_F(RealEthtoolTest, AgreesWithEthtoolCommand) {
  if (ns_.Exec("ethtool --version") != 0) GTEST_SKIP() << "no ethtool(8)";
  const std::string out = ::testing::TempDir() + "/rnic_ethtool_va.txt";
  ASSERT_EQ(ns_.Exec("sh -c 'ethtool -S va > " + out + "'"), 0);
  std::FILE* f = std::fopen(out.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof(buf), f))
    text.append(buf, n);
  std::fclose(f);
  std::remove(out.c_str());
  auto cli = ParseEthtoolSOutput(text);
  ASSERT_TRUE(cli.ok()) << cli.error().message;
  auto ours = MakeIoctlEthtoolStats()->Read("va");
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ(*cli->names, *ours->names);
}

}  // namespace
}  // namespace rnic
