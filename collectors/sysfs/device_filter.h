// Include/exclude regular expressions on RDMA device names. Names only:
// devices get renamed (rdma-core udev rules, systemd), so nothing else in the
// collector looks at a name.
#pragma once

#include <string_view>
#include <utility>

#include "collectors/common/compiled_regex.h"

namespace rnic::sysfs {

class DeviceFilter {
 public:
  DeviceFilter() = default;  // accepts everything

  // Unanchored regexes (a match anywhere in the name counts), compiled once
  // when the options were parsed; an unset one is not applied.
  DeviceFilter(CompiledRegex include, CompiledRegex exclude)
      : include_(std::move(include)), exclude_(std::move(exclude)) {}

  // Accepted if it matches `include` (when set) and not `exclude` (when set).
  [[nodiscard]] bool Accepts(std::string_view device) const {
    return (include_.empty() || include_.Search(device)) &&
           !exclude_.Search(device);
  }

 private:
  CompiledRegex include_;
  CompiledRegex exclude_;
};

}  // namespace rnic::sysfs
