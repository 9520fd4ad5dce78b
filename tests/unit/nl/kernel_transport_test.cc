// KernelTransport against the real kernel: rtnetlink's link table (every
// host has one) read through the transport the collectors use, with a read
// buffer too small for one datagram so that the lost-datagram path runs.
#include "collectors/nl/kernel_transport.h"

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
std::vector<int> Indices(KernelTransport& t, const Request& r, Status* st) {
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
std::vector<int> DumpedIndices(KernelTransport& t) {
  Status st;
  std::vector<int> got = Indices(t, GetLink(true, 0, false), &st);
  EXPECT_TRUE(st.ok()) << st.error().ToString();
  std::sort(got.begin(), got.end());
  return got;
}

TEST(KernelTransport, ADumpLargerThanTheBufferIsAskedAgainAndComesWhole) {
  // 64 bytes hold no RTM_NEWLINK: the first datagram is lost, the buffer
  // grows to it and the dump is asked again; every link comes exactly once.
  auto t = KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2), 64);
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
  // The socket is left clean: the next dump answers the same.
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
}

TEST(KernelTransport, ASingleAnswerLargerThanTheBufferIsAskedAgain) {
  for (bool single_reply : {true, false}) {  // without and with an ack
    auto t = KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2), 64);
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

TEST(KernelTransport, TheDefaultBufferReadsADumpWithoutLosingADatagram) {
  auto t = KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2));
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
}

TEST(KernelTransport, ADumpAndItsEndComeInOneRead) {
  auto t = KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2));
  ASSERT_TRUE(t.ok()) << t.error().ToString();
  int datagrams = 0;
  (*t)->SetTap(
      [&](const Request&, std::span<const std::uint8_t>) { ++datagrams; });
  const std::uint64_t reads = (*t)->reads();
  EXPECT_EQ(DumpedIndices(**t), KernelIndices());
  // At least the links and NLMSG_DONE; each read took every one queued,
  // which the kernel makes inside the read before.
  ASSERT_GE(datagrams, 2);
  EXPECT_LT((*t)->reads() - reads, static_cast<std::uint64_t>(datagrams));
}

// Requests for lo, and for interfaces that do not exist, interleaved: more
// than one datagram's worth, so the batch is sent in parts.
TEST(KernelTransport, ABatchAnswersEveryRequestAndAnErrorCostsOnlyItsOwn) {
  for (std::size_t buffer : {std::size_t{0}, std::size_t{64}}) {
    SCOPED_TRACE(buffer);
    auto t =
        KernelTransport::Open(NETLINK_ROUTE, std::chrono::seconds(2), buffer);
    ASSERT_TRUE(t.ok()) << t.error().ToString();
    const int lo = static_cast<int>(if_nametoindex("lo"));
    ASSERT_NE(lo, 0);
    const std::size_t n = 2 * KernelTransport::kSlots + 3;
    std::vector<Request> reqs;
    for (std::size_t i = 0; i < n; ++i) {
      reqs.push_back(
          GetLink(false, i % 3 == 1 ? 0x7fffff00 + int(i) : lo, true));
    }
    // A request that is not a single-reply GET goes alone, in its turn.
    reqs.insert(reqs.begin() + 5, GetLink(true, 0, false));
    std::vector<std::vector<int>> seen(reqs.size());
    std::vector<Status> results;
    const std::uint64_t sends = (*t)->sends();
    (*t)->ExchangeBatch(
        reqs,
        [&](std::size_t i, const nlmsghdr& m) {
          if (m.nlmsg_type == RTM_NEWLINK &&
              m.nlmsg_len >= NLMSG_LENGTH(sizeof(ifinfomsg))) {
            ifinfomsg ifi{};
            std::memcpy(&ifi, NLMSG_DATA(&m), sizeof ifi);
            seen[i].push_back(ifi.ifi_index);
          }
          return Status::Ok();
        },
        results);
    ASSERT_EQ(results.size(), reqs.size());
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      SCOPED_TRACE(i);
      if (reqs[i].dump) {
        EXPECT_TRUE(results[i].ok());
        std::sort(seen[i].begin(), seen[i].end());
        EXPECT_EQ(seen[i], KernelIndices());
        continue;
      }
      ifinfomsg ifi{};
      std::memcpy(&ifi, reqs[i].header.data(), sizeof ifi);
      if (ifi.ifi_index == lo) {
        EXPECT_TRUE(results[i].ok()) << results[i].error().ToString();
        EXPECT_EQ(seen[i], std::vector<int>{lo});
      } else {
        ASSERT_FALSE(results[i].ok());
        EXPECT_EQ(results[i].error().errno_value, ENODEV);
        EXPECT_TRUE(seen[i].empty());
      }
    }
    if (buffer == 0) {
      // 5 GETs, the dump, then 14 GETs: 1 + 1 + 2 datagrams.
      EXPECT_EQ((*t)->sends() - sends, 4u);
    }
    // The socket is left clean.
    Status st;
    EXPECT_EQ(Indices(**t, GetLink(false, lo, true), &st),
              std::vector<int>{lo});
    EXPECT_TRUE(st.ok());
  }
}

}  // namespace
}  // namespace rnic::nl
