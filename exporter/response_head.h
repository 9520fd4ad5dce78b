// The status line and headers of a response, written by the exporter itself
// so that head and body leave in one write: CivetWeb's header calls send
// every line on its own, which with TCP_NODELAY is a TCP segment per line
// (nine per scrape: each allocated, looped back, acknowledged).
#pragma once

#include <ctime>
#include <string>
#include <string_view>

#include "exporter/web_handler.h"

namespace rnic {

// Whether CivetWeb keeps the connection open after this response, by its own
// rule: HTTP/1.1 unless the client's Connection header lacks "keep-alive",
// and never after a 401.
[[nodiscard]] bool KeepAliveAfter(std::string_view http_version,
                                  const char* connection_header, int status);

// RFC 9110 IMF-fixdate, e.g. "Tue, 01 Dec 2026 16:46:21 GMT".
[[nodiscard]] std::string HttpDate(std::time_t t);

// "HTTP/1.1 <status> <reason>", Content-Type, Content-Length, the response's
// own headers, Date and Connection, and the blank line.
void AppendResponseHead(const HttpResponse& resp, std::string_view reason,
                        bool keep_alive, std::time_t now, std::string& out);

}  // namespace rnic
