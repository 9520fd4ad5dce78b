// spdlog set-up with the Prometheus exporters' log formats: logfmt and JSON,
// one line per message, timestamps in UTC.
#pragma once

#include <string>

namespace rnic {

void SetUpLogging(const std::string& level, const std::string& format);

}  // namespace rnic
