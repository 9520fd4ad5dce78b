// Bookkeeping shared by the netlink collectors: which parts (one netlink
// command each) are switched off because the kernel lacks them, and
// log-once so a permanent condition is logged once, not every scrape.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "collectors/common/result.h"
#include "collectors/netlink/transport.h"

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

class PartSwitch {
 public:
  explicit PartSwitch(std::string collector)
      : collector_(std::move(collector)) {}
  [[nodiscard]] bool Enabled(std::string_view part) const {
    return !disabled_.contains(std::string(part));
  }
  // Turns `part` off for the life of the process; logs one line.
  void Disable(std::string_view part, const Error& why);
  // Logs `message` at warning level the first time `key` is seen.
  void WarnOnce(const std::string& key, const std::string& message);
  // Forgets a warning, so the condition is logged again if it comes back.
  void Clear(const std::string& key) { warned_.erase(key); }

 private:
  std::string collector_;
  std::set<std::string, std::less<>> disabled_;
  std::set<std::string> warned_;
};

// Decides what a failed request for `part` of one device means:
// - the device vanished (ENODEV, or EINVAL and a GET shows it is gone): skip;
// - the kernel or device lacks the command (EOPNOTSUPP/EINVAL while the
//   device is still there): switch "<part>:<device>" off, log once;
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
