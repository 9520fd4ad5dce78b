#include "exporter/web_handler.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

class OneGauge : public Collector {
 public:
  Status Collect(const ScrapeContext&, MetricSet& out) override {
    out.AddGauge("rnic_one", "one", {}, 1);
    return Status::Ok();
  }
};

struct Fixture {
  Options opts;
  std::unique_ptr<CollectorRunner> runner;
  std::unique_ptr<WebHandler> handler;
  Fixture() {
    std::vector<CollectorRunner::Entry> e;
    e.push_back({"one", std::make_unique<OneGauge>()});
    runner = std::make_unique<CollectorRunner>(std::move(e));
    handler = std::make_unique<WebHandler>(opts, *runner);
  }
};

TEST(WebHandlerTest, MetricsTextAndOpenMetrics) {
  Fixture f;
  auto r = f.handler->Handle({"GET", "/metrics", "", "", ""});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("rnic_one 1\n"), std::string::npos);
  EXPECT_NE(r.body.find("rnic_scrape_collector_success{collector=\"one\"} 1"),
            std::string::npos);
  EXPECT_NE(r.body.find("process_resident_memory_bytes"), std::string::npos);
  r = f.handler->Handle(
      {"GET", "/metrics", "application/openmetrics-text", "", ""});
  EXPECT_EQ(r.content_type,
            "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_EQ(r.body.substr(r.body.size() - 6), "# EOF\n");
}

TEST(WebHandlerTest, GzipWhenAsked) {
  Fixture f;
  auto r = f.handler->Handle({"GET", "/metrics", "", "gzip", ""});
  ASSERT_FALSE(r.body.empty());
  EXPECT_EQ(static_cast<unsigned char>(r.body[0]), 0x1f);
  bool has = false;
  for (const auto& [k, v] : r.headers)
    has = has || (k == "Content-Encoding" && v == "gzip");
  EXPECT_TRUE(has);
}

TEST(WebHandlerTest, OtherEndpoints) {
  Fixture f;
  EXPECT_EQ(f.handler->Handle({"GET", "/-/healthy", "", "", ""}).status, 200);
  EXPECT_EQ(f.handler->Handle({"GET", "/-/ready", "", "", ""}).status, 200);
  auto landing = f.handler->Handle({"GET", "/", "", "", ""});
  EXPECT_EQ(landing.status, 200);
  EXPECT_NE(landing.body.find("href=\"/metrics\""), std::string::npos);
  EXPECT_EQ(f.handler->Handle({"GET", "/nope", "", "", ""}).status, 404);
  EXPECT_EQ(f.handler->Handle({"POST", "/metrics", "", "", ""}).status, 405);
  EXPECT_EQ(f.handler->Handle({"HEAD", "/metrics", "", "", ""}).status, 200);
}

TEST(WebHandlerTest, DeadlineFromScrapeTimeoutHeader) {
  Fixture f;
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds(""), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("4.000000"), 3.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("0.6"),
                   0.3);  // offset capped at half
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("garbage"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("inf"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("nan"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("-1"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("1e300"), 3599.5);  // capped
}

TEST(WebHandlerTest, HostileTimeoutHeaderStillServesEveryCollector) {
  Fixture f;
  for (const char* h : {"inf", "nan", "1e300", "-1", "garbage"}) {
    auto r = f.handler->Handle({"GET", "/metrics", "", "", h});
    EXPECT_EQ(r.status, 200) << h;
    EXPECT_NE(r.body.find("rnic_scrape_collector_success{collector=\"one\"} 1"),
              std::string::npos)
        << h;
  }
}

// Found by tests/fuzz/fuzz_web_headers: "1e300" overflowed the conversion
// to steady_clock's nanoseconds (UB), "inf" and "nan" were taken as values.
TEST(WebHandlerTest, DeadlineIgnoresNonFiniteAndCapsHugeTimeouts) {
  Fixture f;
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("inf"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("nan"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("-1"), 9.5);
  EXPECT_DOUBLE_EQ(f.handler->DeadlineSeconds("1e300"), 3600 - 0.5);
  EXPECT_EQ(f.handler->Handle({"GET", "/metrics", "", "", "1e300"}).status,
            200);
}

TEST(WebHandlerTest, ExporterMetricsCanBeDisabled) {
  Fixture f;
  f.opts.disable_exporter_metrics = true;
  auto r = f.handler->Handle({"GET", "/metrics", "", "", ""});
  EXPECT_EQ(r.body.find("process_"), std::string::npos);
  EXPECT_EQ(r.body.find("rnic_build_info"), std::string::npos);
}

}  // namespace
}  // namespace rnic

namespace rnic {
namespace {

// "alice" / "U*U" (Openwall crypt_blowfish test vector).
constexpr const char* kAliceHash =
    "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";

TEST(WebHandlerTest, BasicAuthOnEveryPathAndExtraHeaders) {
  Options opts;
  std::vector<CollectorRunner::Entry> e;
  e.push_back({"one", std::make_unique<OneGauge>()});
  CollectorRunner runner(std::move(e));
  BasicAuth auth(
      std::vector<std::pair<std::string, std::string>>{{"alice", kAliceHash}});
  WebHandler h(opts, runner, &auth, {{"X-Frame-Options", "deny"}});
  auto header = [](const HttpResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return std::string("<absent>");
  };
  for (const char* path : {"/metrics", "/", "/-/healthy"}) {
    auto r = h.Handle({"GET", path, "", "", ""});
    EXPECT_EQ(r.status, 401) << path;
    EXPECT_EQ(header(r, "WWW-Authenticate"), "Basic realm=\"rnic_exporter\"");
    EXPECT_EQ(r.body.find("rnic_one"), std::string::npos);
    EXPECT_EQ(header(r, "X-Frame-Options"), "deny");
  }
  // base64("alice:U*U") and base64("alice:U*V")
  auto ok = h.Handle({"GET", "/metrics", "", "", "", "Basic YWxpY2U6VSpV"});
  EXPECT_EQ(ok.status, 200);
  EXPECT_NE(ok.body.find("rnic_one 1"), std::string::npos);
  EXPECT_EQ(header(ok, "X-Frame-Options"), "deny");
  EXPECT_EQ(
      h.Handle({"GET", "/metrics", "", "", "", "Basic YWxpY2U6VSpW"}).status,
      401);
}

}  // namespace
}  // namespace rnic
