#include "exporter/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>

namespace rnic {
namespace {

TEST(WorkerPoolTest, ThreadsStartWithWorkUpToTheSize) {
  WorkerPool pool(2, "test-pool");
  EXPECT_EQ(pool.threads(), 0);
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> ran{0};
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(pool.Post([&, gate] {
      gate.wait();
      ++ran;
    }));
  }
  EXPECT_EQ(pool.threads(), 2);  // the other three wait in the queue
  release.set_value();
  pool.Stop();
  EXPECT_EQ(ran.load(), 5);
}

TEST(WorkerPoolTest, BeforeRunsFirstAndNothingRunsOnceStopped) {
  WorkerPool pool(1, "test-pool");
  std::atomic<int> order{0};
  int before_at = -1, task_at = -1;
  ASSERT_TRUE(
      pool.Post([&] { task_at = order++; }, [&] { before_at = order++; }));
  pool.Stop();
  EXPECT_EQ(before_at, 0);
  EXPECT_EQ(task_at, 1);
  bool called = false;
  EXPECT_FALSE(pool.Post([&] { called = true; }, [&] { called = true; }));
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace rnic
