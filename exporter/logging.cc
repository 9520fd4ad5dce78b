#include "exporter/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace rnic {
namespace {

void AppendTimestamp(const spdlog::details::log_msg& msg,
                     spdlog::memory_buf_t& dest) {
  auto t = std::chrono::system_clock::to_time_t(msg.time);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                msg.time.time_since_epoch())
                .count() %
            1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  n += std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  dest.append(buf, buf + n);
}

void AppendQuoted(std::string_view s, bool json, spdlog::memory_buf_t& dest) {
  dest.push_back('"');
  for (char c : s) {
    if (c == '"' || c == '\\') {
      dest.push_back('\\');
      dest.push_back(c);
    } else if (c == '\n') {
      dest.append(std::string_view("\\n"));
    } else if (json && static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      int n = std::snprintf(b, sizeof b, "\\u%04x", c);
      dest.append(b, b + n);
    } else {
      dest.push_back(c);
    }
  }
  dest.push_back('"');
}

std::string_view LevelName(spdlog::level::level_enum l) {
  switch (l) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return "debug";
    case spdlog::level::info:
      return "info";
    case spdlog::level::warn:
      return "warn";
    default:
      return "error";
  }
}

// Splits a logfmt payload (key=value key="quoted value") into pairs;
// returns false when the payload is not logfmt.
bool ParseLogfmt(std::string_view s,
                 std::vector<std::pair<std::string, std::string>>& kv) {
  while (!s.empty()) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (s.empty()) break;
    auto eq = s.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    std::string key(s.substr(0, eq));
    if (key.find_first_of(" \"") != std::string::npos) return false;
    s.remove_prefix(eq + 1);
    std::string value;
    if (!s.empty() && s.front() == '"') {
      s.remove_prefix(1);
      bool closed = false;
      while (!s.empty()) {
        char c = s.front();
        s.remove_prefix(1);
        if (c == '\\' && !s.empty()) {
          value += s.front() == 'n' ? '\n' : s.front();
          s.remove_prefix(1);
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value += c;
        }
      }
      if (!closed) return false;
    } else {
      auto sp = s.find(' ');
      value = std::string(s.substr(0, sp));
      s.remove_prefix(sp == std::string_view::npos ? s.size() : sp);
    }
    kv.emplace_back(std::move(key), std::move(value));
  }
  return !kv.empty();
}

// One line per message: ts, level, then the payload's own logfmt pairs
// (LogfmtLine: collector=x msg="..." k=v), or msg="<payload>" for a plain
// message. JSON gets the same pairs as keys, so collector stays a key of its
// own in both formats.
class LineFormatter final : public spdlog::formatter {
 public:
  explicit LineFormatter(bool json) : json_(json) {}

  void format(const spdlog::details::log_msg& msg,
              spdlog::memory_buf_t& dest) override {
    std::string_view payload(msg.payload.data(), msg.payload.size());
    std::vector<std::pair<std::string, std::string>> kv;
    const bool pairs = payload.find("msg=") != std::string_view::npos &&
                       ParseLogfmt(payload, kv);
    dest.append(std::string_view(json_ ? "{\"ts\":\"" : "ts="));
    AppendTimestamp(msg, dest);
    dest.append(std::string_view(json_ ? "\",\"level\":\"" : " level="));
    dest.append(LevelName(msg.level));
    if (!json_) {
      dest.push_back(' ');
      if (pairs) {
        dest.append(payload);  // already logfmt
      } else {
        dest.append(std::string_view("msg="));
        AppendQuoted(payload, false, dest);
      }
      dest.push_back('\n');
      return;
    }
    dest.push_back('"');
    if (!pairs) kv.assign({{"msg", std::string(payload)}});
    for (const auto& [k, v] : kv) {
      dest.push_back(',');
      AppendQuoted(k, true, dest);
      dest.push_back(':');
      AppendQuoted(v, true, dest);
    }
    dest.append(std::string_view("}\n"));
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<LineFormatter>(json_);
  }

 private:
  bool json_;
};

}  // namespace

std::unique_ptr<spdlog::formatter> MakeLogFormatter(const std::string& format) {
  return std::make_unique<LineFormatter>(format == "json");
}

void SetUpLogging(const std::string& level, const std::string& format) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("rnic", sink);
  logger->set_formatter(MakeLogFormatter(format));
  logger->set_level(
      spdlog::level::from_str(level == "warn" ? "warning" : level));
  logger->flush_on(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

}  // namespace rnic
