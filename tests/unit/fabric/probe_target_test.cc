#include "collectors/fabric/probe_target.h"

#include <gtest/gtest.h>

namespace rnic::fabric {
namespace {

const std::vector<PeerSpec> kPeers = {{"node-a", 0, {}},
                                      {"10.0.3.2", 9100, {}}};
const std::map<std::string, HostAddresses> kKnown = {
    {"node-a", {18530, "", {{"mlx5_0", "192.168.1.7", 24}}}}};

Result<ProbeRequest> Parse(std::map<std::string, std::string> q) {
  return ParseProbeRequest(q, kPeers, kKnown, 9709);
}

TEST(ProbeTargetTest, PeersAndTheirAnnouncedAddressesAreAllowed) {
  auto r = Parse({{"target", "node-a"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->peer.host, "node-a");
  EXPECT_TRUE(r->remote_ip.empty());
  r = Parse({{"target", "node-a:9709"},
             {"operation", "write"},
             {"device", "mlx5_1"}});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->operation, probe::Operation::kWrite);
  EXPECT_EQ(r->device, "mlx5_1");
  r = Parse({{"target", "192.168.1.7"}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->peer.host, "node-a");
  EXPECT_EQ(r->remote_ip, "192.168.1.7");
  EXPECT_TRUE(Parse({{"target", "10.0.3.2:9100"}}).ok());
}

TEST(ProbeTargetTest, AnythingElseIsRefused) {
  const std::pair<std::map<std::string, std::string>, const char*> cases[] = {
      {{}, "missing target parameter"},
      {{{"target", ""}}, "missing target parameter"},
      {{{"target", "8.8.8.8"}}, "target 8.8.8.8 is not in the peer set"},
      {{{"target", "node-a:22"}}, "is not in the peer set"},
      {{{"target", "10.0.3.2:9709"}}, "is not in the peer set"},
      {{{"target", "node-a"}, {"module", "x"}}, "unknown parameter 'module'"},
      {{{"target", "node-a"}, {"operation", "atomic"}},
       "operation: must be send, write or read"},
      {{{"target", "node-a"}, {"device", "../x"}}, "device: not a device name"},
      {{{"target", "a b"}}, "target: bad character in host"},
  };
  for (const auto& [q, want] : cases) {
    auto r = Parse(q);
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_NE(r.error().message.find(want), std::string::npos)
        << r.error().message;
  }
}

}  // namespace
}  // namespace rnic::fabric
