// The exporter's HTTP endpoints as plain functions of a request, so they are
// testable without a socket: /metrics (negotiated format, gzip, deadline from
// X-Prometheus-Scrape-Timeout-Seconds), landing page, /-/healthy, /-/ready.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectors/http_endpoints.h"
#include "exporter/basic_auth.h"
#include "exporter/flags.h"
#include "exporter/registry.h"

namespace rnic {

struct HttpRequest {
  std::string method;  // GET, HEAD, ...
  std::string path;
  std::string accept;
  std::string accept_encoding;
  std::string scrape_timeout;  // X-Prometheus-Scrape-Timeout-Seconds
  std::string authorization;
  std::string query;  // raw query string, without '?'
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

class WebHandler {
 public:
  // `auth` (may be null: no authentication) checks every path, as
  // exporter-toolkit does; `extra_headers` go on every response.
  WebHandler(
      const Options& options, CollectorRunner& runner,
      BasicAuth* auth = nullptr,
      std::vector<std::pair<std::string, std::string>> extra_headers = {});
  [[nodiscard]] HttpResponse Handle(const HttpRequest& req);
  // Paths collectors serve (fabric: /probe, /fabric/addresses), routed
  // when a path is none of the handler's own. Set before serving.
  void SetEndpoints(std::shared_ptr<const EndpointTable> endpoints) {
    endpoints_ = std::move(endpoints);
  }
  // Seconds of deadline a scrape gets for the given header value.
  [[nodiscard]] double DeadlineSeconds(const std::string& header) const;

 private:
  HttpResponse Route(const HttpRequest& req);
  HttpResponse Metrics(const HttpRequest& req);
  HttpResponse Endpoint(const HttpRequest& req, const EndpointHandler& h);
  std::string LandingPage() const;

  const Options& options_;
  CollectorRunner& runner_;
  BasicAuth* auth_;
  const std::vector<std::pair<std::string, std::string>> extra_headers_;
  std::atomic<int> in_flight_{0};
  // The last exposition's size: the next one is reserved at about that size,
  // so a large one is not copied as it grows and a small one is not given
  // an mmap'ed 64 KiB.
  std::atomic<std::size_t> body_hint_{16 * 1024};
  std::shared_ptr<const EndpointTable> endpoints_;
};

}  // namespace rnic
