#include "collectors/fabric/peer_sources.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace rnic::fabric {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> Hosts(const std::vector<PeerSpec>& peers) {
  std::vector<std::string> out;
  for (const auto& p : peers) out.push_back(p.host);
  return out;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/rnic_fabric_XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) {
    // Written aside and renamed, as config management does: a new inode.
    const auto tmp = path / (name + ".tmp");
    std::ofstream(tmp) << text;
    std::filesystem::rename(tmp, path / name);
    return (path / name).string();
  }
};

TEST(FileSdTest, JsonWithLabels) {
  auto r = ParseFileSd(R"([
    {"targets": ["10.0.0.1:9709", "node-b"], "labels": {"tor": "t1"}},
    {"targets": ["10.0.0.3"]}
  ])");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].host, "10.0.0.1");
  EXPECT_EQ((*r)[0].exchange_port, 9709);
  EXPECT_EQ((*r)[0].labels.at("tor"), "t1");
  EXPECT_EQ((*r)[1].labels.at("tor"), "t1");
  EXPECT_EQ((*r)[1].exchange_port, 0);
  EXPECT_TRUE((*r)[2].labels.empty());
}

TEST(FileSdTest, YamlAndEmpty) {
  auto r = ParseFileSd("- targets: [a, b]\n  labels: {rail: '1'}\n");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Hosts(*r), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ((*r)[1].labels.at("rail"), "1");
  EXPECT_TRUE(ParseFileSd("").value().empty());
}

TEST(FileSdTest, ErrorsNameTheEntry) {
  EXPECT_EQ(ParseFileSd("{targets: [a]}").error().message,
            "file_sd: must be a list of groups");
  EXPECT_EQ(ParseFileSd("[{targets: a}]").error().message,
            "file_sd[0].targets: must be a list");
  EXPECT_EQ(ParseFileSd("[{targets: [a], x: 1}]").error().message,
            "file_sd[0].x: unknown key");
  EXPECT_EQ(
      ParseFileSd("[{targets: ['a:x']}]").error().message,
      "file_sd[0].targets[0]: bad port 'x' in 'a:x' (expected 0 to 65535)");
  EXPECT_EQ(ParseFileSd("[{targets: [[a]]}]").error().message,
            "file_sd[0].targets[0]: must be a string");
  EXPECT_EQ(ParseFileSd("[{targets: [a], labels: {t: [1]}}]").error().message,
            "file_sd[0].labels.t: must be a string");
  EXPECT_FALSE(ParseFileSd("[{").ok());
}

TEST(PeerSourcesTest, FileChangesArePickedUpAndDropped) {
  TempDir dir;
  const auto path = dir.Write("peers.json", R"([{"targets": ["a", "b"]}])");
  FabricConfig cfg;
  cfg.peers = {{"static", 0, {}}};
  cfg.file_sd = {path};
  PeerSources s(cfg, nullptr);
  auto now = Clock::time_point{};
  EXPECT_TRUE(s.Refresh(now));
  EXPECT_EQ(Hosts(s.peers()), (std::vector<std::string>{"a", "b", "static"}));
  EXPECT_FALSE(s.Refresh(now));  // unchanged file: not re-read
  dir.Write("peers.json", R"([{"targets": ["b"]}])");
  EXPECT_TRUE(s.Refresh(now));
  EXPECT_EQ(Hosts(s.peers()), (std::vector<std::string>{"b", "static"}));
  // A broken file keeps the last good list and reports the error.
  dir.Write("peers.json", "[{");
  EXPECT_FALSE(s.Refresh(now));
  EXPECT_EQ(Hosts(s.peers()), (std::vector<std::string>{"b", "static"}));
  EXPECT_EQ(s.errors().count("file_sd " + path), 1u);
  // A removed file drops its peers.
  std::filesystem::remove(path);
  EXPECT_TRUE(s.Refresh(now));
  EXPECT_EQ(Hosts(s.peers()), (std::vector<std::string>{"static"}));
}

TEST(PeerSourcesTest, FirstSourceNamingAHostGivesItsLabels) {
  TempDir dir;
  const auto path =
      dir.Write("p.yml", "- targets: [a]\n  labels: {tor: from_file}\n");
  FabricConfig cfg;
  cfg.peers = {{"a", 0, {{"tor", "static"}}}};
  cfg.file_sd = {path};
  PeerSources s(cfg, nullptr);
  s.Refresh(Clock::time_point{});
  ASSERT_EQ(s.peers().size(), 1u);
  EXPECT_EQ(s.peers()[0].labels.at("tor"), "static");
}

TEST(PeerSourcesTest, DnsIsResolvedEveryRefreshInterval) {
  FabricConfig cfg;
  cfg.dns = "peers.example:9100";
  cfg.refresh = std::chrono::seconds(30);
  std::vector<std::string> answer = {"10.0.0.1", "10.0.0.2"};
  int lookups = 0;
  bool fail = false;
  std::string asked;
  PeerSources s(
      cfg, [&](const std::string& name) -> Result<std::vector<std::string>> {
        ++lookups;
        asked = name;
        if (fail) return Error{"SERVFAIL"};
        return answer;
      });
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  EXPECT_TRUE(s.Refresh(t0));
  EXPECT_EQ(asked, "peers.example");
  EXPECT_EQ(Hosts(s.peers()),
            (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(s.peers()[0].exchange_port, 9100);
  answer = {"10.0.0.2", "10.0.0.3"};
  EXPECT_FALSE(s.Refresh(t0 + std::chrono::seconds(29)));  // not yet
  EXPECT_EQ(lookups, 1);
  EXPECT_TRUE(s.Refresh(t0 + std::chrono::seconds(30)));
  EXPECT_EQ(Hosts(s.peers()),
            (std::vector<std::string>{"10.0.0.2", "10.0.0.3"}));
  // A failed lookup keeps the last answer.
  fail = true;
  EXPECT_FALSE(s.Refresh(t0 + std::chrono::seconds(60)));
  EXPECT_EQ(s.peers().size(), 2u);
  EXPECT_EQ(s.errors().at("dns"), "SERVFAIL");
  EXPECT_EQ(lookups, 3);
}

TEST(PeerSourcesTest, StampSeesSizeAndInodeChanges) {
  TempDir dir;
  const auto path = dir.Write("f", "1");
  const auto a = StampOf(path);
  ASSERT_TRUE(a.has_value());
  dir.Write("f", "1");  // same content, new inode
  const auto b = StampOf(path);
  ASSERT_TRUE(b.has_value());
  EXPECT_NE(*a, *b);
  EXPECT_FALSE(StampOf((dir.path / "missing").string()).has_value());
}

}  // namespace
}  // namespace rnic::fabric
