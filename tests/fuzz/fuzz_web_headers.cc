// The request headers /metrics acts on: Accept (exposition format),
// Accept-Encoding (gzip) and X-Prometheus-Scrape-Timeout-Seconds (the
// scrape's deadline). The input is the three values, one a line; each goes
// to its parser, then the whole request through WebHandler::Handle (with no
// collector, so a scrape costs nothing but the negotiation).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "exporter/exposition.h"
#include "exporter/gzip.h"
#include "exporter/registry.h"
#include "exporter/web_handler.h"

namespace {

std::size_t g_sink;

std::string NextLine(std::string_view& rest) {
  const auto nl = rest.find('\n');
  std::string line(rest.substr(0, nl));
  rest =
      nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static rnic::Options options = [] {
    rnic::Options o;
    o.disable_exporter_metrics = true;  // no /proc reads per input
    return o;
  }();
  static rnic::CollectorRunner runner({});
  static rnic::WebHandler handler(options, runner);

  std::string_view rest(reinterpret_cast<const char*>(data), size);
  rnic::HttpRequest req;
  req.method = "GET";
  req.path = "/metrics";
  req.accept = NextLine(rest);
  req.accept_encoding = NextLine(rest);
  req.scrape_timeout = NextLine(rest);

  std::size_t sink =
      static_cast<std::size_t>(rnic::NegotiateFormat(req.accept));
  sink += rnic::AcceptsGzip(req.accept_encoding) ? 1 : 0;
  const double deadline = handler.DeadlineSeconds(req.scrape_timeout);
  // A scrape needs a deadline it can reach: finite and positive.
  if (!(std::isfinite(deadline) && deadline > 0)) std::abort();
  const rnic::HttpResponse r = handler.Handle(req);
  if (r.status != 200) std::abort();
  sink += r.body.size();
  g_sink = sink;
  return 0;
}
