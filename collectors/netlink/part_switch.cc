#include "collectors/netlink/part_switch.h"

#include <spdlog/spdlog.h>

#include "collectors/netlink/rdma_nl_uapi.h"

namespace rnic::nl {

void PartSwitch::Disable(std::string_view part, const Error& why) {
  if (!disabled_.emplace(part).second) return;
  spdlog::info(
      "collector={} part={} disabled: the kernel does not support it ({})",
      collector_, part, why.ToString());
}

void PartSwitch::WarnOnce(const std::string& key, const std::string& message) {
  if (!warned_.insert(key).second) return;
  spdlog::warn("collector={} {}", collector_, message);
}

bool DeviceStillThere(NetlinkTransport& transport, std::uint32_t dev_index) {
  Request req{kCmdGet, false, {{kAttrDevIndex, dev_index}}};
  Status st =
      transport.Exchange(req, [](const nlmsghdr&) { return Status::Ok(); });
  return st.ok();
}

Status HandlePartError(PartSwitch& parts, NetlinkTransport& transport,
                       std::string_view part, std::uint32_t dev_index,
                       const std::string& dev_name, const Error& err) {
  if (IsVanished(err.errno_value)) return Status::Ok();
  if (IsPermission(err.errno_value)) {
    parts.WarnOnce(PartKey(part, dev_name) + "/perm",
                   "part=" + std::string(part) + " device=" + dev_name + ": " +
                       err.ToString());
    return err;
  }
  if (IsUnsupported(err.errno_value)) {
    if (!DeviceStillThere(transport, dev_index)) return Status::Ok();
    parts.Disable(PartKey(part, dev_name), err);
    return Status::Ok();
  }
  parts.WarnOnce(PartKey(part, dev_name) + "/err", "part=" + std::string(part) +
                                                       " device=" + dev_name +
                                                       ": " + err.ToString());
  return err;
}

}  // namespace rnic::nl
