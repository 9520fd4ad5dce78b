#include "collectors/sysfs/device_filter.h"

// GCC 12 reports a false -Wmaybe-uninitialized inside <regex> at -O2 with
// sanitizers; keep it out of -Werror builds for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <optional>
#include <regex>

namespace rnic::sysfs {

struct DeviceFilter::Impl {
  std::optional<std::regex> include;
  std::optional<std::regex> exclude;
};

namespace {

Result<std::optional<std::regex>> Compile(const std::string& pattern,
                                          const char* which) {
  if (pattern.empty()) return std::optional<std::regex>();
  try {
    return std::optional<std::regex>(std::regex(pattern));
  } catch (const std::regex_error& e) {
    return Error{std::string(which) + ": invalid regular expression \"" +
                 pattern + "\": " + e.what()};
  }
}

}  // namespace

Result<DeviceFilter> DeviceFilter::Create(const std::string& include,
                                          const std::string& exclude) {
  auto inc = Compile(include, "device-include");
  if (!inc.ok()) return inc.error();
  auto exc = Compile(exclude, "device-exclude");
  if (!exc.ok()) return exc.error();
  auto impl = std::make_shared<Impl>();
  impl->include = std::move(inc).value();
  impl->exclude = std::move(exc).value();
  DeviceFilter f;
  f.impl_ = std::move(impl);
  return f;
}

bool DeviceFilter::Accepts(std::string_view device) const {
  if (!impl_) return true;
  if (impl_->include &&
      !std::regex_search(device.begin(), device.end(), *impl_->include)) {
    return false;
  }
  if (impl_->exclude &&
      std::regex_search(device.begin(), device.end(), *impl_->exclude)) {
    return false;
  }
  return true;
}

}  // namespace rnic::sysfs
