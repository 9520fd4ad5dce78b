#include "collectors/roce/ethtool_stats.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace rnic {
namespace {

// The kernel fills GSTRINGS/GSTATS with its own current count, not the count
// the caller passes, so a table that grows between our GSSET_INFO and the
// next call would overrun a buffer sized exactly. ethtool(8) has the same
// race; we allocate head-room and detect the change from the returned count.
std::size_t Headroom(std::size_t n) { return n + 256; }

class IoctlEthtoolStats final : public EthtoolStatsSource {
 public:
  ~IoctlEthtoolStats() override {
    if (fd_ >= 0) close(fd_);
  }

  Result<EthtoolSnapshot> Read(const std::string& netdev) override {
    if (netdev.empty() || netdev.size() >= IFNAMSIZ) {
      return Error{"bad netdev name '" + netdev + "'", EINVAL};
    }
    if (fd_ < 0) {
      // Any socket family reaches dev_ioctl(); AF_NETLINK works where IPv4
      // is compiled out.
      fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      if (fd_ < 0) fd_ = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 0);
      if (fd_ < 0) return Error::FromErrno("socket for SIOCETHTOOL", errno);
    }
    // Two attempts: the table may change between our calls.
    for (int attempt = 0; attempt < 2; ++attempt) {
      auto count = StatsCount(netdev);
      if (!count.ok()) {
        cache_.erase(netdev);
        return count.error();
      }
      auto& names = cache_[netdev];
      if (!names || names->size() != *count) {
        auto fresh = Strings(netdev, *count);
        if (!fresh.ok()) {
          cache_.erase(netdev);
          return fresh.error();
        }
        names = std::make_shared<const EthtoolNames>(std::move(fresh).value());
        if (names->size() != *count) continue;  // changed under us
      }
      auto values = Stats(netdev, names->size());
      if (!values.ok()) return values.error();
      if (values->size() != names->size()) {
        names.reset();
        continue;
      }
      return EthtoolSnapshot{names, std::move(values).value()};
    }
    return Error{"ethtool statistics table of " + netdev +
                     " kept changing during the read",
                 EAGAIN};
  }

 private:
  int Ioctl(const std::string& netdev, void* data) {
    ifreq ifr{};
    std::memcpy(ifr.ifr_name, netdev.c_str(), netdev.size() + 1);
    ifr.ifr_data = static_cast<char*>(data);
    return ioctl(fd_, SIOCETHTOOL, &ifr) < 0 ? errno : 0;
  }

  Result<std::size_t> StatsCount(const std::string& netdev) {
    // ethtool_sset_info is followed by one u32 per bit set in sset_mask.
    alignas(ethtool_sset_info)
        std::uint8_t buf[sizeof(ethtool_sset_info) + sizeof(std::uint32_t)] =
            {};
    auto* req = reinterpret_cast<ethtool_sset_info*>(buf);
    req->cmd = ETHTOOL_GSSET_INFO;
    req->sset_mask = 1ULL << ETH_SS_STATS;
    if (int err = Ioctl(netdev, req); err != 0) {
      return Error::FromErrno("ETHTOOL_GSSET_INFO " + netdev, err);
    }
    // The kernel clears the bit when the driver has no statistics set.
    if ((req->sset_mask & (1ULL << ETH_SS_STATS)) == 0 || req->data[0] == 0) {
      return Error::FromErrno(netdev + " has no ethtool statistics",
                              EOPNOTSUPP);
    }
    return static_cast<std::size_t>(req->data[0]);
  }

