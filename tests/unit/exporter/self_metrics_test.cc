#include "exporter/self_metrics.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "exporter/exporter_families.h"

namespace rnic {
namespace {

double Value(const MetricSet& set, const std::string& family) {
  for (const auto& f : set.families()) {
    if (f.name != family) continue;
    for (const auto& m : f.metric) return m.gauge.value + m.counter.value;
  }
  return -1;
}

double Scrape(const std::string& family) {
  MetricSet set;
  AddProcessMetrics(set);
  return Value(set, family);
}

// Descriptors open now, by listing /proc/self/fd (less the listing's own).
double CountFds() {
  DIR* d = ::opendir("/proc/self/fd");
  double n = 0;
  while (dirent* e = ::readdir(d)) n += e->d_name[0] != '.';
  ::closedir(d);
  return n - 1;
}

TEST(SelfMetricsTest, OpenFdsFollowsTheProcessAtEveryScrape) {
  const double before = Scrape(std::string(exporter_families::kOpenFds.name));
  // The descriptors held to read /proc are open, and counted.
  EXPECT_EQ(before, CountFds());
  std::vector<int> fds;
  for (int i = 0; i < 7; ++i) fds.push_back(::open("/dev/null", O_RDONLY));
  // The count is the kernel's now, not the first scrape's.
  EXPECT_EQ(Scrape(std::string(exporter_families::kOpenFds.name)), before + 7);
  for (int fd : fds) ::close(fd);
  EXPECT_EQ(Scrape(std::string(exporter_families::kOpenFds.name)), before);
}

// utime+stime of /proc/self/stat, in seconds.
double CpuFromProc() {
  std::ifstream f("/proc/self/stat");
  std::string text((std::istreambuf_iterator<char>(f)), {});
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::vector<std::string> fields;
  for (std::string w; rest >> w;) fields.push_back(w);
  // Field 14 (utime) is the 12th after comm's ')'.
  return (std::stod(fields[11]) + std::stod(fields[12])) /
         static_cast<double>(sysconf(_SC_CLK_TCK));
}

TEST(SelfMetricsTest, CpuIsReadAgainAtEveryScrape) {
  const double lo = CpuFromProc();
  const double first = Scrape(std::string(exporter_families::kCpu.name));
  EXPECT_GE(first, lo);
  // Burn CPU until the kernel's count moves on, then the metric must too.
  volatile double sink = 0;
  while (CpuFromProc() < first + 0.05) {
    for (int i = 0; i < 1000000; ++i) sink = sink + i;
  }
  const double later = Scrape(std::string(exporter_families::kCpu.name));
  EXPECT_GE(later, first + 0.05);
  EXPECT_LE(later, CpuFromProc());
}

}  // namespace
}  // namespace rnic
