// Bookkeeping shared by the netlink collectors: which parts (one netlink
// command each) are switched off because the kernel lacks them. Persistent
// failures are logged through the collector's LogOnce, not every scrape.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "collectors/common/log_once.h"
#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

// errno classes of a failed request.
[[nodiscard]] inline bool IsUnsupported(int err) {
  return err == EOPNOTSUPP || err == EINVAL || err == ENOSYS;
}
[[nodiscard]] inline bool IsPermission(int err) {
  return err == EPERM || err == EACCES;
}
// The device went away between two requests of one scrape.
[[nodiscard]] inline bool IsVanished(int err) {
  return err == ENODEV || err == ENXIO;
}

// Parts are switched off per device registration: keyed by the device's
// netlink index, which the kernel never gives to the next registration, so
// a device removed and added again under its name is asked again (a request
// that failed mid-teardown must not cost the new device its counters).
class PartSwitch {
 public:
  explicit PartSwitch(std::string collector) : log_(std::move(collector)) {}
  // Asked for every port and part at every scrape: no key is built.
  [[nodiscard]] bool Enabled(std::string_view part,
                             std::uint32_t dev_index) const {
    return !disabled_.contains(KeyView{part, dev_index});
  }
  // Turns `part` of this registration of the device off; logs one line.
  void Disable(std::string_view part, std::uint32_t dev_index,
               std::string_view dev_name, const Error& why);
  // The collector's log-once keys ("open", "devices", "<part>:<dev>/err").
  [[nodiscard]] LogOnce& log() { return log_; }

 private:
  using Key = std::pair<std::string, std::uint32_t>;  // part, device index
  using KeyView = std::pair<std::string_view, std::uint32_t>;
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const int c = std::string_view(a.first).compare(b.first);
      return c < 0 || (c == 0 && a.second < b.second);
    }
  };
  std::set<Key, KeyLess> disabled_;
  LogOnce log_;
};

// Decides what a failed request for `part` of one device means:
// - the device vanished (ENODEV, or EINVAL and a GET shows it is gone): skip;
// - the kernel or device lacks the command (EOPNOTSUPP/EINVAL while the
//   device is still there): switch the part off for this registration of
//   the device, log once;
// - permission denied or anything else: logged once and returned, so the
//   collector reports failure through its success metric.
[[nodiscard]] Status HandlePartError(
    PartSwitch& parts, NetlinkTransport& transport, std::string_view part,
    std::uint32_t dev_index, const std::string& dev_name, const Error& err);

// True when RDMA_NLDEV_CMD_GET still finds the device index.
[[nodiscard]] bool DeviceStillThere(NetlinkTransport& transport,
                                    std::uint32_t dev_index);

[[nodiscard]] inline std::string PartKey(std::string_view part,
                                         const std::string& dev_name) {
  return std::string(part) + ":" + dev_name;
}

}  // namespace rnic::nl