  Result<EthtoolNames> Strings(const std::string& netdev, std::size_t n) {
    const std::size_t cap = Headroom(n);
    std::vector<std::uint8_t> buf(sizeof(ethtool_gstrings) +
                                  cap * ETH_GSTRING_LEN);
    auto* gs = reinterpret_cast<ethtool_gstrings*>(buf.data());
    gs->cmd = ETHTOOL_GSTRINGS;
    gs->string_set = ETH_SS_STATS;
    gs->len = static_cast<std::uint32_t>(n);
    if (int err = Ioctl(netdev, gs); err != 0) {
      return Error::FromErrno("ETHTOOL_GSTRINGS " + netdev, err);
    }
    if (gs->len > cap) {
      return Error{"ETHTOOL_GSTRINGS " + netdev + ": table outgrew buffer",
                   EOVERFLOW};
    }
    EthtoolNames names;
    names.reserve(gs->len);
    const char* base = reinterpret_cast<const char*>(gs->data);
    for (std::uint32_t i = 0; i < gs->len; ++i) {
      const char* s = base + i * ETH_GSTRING_LEN;
      names.emplace_back(s, strnlen(s, ETH_GSTRING_LEN));
    }
    return names;
  }

  Result<std::vector<std::uint64_t>> Stats(const std::string& netdev,
                                           std::size_t n) {
    const std::size_t cap = Headroom(n);
    std::vector<std::uint64_t> buf(
        (sizeof(ethtool_stats) + sizeof(std::uint64_t) - 1) /
            sizeof(std::uint64_t) +
        cap);
    auto* st = reinterpret_cast<ethtool_stats*>(buf.data());
    st->cmd = ETHTOOL_GSTATS;
    st->n_stats = static_cast<std::uint32_t>(n);
    if (int err = Ioctl(netdev, st); err != 0) {
      return Error::FromErrno("ETHTOOL_GSTATS " + netdev, err);
    }
    if (st->n_stats > cap) {
      return Error{"ETHTOOL_GSTATS " + netdev + ": table outgrew buffer",
                   EOVERFLOW};
    }
    return std::vector<std::uint64_t>(st->data, st->data + st->n_stats);
  }

  int fd_ = -1;
  std::map<std::string, std::shared_ptr<const EthtoolNames>> cache_;
};

class FixtureEthtoolStats final : public EthtoolStatsSource {
 public:
  explicit FixtureEthtoolStats(std::string dir) : dir_(std::move(dir)) {}

  Result<EthtoolSnapshot> Read(const std::string& netdev) override {
    std::ifstream in(dir_ + "/" + netdev);
    if (!in) {
      return Error::FromErrno("no ethtool capture for " + netdev, EOPNOTSUPP);
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return ParseEthtoolSOutput(ss.str());
  }

 private:
  std::string dir_;
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

std::unique_ptr<EthtoolStatsSource> MakeIoctlEthtoolStats() {
  return std::make_unique<IoctlEthtoolStats>();
}

std::unique_ptr<EthtoolStatsSource> MakeFixtureEthtoolStats(std::string dir) {
  return std::make_unique<FixtureEthtoolStats>(std::move(dir));
}

Result<EthtoolSnapshot> ParseEthtoolSOutput(std::string_view text) {
  EthtoolNames names;
  std::vector<std::uint64_t> values;
  int line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text =
        nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    line = Trim(line);
    if (line.empty() || line == "NIC statistics:") continue;
    // Names may contain ':' (some drivers use "queue:0"); the value follows
    // the last ": ".
    const auto sep = line.rfind(": ");
    if (sep == std::string_view::npos) {
      return Error{"ethtool -S line " + std::to_string(line_no) +
                   ": no 'name: value'"};
    }
    const std::string_view value = Trim(line.substr(sep + 2));
    std::uint64_t v = 0;
    auto [end, ec] =
        std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size()) {
      return Error{"ethtool -S line " + std::to_string(line_no) +
                   ": value is not an unsigned integer"};
    }
    names.emplace_back(Trim(line.substr(0, sep)));
    values.push_back(v);
  }
  if (names.empty()) return Error{"ethtool -S output has no statistics"};
  return EthtoolSnapshot{std::make_shared<const EthtoolNames>(std::move(names)),
                         std::move(values)};
}

}  // namespace rnic
