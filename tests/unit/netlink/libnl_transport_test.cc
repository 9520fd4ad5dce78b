// LibnlTransport against the real kernel: rtnetlink's link table (every
// host has one) read through the transport the collectors use, with a read
// buffer too small for one datagram so that the lost-datagram path runs.
#include "collectors/netlink/libnl_transport.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace rnic::nl {
namespace {

Request GetLink(bool dump, int ifindex, bool single_reply) {
  Request r;
  r.msg_type = RTM_GETLINK;
  r.dump = dump;
  r.single_reply = single_reply;
  r.name = "GETLINK";
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  r.header.resize(sizeof ifi);
  std::memcpy(r.header.data(), &ifi, sizeof ifi);
  return r;
}

// Interface indices of the RTM_NEWLINK messages of an answer.
std::vector<int> Indices(LibnlTransport& t, const Request& r, Status* st) {
  std::vector<int> seen;
  *st = t.Exchange(r, [&](const nlmsghdr& m) {
    if (m.nlmsg_type == RTM_NEWLINK &&
        m.nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg))) {
      ifinfomsg ifi{};
      std::memcpy(&ifi, NLMSG_DATA(&m), sizeof ifi);
      seen.push_back(ifi.ifi_index);
    }
    return Status::Ok();
  });
  return seen;
}

std::vector<int> KernelIndices() {
  std::vector<int> v;
  struct if_nameindex* list = if_nameindex();
  for (struct if_nameindex* p = list; p != nullptr && p->if_index != 0; ++p) {
    v.push_back(static_cast<int>(p->if_index));
  }
  if_freenameindex(list);
  std::sort(v.begin(), v.end());
  return v;
}

// Every link of one RTM_GETLINK dump, sorted; empty if the exchange failed.
std::vector<int> DumpedIndices(LibnlTransport& t) {
  Status st;
  std::vector<int> got = Indices(t, GetLink(true, 0, false), &st);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  std::sort(got.begin(), got.end());
  return got;
}

TEST(LibnlTransport, ADumpLargerThanTheBufferIsAskedAgainAndComesWhole) {
  // 64 bytes hold no RTM_NEWLINK: the first datagram is lost, the buffer
  // grows to it and the dump is asked again; every link comes exactly once.
  auto t = LibnlTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2), 64);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
  // The socket is left clean: the next dump answers the same.
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
}

TEST(LibnlTransport, ASingleAnswerLargerThanTheBufferIsAskedAgain) {
  for (bool single_reply : {true, false}) {  // without and with an ack
    auto t = LibnlTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2), 64);
    ASSERT_TRUE(t.ok()) << t.error().ToString();
    Status st;
    const int lo = static_cast<int>(if_nametoindex("lo"));
    ASSERT_NE(lo, 0);
    EXPECT_EQ(Indices(**t, GetLink(false, lo, single_reply), &st),
              std::vector<int>{lo});
    EXPECT_TRUE(st.ok()) << st.error().ToString();
    // A kernel error still ends the exchange (no interface 0x7fffffff).
    Indices(**t, GetLink(false, 0x7fffffff, single_reply), &st);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.error().errno_value, ENODEV);
    EXPECT_EQ(Indices(**t, GetLink(false, lo, single_reply), &st),
              std::vector<int>{lo});
  }
}

TEST(LibnlTransport, TheDefaultBufferReadsADumpWithoutLosingADatagram) {
  auto t = LibnlTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2));
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
}

}  // namespace
}  // namespace rnic::nl
