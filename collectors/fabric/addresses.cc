#include "collectors/fabric/addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <tuple>

#include "collectors/common/yaml_map.h"

namespace rnic::fabric {
namespace {

// 4 or 16 bytes; empty when `ip` is no address.
std::vector<std::uint8_t> Bytes(const std::string& ip) {
  std::array<std::uint8_t, 16> buf{};
  if (inet_pton(AF_INET, ip.c_str(), buf.data()) == 1)
    return {buf.begin(), buf.begin() + 4};
  if (inet_pton(AF_INET6, ip.c_str(), buf.data()) == 1)
    return {buf.begin(), buf.end()};
  return {};
}

int PrefixOf(const sockaddr* mask) {
  int bits = 0;
  const std::uint8_t* p = nullptr;
  std::size_t n = 0;
  if (mask->sa_family == AF_INET) {
    p = reinterpret_cast<const std::uint8_t*>(
        &reinterpret_cast<const sockaddr_in*>(mask)->sin_addr);
    n = 4;
  } else {
    p = reinterpret_cast<const std::uint8_t*>(
        &reinterpret_cast<const sockaddr_in6*>(mask)->sin6_addr);
    n = 16;
  }
  for (std::size_t i = 0; i < n; ++i) bits += __builtin_popcount(p[i]);
  return bits;
}

Error Bad(const std::string& what) { return Error{"addresses: " + what}; }

}  // namespace

std::string AddressesToJson(const HostAddresses& a) {
  // Device names and addresses hold no characters that need escaping
  // (kernel names, inet_ntop output); anything else is dropped.
  auto safe = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](unsigned char c) {
      return std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':';
    });
  };
  std::string out = "{\"version\":1,";
  if (!a.id.empty() && a.id.size() <= 32 && safe(a.id)) {
    out += "\"id\":\"" + a.id + "\",";
  }
  out += "\"port\":" + std::to_string(a.port) + ",";
  if (ValidGroup(a.group)) out += "\"group\":\"" + a.group + "\",";
  out += "\"devices\":{";
  std::vector<DeviceAddress> sorted = a.addresses;
  std::sort(sorted.begin(), sorted.end(), [](const auto& x, const auto& y) {
    return std::tie(x.device, x.ip) < std::tie(y.device, y.ip);
  });
  std::string current;
  bool first_dev = true;
  bool first_addr = true;
  for (const auto& d : sorted) {
    if (!safe(d.device) || !safe(d.ip)) continue;
    if (first_dev || d.device != current) {
      if (!first_dev) out += "],";
      out += "\"" + d.device + "\":[";
      current = d.device;
      first_dev = false;
      first_addr = true;
    }
    if (!first_addr) out += ",";
    out +=
        "{\"ip\":\"" + d.ip + "\",\"prefix\":" + std::to_string(d.prefix) + "}";
    first_addr = false;
  }
  if (!first_dev) out += "]";
  out += "}}\n";
  return out;
}

Result<HostAddresses> ParseAddressesJson(std::string_view text) {
  if (text.size() > 1 << 20) return Bad("answer larger than 1 MiB");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Bad(std::string("not JSON: ") + e.what());
  }
  if (auto s = CheckMapKeys(root, "addresses",
                            {"version", "id", "port", "group", "devices"});
      !s)
    return s.error();
  if (!root.IsMap()) return Bad("must be an object");
  auto integer = [](const YAML::Node& n, long lo,
                    long hi) -> std::optional<long> {
    if (!n || !n.IsScalar()) return std::nullopt;
    const std::string& s = n.Scalar();
    long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi)
      return std::nullopt;
    return v;
  };
  if (integer(root["version"], 1, 1) != 1) return Bad("version must be 1");
  HostAddresses out;
  auto port = integer(root["port"], 1, 65535);
  if (!port) return Bad("port must be 1..65535");
  out.port = static_cast<int>(*port);
  if (root["id"]) {
    const YAML::Node id = root["id"];
    if (!id.IsScalar() || id.Scalar().empty() || id.Scalar().size() > 32 ||
        !std::all_of(id.Scalar().begin(), id.Scalar().end(),
                     [](unsigned char c) { return std::isxdigit(c); }))
      return Bad("id must be 1 to 32 hex digits");
    out.id = id.Scalar();
  }
  if (root["group"]) {
    const YAML::Node group = root["group"];
    if (!group.IsScalar() || !ValidGroup(group.Scalar()))
      return Bad("group must be 1 to 128 of [A-Za-z0-9._:/-]");
    out.group = group.Scalar();
  }
  const YAML::Node devs = root["devices"];
  auto names = MapKeys(devs, "addresses.devices");
  if (!names) return names.error();
  for (const auto& name : *names) {
    const YAML::Node list = devs[name];
    if (!list.IsSequence()) return Bad("devices." + name + ": must be a list");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where =
          "devices." + name + "[" + std::to_string(i) + "]";
      if (auto s =
              CheckMapKeys(list[i], "addresses." + where, {"ip", "prefix"});
          !s)
        return s.error();
      DeviceAddress d;
      d.device = name;
      if (!list[i]["ip"] || !list[i]["ip"].IsScalar())
        return Bad(where + ".ip: missing");
      d.ip = list[i]["ip"].Scalar();
      const auto bytes = Bytes(d.ip);
      if (bytes.empty()) return Bad(where + ".ip: not an address: " + d.ip);
      auto prefix =
          integer(list[i]["prefix"], 0, static_cast<long>(bytes.size() * 8));
      if (!prefix) return Bad(where + ".prefix: out of range");
      d.prefix = static_cast<int>(*prefix);
      out.addresses.push_back(std::move(d));
    }
  }
  if (out.addresses.size() > 4096) return Bad("more than 4096 addresses");
  return out;
}

