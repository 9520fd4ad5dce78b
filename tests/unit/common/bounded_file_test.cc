#include "collectors/common/bounded_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

namespace rnic {
namespace {

std::string Path(const std::string& name) {
  return ::testing::TempDir() + "/rnic_bounded_" +
         ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" +
         name;
}

std::string Write(const std::string& name, const std::string& text) {
  const std::string p = Path(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

TEST(BoundedFile, ReadsARegularFileWhole) {
  const std::string text = "a: 1\n" + std::string(40000, 'x') + "\n";
  auto r = ReadBoundedFile(Write("f", text), 1 << 20);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(*r, text);
  auto exact = ReadBoundedFile(Write("g", "12345"), 5);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(*exact, "12345");
}

TEST(BoundedFile, RefusesWhatIsNotARegularFile) {
  // /dev/zero was read until memory ran out; a FIFO without writers would
  // block the opener; a directory reads as an error or as empty.
  const std::string fifo = Path("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p :
       {std::string("/dev/zero"), fifo, ::testing::TempDir()}) {
    auto r = ReadBoundedFile(p, 1 << 20);
    ASSERT_FALSE(r.ok()) << p;
    EXPECT_EQ(r.error().message, p + ": not a regular file");
    EXPECT_FALSE(CheckBoundedFile(p, 1 << 20).ok()) << p;
  }
  ::unlink(fifo.c_str());
}

TEST(BoundedFile, RefusesAFileOverTheLimit) {
  const std::string p = Write("big", "123456");
  auto r = ReadBoundedFile(p, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, p + ": larger than 5 bytes");
  EXPECT_FALSE(CheckBoundedFile(p, 5).ok());
  EXPECT_TRUE(CheckBoundedFile(p, 6).ok());
}

TEST(BoundedFile, MissingFileCarriesErrno) {
  auto r = ReadBoundedFile("/nonexistent/rnic", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().errno_value, ENOENT);
  EXPECT_EQ(r.error().ToString(),
            "/nonexistent/rnic: cannot be read: No such file or directory");
}

}  // namespace
}  // namespace rnic
