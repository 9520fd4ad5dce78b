// Extra HTTP endpoints a collector serves next to /metrics (the fabric
// probe's /probe and /fabric/addresses). Collectors register handlers at
// construction; the web handler routes a path here when it is none of its
// own. Handlers run on HTTP worker threads, so they must be thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "collectors/metrics/metric_set.h"

namespace rnic {

struct EndpointRequest {
  std::map<std::string, std::string> query;  // decoded; a key given twice: last
  bool query_ok = true;  // false: the query string could not be decoded
};

struct EndpointReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Set: the body is this metric set, in the format the client negotiated.
  std::optional<MetricSet> metrics;
};

using EndpointHandler = std::function<EndpointReply(const EndpointRequest&)>;

class EndpointTable {
 public:
  void Add(const std::string& path, EndpointHandler handler);
  void Remove(const std::string& path);
  // The handler of `path`, empty if none.
  [[nodiscard]] EndpointHandler Find(const std::string& path) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, EndpointHandler> handlers_;
};

}  // namespace rnic