bool ValidGroup(std::string_view group) {
  return !group.empty() && group.size() <= 128 &&
         std::all_of(group.begin(), group.end(), [](unsigned char c) {
           return std::isalnum(c) || c == '.' || c == '_' || c == ':' ||
                  c == '/' || c == '-';
         });
}

std::string SubnetOf(const DeviceAddress& a) {
  auto bytes = Bytes(a.ip);
  if (bytes.empty()) return "";
  const int prefix =
      std::clamp(a.prefix, 0, static_cast<int>(bytes.size() * 8));
  int bits = prefix;
  for (auto& b : bytes) {
    const int keep = std::clamp(bits, 0, 8);
    b &= static_cast<std::uint8_t>(keep == 0 ? 0 : 0xff << (8 - keep));
    bits -= 8;
  }
  std::array<char, INET6_ADDRSTRLEN> buf{};
  std::array<std::uint8_t, 16> raw{};
  std::copy(bytes.begin(), bytes.end(), raw.begin());
  const int family = bytes.size() == 4 ? AF_INET : AF_INET6;
  if (inet_ntop(family, raw.data(), buf.data(), buf.size()) == nullptr)
    return "";
  return std::string(buf.data()) + "/" + std::to_string(prefix);
}

bool SameSubnet(const DeviceAddress& a, const DeviceAddress& b) {
  const auto x = Bytes(a.ip);
  const auto y = Bytes(b.ip);
  if (x.empty() || x.size() != y.size()) return false;
  int bits = std::clamp(a.prefix, 0, static_cast<int>(x.size() * 8));
  for (std::size_t i = 0; bits > 0; ++i, bits -= 8) {
    const std::uint8_t mask =
        bits >= 8 ? 0xff : static_cast<std::uint8_t>(0xff << (8 - bits));
    if ((x[i] & mask) != (y[i] & mask)) return false;
  }
  return true;
}

std::vector<ProbePair> PairAddresses(const std::vector<DeviceAddress>& local,
                                     const std::vector<DeviceAddress>& remote,
                                     Pairing pairing) {
  std::set<ProbePair> out;
  for (const auto& l : local) {
    for (const auto& r : remote) {
      if (l.ip == r.ip) continue;
      const auto lb = Bytes(l.ip);
      const auto rb = Bytes(r.ip);
      if (lb.empty() || lb.size() != rb.size()) continue;
      if (pairing == Pairing::kSubnet && !SameSubnet(l, r)) continue;
      out.insert(ProbePair{l, r});
    }
  }
  return {out.begin(), out.end()};
}

std::vector<DeviceAddress> MatchInterfaces(
    const std::vector<std::pair<std::string, std::string>>& device_netdevs,
    const std::vector<InterfaceAddress>& interfaces) {
  std::vector<DeviceAddress> out;
  for (const auto& [dev, netdev] : device_netdevs) {
    for (const auto& i : interfaces) {
      if (!netdev.empty() && i.netdev == netdev)
        out.push_back(DeviceAddress{dev, i.ip, i.prefix});
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return std::tie(x.device, x.ip) < std::tie(y.device, y.ip);
  });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<InterfaceAddress> ReadInterfaces() {
  std::vector<InterfaceAddress> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_netmask == nullptr) continue;
    const int fam = i->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    char buf[INET6_ADDRSTRLEN] = {};
    const void* src =
        fam == AF_INET
            ? static_cast<const void*>(
                  &reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr)
            : static_cast<const void*>(
                  &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)
                       ->sin6_addr);
    if (fam == AF_INET6 &&
        IN6_IS_ADDR_LINKLOCAL(
            &reinterpret_cast<const sockaddr_in6*>(i->ifa_addr)->sin6_addr))
      continue;  // needs a scope id rdma_cm would not get from the peer
    if (inet_ntop(fam, src, buf, sizeof buf) == nullptr) continue;
    out.push_back({i->ifa_name, buf, PrefixOf(i->ifa_netmask)});
  }
  freeifaddrs(list);
  return out;
}

}  // namespace rnic::fabric
