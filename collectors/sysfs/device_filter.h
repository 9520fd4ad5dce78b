// Include/exclude regular expressions on RDMA device names. Names only:
// devices get renamed (rdma-core udev rules, systemd), so nothing else in the
// collector looks at a name.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "collectors/common/result.h"

namespace rnic::sysfs {

class DeviceFilter {
 public:
  DeviceFilter() = default;  // accepts everything

  // ECMAScript regexes, unanchored (a match anywhere in the name counts);
  // empty means "not set". The error names which pattern is invalid.
  [[nodiscard]] static Result<DeviceFilter> Create(const std::string& include,
                                                   const std::string& exclude);

  // Accepted if it matches `include` (when set) and not `exclude` (when set).
  [[nodiscard]] bool Accepts(std::string_view device) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;  // immutable, so copies can share it
};

}  // namespace rnic::sysfs
