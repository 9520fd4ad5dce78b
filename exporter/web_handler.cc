#include "exporter/web_handler.h"

#include "exporter/exposition.h"
#include "exporter/gzip.h"
#include "exporter/query_string.h"
#include "exporter/scrape_timeout.h"
#include "exporter/self_metrics.h"
#include "exporter/version.h"

namespace rnic {

WebHandler::WebHandler(
    const Options& options, CollectorRunner& runner, BasicAuth* auth,
    std::vector<std::pair<std::string, std::string>> extra_headers)
    : options_(options),
      runner_(runner),
      auth_(auth),
      extra_headers_(std::move(extra_headers)) {}

double WebHandler::DeadlineSeconds(const std::string& header) const {
  return ScrapeDeadlineSeconds(header, options_.default_timeout_seconds,
                               options_.timeout_offset_seconds);
}

HttpResponse WebHandler::Handle(const HttpRequest& req) {
  HttpResponse r;
  if (auth_ != nullptr && auth_->enabled() &&
      !auth_->Allows(req.authorization)) {
    r.status = 401;
    r.headers.emplace_back("WWW-Authenticate", "Basic realm=\"rnic_exporter\"");
    r.body = "unauthorized\n";
  } else {
    r = Route(req);
  }
  for (const auto& h : extra_headers_) r.headers.push_back(h);
  return r;
}

HttpResponse WebHandler::Route(const HttpRequest& req) {
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
  if (endpoints_) {
    if (auto h = endpoints_->Find(req.path)) return Endpoint(req, h);
  }
  r.status = 404;
  r.body = "not found\n";
  return r;
}

HttpResponse WebHandler::Endpoint(const HttpRequest& req,
                                  const EndpointHandler& h) {
  EndpointRequest er;
  auto q = ParseQueryString(req.query);
  if (q) {
    er.query = std::move(*q);
  } else {
    er.query_ok = false;
  }
  EndpointReply reply = h(er);
  HttpResponse r;
  r.status = reply.status;
  if (reply.metrics) {
    const ExpositionFormat format = NegotiateFormat(req.accept);
    r.content_type = std::string(ContentType(format));
    Serialize(*reply.metrics, format, r.body);
    r.headers.emplace_back("Vary", "Accept");
  } else {
    r.content_type = reply.content_type;
    r.body = std::move(reply.body);
  }
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
  body.reserve(body_hint_.load(std::memory_order_relaxed));
  Serialize(set, format, body);
  body_hint_.store(body.size() + body.size() / 8 + 256,
                   std::memory_order_relaxed);
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
