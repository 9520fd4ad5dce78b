// The one log facility of the collectors. Lines are logfmt with the collector
// as a key of its own (collector=sysfs msg="value skipped" key=... err=...),
// never folded into msg, so log pipelines can filter by collector.
//
// A condition that persists (a counter that reads EINVAL, a missing PMU, a
// netdev without DCB) is logged when it first appears and again only when it
// changes (another errno), never at every scrape. Clear() re-arms a key once
// the condition is gone, so a recurrence is news again.
#pragma once

#include <spdlog/common.h>

#include <functional>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "collectors/common/result.h"
#include "collectors/common/string_hash.h"

namespace rnic {

using LogField = std::pair<std::string_view, std::string_view>;

// collector=<c> msg="<msg>" k1=v1 ...; values quoted and escaped as logfmt
// needs (spaces, quotes, '=', control characters).
[[nodiscard]] std::string LogfmtLine(std::string_view collector,
                                     std::string_view msg,
                                     std::initializer_list<LogField> fields);

// Logs one line now (events that are news every time they happen).
void LogEvent(spdlog::level::level_enum level, std::string_view collector,
              std::string_view msg, std::initializer_list<LogField> fields);

class LogOnce {
 public:
  explicit LogOnce(std::string collector) : collector_(std::move(collector)) {}
  LogOnce(const LogOnce&) = delete;
  LogOnce& operator=(const LogOnce&) = delete;

  // Logs when `key` is new, or when `fingerprint` (an errno, a state) differs
  // from the one logged last for it. Returns whether a line was written.
  bool Log(spdlog::level::level_enum level, std::string_view key,
           std::string_view msg, std::initializer_list<LogField> fields = {},
           long fingerprint = 0);
  // Shorthand for a failed read or request: err="<error>", fingerprint errno.
  bool Log(spdlog::level::level_enum level, std::string_view key,
           std::string_view msg, const Error& err);
  // The condition behind `key` is gone: log it again if it comes back.
  void Clear(std::string_view key);
  // Forgets every key for which `pred(key)` holds (a removed device).
  template <typename Pred>
  void ClearIf(Pred pred) {
    std::lock_guard<std::mutex> g(mu_);
    std::erase_if(seen_, [&](const auto& kv) { return pred(kv.first); });
  }
  [[nodiscard]] bool Seen(std::string_view key) const;
  [[nodiscard]] const std::string& collector() const { return collector_; }

 private:
  std::string collector_;
  mutable std::mutex mu_;  // the probe logs from several threads
  // Looked up by string_view: Clear() runs for every port at every scrape,
  // and building a std::string key for it allocated each time.
  std::unordered_map<std::string, long, StringHash, std::equal_to<>> seen_;
};

}  // namespace rnic
