#include "exporter/response_head.h"

#include <cstdio>

#include "exporter/http_header.h"

namespace rnic {
namespace {

void AppendHeader(std::string_view name, std::string_view value,
                  std::string& out) {
  out += name;
  out += ": ";
  out += value;
  out += "\r\n";
}

}  // namespace

bool KeepAliveAfter(std::string_view http_version,
                    const char* connection_header, int status) {
  if (status == 401) return false;
  if (connection_header != nullptr) {
    // Connection is a list header too: the project's one parser reads it.
    bool keep = false;
    ForEachHeaderItem(connection_header, [&](const HeaderItem& item) {
      keep = keep || IEquals(item.value, "keep-alive");
    });
    return keep;
  }
  return http_version == "1.1";
}

std::string HttpDate(std::time_t t) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[64];
  // The C locale's names are the ones HTTP wants.
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed",
                                          "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr",
                                            "May", "Jun", "Jul", "Aug",
                                            "Sep", "Oct", "Nov", "Dec"};
  const int n =
      std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d GMT",
                    kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon],
                    tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
}

void AppendResponseHead(const HttpResponse& resp, std::string_view reason,
                        bool keep_alive, std::time_t now, std::string& out) {
  out += "HTTP/1.1 ";
  out += std::to_string(resp.status);
  out += ' ';
  out += reason;
  out += "\r\n";
  AppendHeader("Content-Type", resp.content_type, out);
  AppendHeader("Content-Length", std::to_string(resp.body.size()), out);
  for (const auto& [k, v] : resp.headers) AppendHeader(k, v, out);
  AppendHeader("Date", HttpDate(now), out);
  AppendHeader("Connection", keep_alive ? "keep-alive" : "close", out);
  out += "\r\n";
}

}  // namespace rnic
