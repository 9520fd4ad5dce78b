#include "collectors/fabric/fabric_config.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <fstream>

namespace rnic::fabric {
namespace {

std::string ErrorOf(const std::string& yaml) {
  auto r = ParseFabricConfig(YAML::Load(yaml));
  return r.ok() ? "" : r.error().message;
}

TEST(FabricConfigTest, AbsentSectionGivesDefaults) {
  auto r = ParseFabricConfig(YAML::Node());
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->enabled);
  EXPECT_TRUE(r->peers.empty());
  EXPECT_EQ(r->exchange_port, 9709);
  EXPECT_EQ(r->pairing, Pairing::kSubnet);
  EXPECT_TRUE(r->Wants(probe::Operation::kSend));
  EXPECT_TRUE(r->Wants(probe::Operation::kWrite));
  EXPECT_FALSE(r->Wants(probe::Operation::kRead));
  EXPECT_EQ(r->MaxSize(), 64u);
  EXPECT_EQ(r->max_connections, 64);
  EXPECT_EQ(r->mesh, MeshConfig{});
  EXPECT_EQ(r->mesh.max_peers, 64);
  EXPECT_EQ(r->mesh.representatives, 3);
  EXPECT_EQ(r->mesh.rotation, std::chrono::seconds(8));
  EXPECT_EQ(r->mesh.group_label, "tor");
  EXPECT_FALSE(r->live_peers.enabled);
  EXPECT_EQ(r->live_peers.max_peers, 8);
}

TEST(FabricConfigTest, FullSection) {
  auto r = ParseFabricConfig(YAML::Load(R"(
peers:
  - 10.0.3.2
  - node-b:9100
  - {address: "[fd00::1]:9709", labels: {tor: t1, rail: "0"}}
file_sd: /etc/rnic/peers.json
dns: rnic-exporter.monitoring.svc:9709
refresh_interval: 10s
operations: [send, write, read]
sizes: [64, 4096]
interval: 500ms
iterations: 3
timeout: 200ms
connect_timeout: 1s
backoff_initial: 500ms
backoff_max: 30s
max_connections: 8
ack_timeout: 16
cpu_budget_percent: 2
pairing: all
intra_host: false
group_by: tor
mesh: {max_peers: 0, representatives: 2, rotation_period: 1m, group_label: rack}
live_peers: {enabled: true, max_peers: 3}
)"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->peers.size(), 3u);
  EXPECT_EQ(r->peers[0].host, "10.0.3.2");
  EXPECT_EQ(r->peers[0].exchange_port, 0);
  EXPECT_EQ(r->peers[1].host, "node-b");
  EXPECT_EQ(r->peers[1].exchange_port, 9100);
  EXPECT_EQ(r->peers[2].host, "fd00::1");
  EXPECT_EQ(r->peers[2].labels.at("rail"), "0");
  EXPECT_EQ(r->file_sd, std::vector<std::string>{"/etc/rnic/peers.json"});
  EXPECT_EQ(r->dns, "rnic-exporter.monitoring.svc:9709");
  EXPECT_EQ(r->refresh, std::chrono::seconds(10));
  EXPECT_TRUE(r->Wants(probe::Operation::kRead));
  EXPECT_EQ(r->MaxSize(), 4096u);
  EXPECT_EQ(r->interval, std::chrono::milliseconds(500));
  EXPECT_EQ(r->max_connections, 8);
  EXPECT_EQ(r->ack_timeout, 16);
  EXPECT_EQ(r->pairing, Pairing::kAll);
  EXPECT_FALSE(r->intra_host);
  EXPECT_EQ(r->group_by, "tor");
  EXPECT_EQ(r->mesh, (MeshConfig{0, 2, std::chrono::minutes(1), "rack"}));
  EXPECT_EQ(r->live_peers, (LivePeersConfig{true, 3}));
}

TEST(FabricConfigTest, ErrorsNameTheKey) {
  EXPECT_EQ(ErrorOf("{peerz: []}"), "fabric.peerz: unknown key");
  EXPECT_EQ(ErrorOf("{interval: banana}").rfind("fabric.interval:", 0), 0u);
  EXPECT_EQ(ErrorOf("{sizes: [64, 0]}"),
            "fabric.sizes[1]: must be between 1 and 65536");
  EXPECT_EQ(ErrorOf("{operations: [send, atomic]}"),
            "fabric.operations[1]: unknown operation 'atomic' (send, write, "
            "read)");
  EXPECT_EQ(ErrorOf("{peers: ['a:b']}"),
            "fabric.peers[0]: bad port 'b' in 'a:b' (expected 0 to 65535)");
  EXPECT_EQ(ErrorOf("{peers: [{labels: {}}]}"),
            "fabric.peers[0]: needs an address");
  EXPECT_EQ(ErrorOf("{peers: [{address: a, x: 1}]}"),
            "fabric.peers[0].x: unknown key");
  EXPECT_EQ(ErrorOf("{pairing: rail}"),
            "fabric.pairing: must be subnet or all, not 'rail'");
  EXPECT_EQ(ErrorOf("{group_by: 'a b'}"),
            "fabric.group_by: must be a label name, not 'a b'");
  EXPECT_EQ(ErrorOf("{backoff_initial: 10s, backoff_max: 1s}"),
            "fabric.backoff_max: must not be below backoff_initial");
  EXPECT_EQ(ErrorOf("{intra_host: maybe}"),
            "fabric.intra_host: must be true or false, not 'maybe'");
  EXPECT_EQ(ErrorOf("{ack_timeout: 32}"),
            "fabric.ack_timeout: must be between -1 and 31");
  EXPECT_EQ(ErrorOf("{max_connections: 0}"),
            "fabric.max_connections: must be between 1 and 65536");
  EXPECT_EQ(ErrorOf("{mesh: {max_peers: -1}}"),
            "fabric.mesh.max_peers: must be between 0 and 65536");
  EXPECT_EQ(ErrorOf("{mesh: {representatives: 0}}"),
            "fabric.mesh.representatives: must be between 1 and 1024");
  EXPECT_EQ(ErrorOf("{mesh: {rotation_period: 10ms}}")
                .rfind("fabric.mesh.rotation_period:", 0),
            0u);
  EXPECT_EQ(ErrorOf("{mesh: {group_label: 'a-b'}}"),
            "fabric.mesh.group_label: must be a label name, not 'a-b'");
  EXPECT_EQ(ErrorOf("{mesh: {k: 1}}"), "fabric.mesh.k: unknown key");
  EXPECT_EQ(ErrorOf("{live_peers: {max_peers: 0}}"),
            "fabric.live_peers.max_peers: must be between 1 and 1024");
  EXPECT_EQ(ErrorOf("{live_peers: {enabled: yes please}}"),
            "fabric.live_peers.enabled: must be true or false, not 'yes "
            "please'");
  EXPECT_EQ(ErrorOf("{live_peers: {port: 1}}"),
            "fabric.live_peers.port: unknown key");
  EXPECT_EQ(ErrorOf("{[a]: 1}").find("fabric: a key must be a plain name"), 0u);
}

// A file_sd file that exists must be a peer list when the config is read;
// one that does not exist yet is allowed (a generator may write it later).
TEST(FabricConfigTest, FileSdFilesAreCheckedWhenTheyExist) {
  const std::string dir = ::testing::TempDir();
  const std::string good = dir + "/fabric_config_test_good.json";
  const std::string bad = dir + "/fabric_config_test_bad.json";
  std::ofstream(good) << R"([{"targets": ["10.0.0.1"]}])";
  std::ofstream(bad) << R"([{"targets": "10.0.0.1"}])";
  EXPECT_EQ(ErrorOf("{file_sd: [" + good + ", /nonexistent/peers.json]}"), "");
  EXPECT_EQ(ErrorOf("{file_sd: /dev/zero}"),
            "fabric.file_sd: /dev/zero: not a regular file");
  EXPECT_EQ(ErrorOf("{file_sd: [" + good + ", " + dir + "]}"),
            "fabric.file_sd[1]: " + dir + ": not a regular file");
  EXPECT_EQ(
      ErrorOf("{file_sd: [" + bad + "]}"),
      "fabric.file_sd[0]: " + bad + ": file_sd[0].targets: must be a list");
  std::remove(good.c_str());
  std::remove(bad.c_str());
}

TEST(FabricConfigTest, SplitHostPort) {
  EXPECT_EQ(SplitHostPort("h").value(), (std::pair<std::string, int>{"h", 0}));
  EXPECT_EQ(SplitHostPort("h:1").value(),
            (std::pair<std::string, int>{"h", 1}));
  EXPECT_EQ(SplitHostPort("[::1]:9").value(),
            (std::pair<std::string, int>{"::1", 9}));
  EXPECT_FALSE(SplitHostPort("::1").ok());
  EXPECT_FALSE(SplitHostPort("h:0").ok());
  EXPECT_FALSE(SplitHostPort("h:65536").ok());
  EXPECT_FALSE(SplitHostPort("h:").ok());
  EXPECT_FALSE(SplitHostPort(":9").ok());
  EXPECT_FALSE(SplitHostPort("a/b").ok());
  EXPECT_FALSE(SplitHostPort("[::1").ok());
}

}  // namespace
}  // namespace rnic::fabric
