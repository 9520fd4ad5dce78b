// The STAT_SET/STAT_GET reply parser, on messages built with libnl the way
// the kernel's nldev code lays them out (rxe cannot allocate per-QP counters,
// so no capture of a real reply exists in the VM).
#include "collectors/probe/qp_counter.h"

#include <gtest/gtest.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

namespace rnic::probe {
namespace {

void PutHwCounters(nl_msg* msg) {
  nlattr* table = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
  for (auto [name, value] : {std::pair{"rx_write_requests", 12ull},
                             std::pair{"local_ack_timeout_err", 3ull}}) {
    nlattr* e = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
    nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
    nla_put_u64(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
    nla_nest_end(msg, e);
  }
  nla_nest_end(msg, table);
}

TEST(QpCounterReplyTest, TopLevelCounterIdAndValues) {
  nl_msg* msg = nlmsg_alloc();
  nlmsg_put(msg, 0, 1, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET),
            0, 0);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 7);
  PutHwCounters(msg);
  auto r = ParseCounterReply(nlmsg_hdr(msg));
  nlmsg_free(msg);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->has_counter_id);
  EXPECT_EQ(r->counter_id, 7u);
  ASSERT_EQ(r->values.size(), 2u);
  EXPECT_EQ(r->values.at("rx_write_requests"), 12u);
  EXPECT_EQ(r->values.at("local_ack_timeout_err"), 3u);
}

TEST(QpCounterReplyTest, NestedUnderStatCounter) {
  nl_msg* msg = nlmsg_alloc();
  nlmsg_put(msg, 0, 1, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_GET),
            0, 0);
  nlattr* outer = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_COUNTER);
  nlattr* entry = nla_nest_start(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 9);
  PutHwCounters(msg);
  nla_nest_end(msg, entry);
  nla_nest_end(msg, outer);
  auto r = ParseCounterReply(nlmsg_hdr(msg));
  nlmsg_free(msg);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->counter_id, 9u);
  EXPECT_EQ(r->values.at("rx_write_requests"), 12u);
}

TEST(QpCounterReplyTest, ReplyWithoutCountersIsEmpty) {
  nl_msg* msg = nlmsg_alloc();
  nlmsg_put(msg, 0, 1, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_STAT_SET),
            0, 0);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
  auto r = ParseCounterReply(nlmsg_hdr(msg));
  nlmsg_free(msg);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_counter_id);
  EXPECT_TRUE(r->values.empty());
}

}  // namespace
}  // namespace rnic::probe
