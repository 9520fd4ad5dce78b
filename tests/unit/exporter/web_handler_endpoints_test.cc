#include <gtest/gtest.h>

#include "exporter/web_handler.h"

namespace rnic {
namespace {

TEST(WebHandlerEndpointsTest, CollectorEndpointsAreRoutedWithTheirQuery) {
  Options opts;
  CollectorRunner runner({});
  WebHandler handler(opts, runner);
  auto table = std::make_shared<EndpointTable>();
  std::map<std::string, std::string> seen;
  table->Add("/probe", [&](const EndpointRequest& r) {
    seen = r.query;
    EndpointReply reply;
    if (r.query.count("target") == 0) {
      reply.status = 400;
      reply.body = "missing target parameter\n";
      return reply;
    }
    MetricSet m;
    m.AddGauge("rnic_fabric_probe_success", "x", {}, 1);
    reply.metrics = std::move(m);
    return reply;
  });
  handler.SetEndpoints(table);
  HttpRequest req{"GET", "/probe", "", "", "", ""};
  req.query = "target=node-a%3A9709";
  auto r = handler.Handle(req);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(seen.at("target"), "node-a:9709");
  EXPECT_NE(r.body.find("rnic_fabric_probe_success 1\n"), std::string::npos);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  req.query = "";
  r = handler.Handle(req);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "missing target parameter\n");
  EXPECT_EQ(handler.Handle({"GET", "/nothing", "", "", "", ""}).status, 404);
  table->Remove("/probe");
  EXPECT_EQ(handler.Handle(req).status, 404);
}

}  // namespace
}  // namespace rnic
