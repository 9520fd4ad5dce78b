#include "collectors/common/log_once.h"

#include <spdlog/spdlog.h>

namespace rnic {
namespace {

bool NeedsQuotes(std::string_view v) {
  if (v.empty()) return true;
  for (char c : v) {
    if (c == ' ' || c == '"' || c == '=' || c == '\\' ||
        static_cast<unsigned char>(c) < 0x20) {
      return true;
    }
  }
  return false;
}

void AppendValue(std::string& out, std::string_view v) {
  if (!NeedsQuotes(v)) {
    out.append(v);
    return;
  }
  out.push_back('"');
  for (char c : v) {
    switch (c) {
      case '"':
        out.append("\\\"");
        break;
      case '\\':
        out.append("\\\\");
        break;
      case '\n':
        out.append("\\n");
        break;
      default:
        out.push_back(static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
    }
  }
  out.push_back('"');
}

}  // namespace

std::string LogfmtLine(std::string_view collector, std::string_view msg,
                       std::initializer_list<LogField> fields) {
  std::string out;
  out.reserve(64 + msg.size());
  out.append("collector=");
  AppendValue(out, collector);
  out.append(" msg=");
  AppendValue(out, msg);
  for (const auto& [k, v] : fields) {
    out.push_back(' ');
    out.append(k);
    out.push_back('=');
    AppendValue(out, v);
  }
  return out;
}

void LogEvent(spdlog::level::level_enum level, std::string_view collector,
              std::string_view msg, std::initializer_list<LogField> fields) {
  if (!spdlog::should_log(level)) return;
  spdlog::log(level, "{}", LogfmtLine(collector, msg, fields));
}

bool LogOnce::Log(spdlog::level::level_enum level, std::string_view key,
                  std::string_view msg, std::initializer_list<LogField> fields,
                  long fingerprint) {
  {
    std::lock_guard<std::mutex> g(mu_);
    auto it = seen_.find(key);
    if (it != seen_.end() && it->second == fingerprint) return false;
    seen_.insert_or_assign(std::string(key), fingerprint);
  }
  LogEvent(level, collector_, msg, fields);
  return true;
}

bool LogOnce::Log(spdlog::level::level_enum level, std::string_view key,
                  std::string_view msg, const Error& err) {
  const std::string e = err.ToString();
  return Log(level, key, msg, {{"key", key}, {"err", e}}, err.errno_value);
}

void LogOnce::Clear(std::string_view key) {
  std::lock_guard<std::mutex> g(mu_);
  if (seen_.empty()) return;
  if (auto it = seen_.find(key); it != seen_.end()) seen_.erase(it);
}

bool LogOnce::Seen(std::string_view key) const {
  std::lock_guard<std::mutex> g(mu_);
  return seen_.contains(key);
}

}  // namespace rnic
