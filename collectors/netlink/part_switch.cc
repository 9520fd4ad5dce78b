#include "collectors/netlink/part_switch.h"

#include <spdlog/common.h>

#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {

void PartSwitch::Disable(std::string_view part, std::uint32_t dev_index,
                         std::string_view dev_name, const Error& why) {
  if (!disabled_.emplace(std::string(part), dev_index).second) return;
  const std::string err = why.ToString();
  LogEvent(spdlog::level::info, log_.collector(),
           "part disabled: the kernel does not support it",
           {{"part", part}, {"device", dev_name}, {"err", err}});
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
  if (IsUnsupported(err.errno_value)) {
    if (!DeviceStillThere(transport, dev_index)) return Status::Ok();
    parts.Disable(part, dev_index, dev_name, err);
    return Status::Ok();
  }
  // Permission denied or anything else: one line per part and device until
  // the errno changes.
  const std::string e = err.ToString();
  parts.log().Log(
      spdlog::level::warn, PartKey(part, dev_name) + "/err", "request failed",
      {{"part", part}, {"device", dev_name}, {"err", e}}, err.errno_value);
  return err;
}

}  // namespace rnic::nl
