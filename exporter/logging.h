// spdlog set-up with the Prometheus exporters' log formats: logfmt and JSON,
// one line per message, timestamps in UTC.
#pragma once

#include <spdlog/formatter.h>

#include <memory>
#include <string>

namespace rnic {

void SetUpLogging(const std::string& level, const std::string& format);

// The formatter SetUpLogging installs for `format` ("logfmt" or "json").
// Payloads written as logfmt (LogfmtLine: collector=... msg=... k=v) keep
// their keys in both formats; other payloads become msg.
[[nodiscard]] std::unique_ptr<spdlog::formatter> MakeLogFormatter(
    const std::string& format);

}  // namespace rnic
