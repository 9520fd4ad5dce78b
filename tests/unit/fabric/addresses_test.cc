#include "collectors/fabric/addresses.h"

#include <gtest/gtest.h>

namespace rnic::fabric {
namespace {

TEST(AddressesTest, JsonRoundTrip) {
  HostAddresses a;
  a.port = 18531;
  a.id = "00ff00ff00ff00ff";
  a.addresses = {{"mlx5_1", "10.1.0.5", 24},
                 {"mlx5_0", "10.0.0.5", 24},
                 {"mlx5_0", "fd00::5", 64}};
  const auto json = AddressesToJson(a);
  EXPECT_EQ(json,
            "{\"version\":1,\"id\":\"00ff00ff00ff00ff\",\"port\":18531,"
            "\"devices\":{\"mlx5_0\":[{\"ip\":"
            "\"10.0.0.5\",\"prefix\":24},{\"ip\":\"fd00::5\",\"prefix\":64}],"
            "\"mlx5_1\":[{\"ip\":\"10.1.0.5\",\"prefix\":24}]}}\n");
  auto back = ParseAddressesJson(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->port, 18531);
  EXPECT_EQ(back->id, "00ff00ff00ff00ff");
  ASSERT_EQ(back->addresses.size(), 3u);
  EXPECT_EQ(back->addresses[0], (DeviceAddress{"mlx5_0", "10.0.0.5", 24}));
  EXPECT_EQ(ParseAddressesJson(AddressesToJson({})).value().addresses.size(),
            0u);
}

TEST(AddressesTest, TheGroupIsAnnouncedAndReadBack) {
  HostAddresses a;
  a.group = "tor-7";
  a.addresses = {{"mlx5_0", "10.0.0.5", 24}};
  const auto json = AddressesToJson(a);
  EXPECT_NE(json.find(",\"group\":\"tor-7\","), std::string::npos) << json;
  auto back = ParseAddressesJson(json);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->group, "tor-7");
  // Absent: no group; one that is no group name is not announced.
  EXPECT_EQ(ParseAddressesJson(AddressesToJson({})).value().group, "");
  a.group = "a\"b";
  EXPECT_EQ(AddressesToJson(a).find("group"), std::string::npos);
  EXPECT_TRUE(ValidGroup("10.0.3.0/24"));
  EXPECT_FALSE(ValidGroup(""));
  EXPECT_FALSE(ValidGroup(std::string(129, 'a')));
  EXPECT_FALSE(ValidGroup("rack 1"));
}

TEST(AddressesTest, SubnetOfAnAddress) {
  EXPECT_EQ(SubnetOf({"d", "10.0.3.5", 24}), "10.0.3.0/24");
  EXPECT_EQ(SubnetOf({"d", "10.0.3.5", 22}), "10.0.0.0/22");
  EXPECT_EQ(SubnetOf({"d", "10.0.3.5", 32}), "10.0.3.5/32");
  EXPECT_EQ(SubnetOf({"d", "10.0.3.5", 0}), "0.0.0.0/0");
  EXPECT_EQ(SubnetOf({"d", "fd00:1:2:3::9", 64}), "fd00:1:2:3::/64");
  EXPECT_EQ(SubnetOf({"d", "nonsense", 24}), "");
}

TEST(AddressesTest, HostileAnswersAreRefused) {
  const std::pair<const char*, const char*> cases[] = {
      {"[1]", "addresses: must be a map"},
      {R"({"version":2,"port":1,"devices":{}})", "version must be 1"},
      {R"({"version":1,"port":0,"devices":{}})", "port must be"},
      {R"({"version":1,"port":1,"devices":{"d":{}}})", "must be a list"},
      {R"({"version":1,"port":1,"devices":{"d":[{"ip":"x","prefix":1}]}})",
       "not an address"},
      {R"({"version":1,"port":1,"devices":{"d":[{"ip":"1.2.3.4","prefix":33}]}})",
       "prefix: out of range"},
      {R"({"version":1,"port":1,"devices":{"d":[{"ip":"1.2.3.4"}]}})",
       "prefix: out of range"},
      {R"({"version":1,"port":1,"devices":{},"x":1})", "unknown key"},
      {"{", "not JSON"},
      {R"({"version":1,"id":"xyz","port":1,"devices":{}})", "id must be"},
      {R"({"version":1,"id":[1],"port":1,"devices":{}})", "id must be"},
      {R"({"version":1,"group":"a b","port":1,"devices":{}})", "group must be"},
      {R"({"version":1,"group":{},"port":1,"devices":{}})", "group must be"},
  };
  for (const auto& [text, want] : cases) {
    auto r = ParseAddressesJson(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message.find(want), std::string::npos)
        << text << " -> " << r.error().message;
  }
}

TEST(AddressesTest, SameSubnet) {
  EXPECT_TRUE(SameSubnet({"a", "10.0.3.1", 24}, {"b", "10.0.3.200", 32}));
  EXPECT_FALSE(SameSubnet({"a", "10.0.3.1", 24}, {"b", "10.0.4.1", 24}));
  EXPECT_TRUE(SameSubnet({"a", "10.0.3.1", 22}, {"b", "10.0.2.1", 24}));
  EXPECT_TRUE(SameSubnet({"a", "10.0.3.1", 0}, {"b", "192.168.0.1", 24}));
  EXPECT_TRUE(SameSubnet({"a", "fd00:1::1", 64}, {"b", "fd00:1::2", 64}));
  EXPECT_FALSE(SameSubnet({"a", "fd00:1::1", 64}, {"b", "fd00:2::2", 64}));
  EXPECT_FALSE(SameSubnet({"a", "10.0.3.1", 24}, {"b", "fd00::1", 64}));
}

TEST(AddressesTest, PairsFollowRails) {
  // Two rails on two subnets: rail 0 pairs with rail 0 only.
  const std::vector<DeviceAddress> local = {{"mlx5_0", "10.0.0.1", 24},
                                            {"mlx5_1", "10.1.0.1", 24}};
  const std::vector<DeviceAddress> remote = {{"mlx5_0", "10.0.0.2", 24},
                                             {"mlx5_1", "10.1.0.2", 24}};
  auto pairs = PairAddresses(local, remote, Pairing::kSubnet);
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0].local.device, "mlx5_0");
  EXPECT_EQ(pairs[0].remote.device, "mlx5_0");
  EXPECT_EQ(pairs[1].local.device, "mlx5_1");
  EXPECT_EQ(pairs[1].remote.device, "mlx5_1");
  EXPECT_EQ(PairAddresses(local, remote, Pairing::kAll).size(), 4u);
  // An address is never paired with itself.
  EXPECT_TRUE(PairAddresses(local, {local[0]}, Pairing::kAll).size() == 1u);
}

TEST(AddressesTest, MatchInterfacesByNetdev) {
  const auto got =
      MatchInterfaces({{"rxe0", "eth0"}, {"rxe1", "eth1"}, {"mlx5_0", ""}},
                      {{"eth0", "10.0.3.1", 24},
                       {"eth1", "10.0.4.1", 24},
                       {"lo", "127.0.0.1", 8},
                       {"eth0", "fd00::1", 64}});
  EXPECT_EQ(got, (std::vector<DeviceAddress>{{"rxe0", "10.0.3.1", 24},
                                             {"rxe0", "fd00::1", 64},
                                             {"rxe1", "10.0.4.1", 24}}));
}

}  // namespace
}  // namespace rnic::fabric
