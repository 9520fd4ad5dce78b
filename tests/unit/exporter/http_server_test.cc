#include "exporter/http_server.h"

#include <gtest/gtest.h>

namespace rnic {
namespace {

TEST(WorkerThreadsForTest, LimitPlusSpareSoThe503IsReachable) {
  EXPECT_EQ(WorkerThreadsFor(40).value(), 40 + kSpareWorkerThreads);
  EXPECT_EQ(WorkerThreadsFor(1).value(), 1 + kSpareWorkerThreads);
  EXPECT_EQ(WorkerThreadsFor(kMaxRequestsCeiling).value(),
            kMaxRequestsCeiling + kSpareWorkerThreads);
}

TEST(WorkerThreadsForTest, NoLimitStillGetsABoundedPool) {
  EXPECT_EQ(WorkerThreadsFor(0).value(),
            kUnlimitedWorkerThreads + kSpareWorkerThreads);
}

TEST(WorkerThreadsForTest, OutOfRangeNamesTheFlag) {
  auto r = WorkerThreadsFor(kMaxRequestsCeiling + 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "--web.max-requests=1025: expected 0 (no limit) to 1024 (each "
            "parallel scrape needs a worker thread)");
  EXPECT_FALSE(WorkerThreadsFor(-1).ok());
}

TEST(ConnectionLimitsForTest, OneClientsScrapesStillReachThe503) {
  EXPECT_EQ(ConnectionLimitsFor(WorkerThreadsFor(10).value()).per_client,
            kMinConnectionsPerClient);
  const int big = WorkerThreadsFor(kMaxRequestsCeiling).value();
  EXPECT_EQ(ConnectionLimitsFor(big).per_client, static_cast<unsigned>(big));
  EXPECT_EQ(ConnectionLimitsFor(big).total, static_cast<unsigned>(big));
  EXPECT_EQ(ConnectionLimitsFor(18).total, kMaxConnections);
}

}  // namespace
}  // namespace rnic
