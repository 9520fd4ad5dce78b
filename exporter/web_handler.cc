#include "exporter/web_handler.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "exporter/exposition.h"
#include "exporter/gzip.h"
#include "exporter/self_metrics.h"
#include "exporter/version.h"

namespace rnic {

namespace {
constexpr double kMaxDeadlineSeconds = 24 * 3600;
}  // namespace

WebHandler::WebHandler(const Options& options, CollectorRunner& runner)
    : options_(options), runner_(runner) {}

double WebHandler::DeadlineSeconds(const std::string& header) const {
  double t = options_.default_timeout_seconds;
  if (!header.empty()) {
    char* end = nullptr;
    double h = std::strtod(header.c_str(), &end);
    // "inf" and "nan" parse too: only a finite positive value is a timeout.
    if (end != header.c_str() && std::isfinite(h) && h > 0) t = h;
  }
  // A day is beyond any scrape timeout; larger values (1e300) would overflow
  // the conversion to the clock's nanoseconds (found by fuzz_web_headers).
  t = std::min(t, kMaxDeadlineSeconds);
  // Keep the offset from eating short timeouts whole.
  double d = t - options_.timeout_offset_seconds;
  return d < t / 2 ? t / 2 : d;
}

HttpResponse WebHandler::Handle(const HttpRequest& req) {
  HttpResponse r;
  if (req.method != "GET" && req.method != "HEAD") {
    r.status = 405;
    r.headers.emplace_back("Allow", "GET, HEAD");
    r.body = "method not allowed\n";
    return r;
  }
  if (req.path == options_.telemetry_path) return Metrics(req);
  if (req.path == "/-/healthy" || req.path == "/-/ready") {
    r.body = "OK\n";
    return r;
  }
  if (req.path == "/") {
    r.content_type = "text/html; charset=utf-8";
    r.body = LandingPage();
    return r;
  }
  r.status = 404;
  r.body = "not found\n";
  return r;
}

HttpResponse WebHandler::Metrics(const HttpRequest& req) {
  HttpResponse r;
  struct InFlight {
    std::atomic<int>& n;
    ~InFlight() { n.fetch_sub(1); }
  } guard{in_flight_};
  if (in_flight_.fetch_add(1) >= options_.max_requests &&
      options_.max_requests > 0) {
    r.status = 503;
    r.body = "too many parallel scrapes (--web.max-requests)\n";
    return r;
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(DeadlineSeconds(req.scrape_timeout)));
  MetricSet set = runner_.Gather(deadline);
  if (!options_.disable_exporter_metrics) {
    AddBuildInfo(set);
    AddProcessMetrics(set);
  }
  const ExpositionFormat format = NegotiateFormat(req.accept);
  r.content_type = std::string(ContentType(format));
  std::string body;
  body.reserve(64 * 1024);
  Serialize(set, format, body);
  if (AcceptsGzip(req.accept_encoding)) {
    auto z = GzipCompress(body);
    if (z.ok()) {
      r.headers.emplace_back("Content-Encoding", "gzip");
      body = std::move(z).value();
    }
  }
  r.headers.emplace_back("Vary", "Accept, Accept-Encoding");
  r.body = std::move(body);
  return r;
}

std::string WebHandler::LandingPage() const {
  std::string collectors;
  for (const auto& n : runner_.Names()) collectors += "<li>" + n + "</li>";
  return "<!DOCTYPE html><html><head><meta "
         "charset=\"utf-8\"><title>rnic_exporter</title>"
         "<style>body{font-family:sans-serif;margin:0}header{background:#"
         "e6522c;"
         "color:#fff;padding:0.5em 1em}main{padding:1em}</style></head><body>"
         "<header><h1>rnic_exporter</h1></header><main>"
         "<p>Prometheus exporter for RDMA NICs (InfiniBand, RoCE, iWARP). "
         "Version " RNIC_VERSION " (" RNIC_REVISION ").</p><ul><li><a href=\"" +
         options_.telemetry_path +
         "\">Metrics</a></li>"
         "<li><a href=\"/-/healthy\">Health</a></li></ul><p>Enabled "
         "collectors:</p><ul>" +
         collectors + "</ul></main></body></html>\n";
}

}  // namespace rnic
