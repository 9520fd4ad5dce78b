// The hung-read guard against a real hung read: a FIFO without a writer,
// whose open() blocks until one appears, as a sysfs attribute whose driver
// never answers blocks its reader.
#include "collectors/common/read_guard.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace rnic {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class ReadGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("read_guard_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    std::ofstream(dir_ / "ok") << "4: ACTIVE\n";
    fifo_ = (dir_ / "hung").string();
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
  }
  void TearDown() override {
    Unblock();
    fs::remove_all(dir_);
  }
  // Lets a reader blocked on the FIFO finish: a writer appears and goes
  // (the reader's open returns, its read fails or ends). Nothing is
  // written: the reader may be gone by then, and the write would SIGPIPE.
  void Unblock() {
    const int fd = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);  // else no reader waiting
  }
  static ReadGuard::Clock::time_point In(milliseconds d) {
    return ReadGuard::Clock::now() + d;
  }

  fs::path dir_;
  std::string fifo_;
};

TEST_F(ReadGuardTest, AnsweredReadsGiveTheirText) {
  ReadGuard g;
  const std::string ok = (dir_ / "ok").string();
  const std::string missing = (dir_ / "missing").string();
  auto a = g.ReadAll({ok, missing}, In(milliseconds(5000)));
  ASSERT_EQ(a.size(), 2u);
  ASSERT_TRUE(a[0].text.has_value());
  ASSERT_TRUE(a[0].text->ok());
  EXPECT_EQ(a[0].text->value(), "4: ACTIVE");
  ASSERT_TRUE(a[1].text.has_value());
  ASSERT_FALSE(a[1].text->ok());
  EXPECT_EQ(a[1].text->error().errno_value, ENOENT);
  EXPECT_EQ(g.PendingReads().reads, 0u);
}

TEST_F(ReadGuardTest, AHungReadIsUnansweredAndHoldsOneThreadOnly) {
  ReadGuard g(
      ReadGuard::Options{.max_threads = 8, .help_after = milliseconds(50)});
  const std::string ok = (dir_ / "ok").string();
  // The hung file first: the other read must not wait behind it.
  auto a = g.ReadAll({fifo_, ok}, In(milliseconds(2000)));
  EXPECT_FALSE(a[0].text.has_value());
  ASSERT_TRUE(a[1].text.has_value());
  EXPECT_EQ(a[1].text->value(), "4: ACTIVE");
  const std::size_t threads = g.threads();
  EXPECT_LE(threads, 3u);  // one hung, one or two that read the rest
  // Later calls do not read the hung file again, nor start threads for it.
  for (int i = 0; i < 5; ++i) {
    a = g.ReadAll({fifo_, ok}, In(milliseconds(2000)));
    EXPECT_FALSE(a[0].text.has_value());
    EXPECT_GT(a[0].waiting.count(), 0);
    ASSERT_TRUE(a[1].text.has_value());
  }
  EXPECT_EQ(g.threads(), threads);
  const auto p = g.PendingReads();
  EXPECT_EQ(p.reads, 1u);
  EXPECT_GT(p.oldest.count(), 0);
  // The read returns: nothing pending any more, its file readable again.
  Unblock();
  for (int i = 0; i < 500 && g.PendingReads().reads > 0; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(g.PendingReads().reads, 0u);
}

TEST_F(ReadGuardTest, ThreadsAreCapped) {
  ReadGuard g(
      ReadGuard::Options{.max_threads = 1, .help_after = milliseconds(10)});
  const std::string ok = (dir_ / "ok").string();
  auto a = g.ReadAll({fifo_, ok}, In(milliseconds(300)));
  // The one worker hangs on the FIFO: the other read is not started, and
  // says so (no time waited).
  EXPECT_FALSE(a[0].text.has_value());
  EXPECT_FALSE(a[1].text.has_value());
  EXPECT_EQ(a[1].waiting.count(), 0);
  EXPECT_EQ(g.threads(), 1u);
}

TEST_F(ReadGuardTest, DestroyedWhileAReadHangs) {
  {
    ReadGuard g;
    auto a = g.ReadAll({fifo_}, In(milliseconds(100)));
    EXPECT_FALSE(a[0].text.has_value());
  }  // returns at once; the worker ends when Unblock() lets it
}

}  // namespace
}  // namespace rnic
