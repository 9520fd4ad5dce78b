#include "exporter/self_metrics.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"
#include "exporter/exporter_families.h"
#include "exporter/version.h"

namespace rnic {
namespace {

namespace fam = exporter_families;

// Reads a small /proc file into buf, NUL-terminated: bytes read or -errno.
long ReadSmall(const char* path, char* buf, size_t size) {
  const long n = ReadSmallFile(AT_FDCWD, path, buf, size - 1);
  if (n >= 0) buf[n] = 0;
  return n;
}

double BootTimeSeconds() {
  char buf[8192];
  if (ReadSmall("/proc/stat", buf, sizeof buf) <= 0) return 0;
  const char* p = std::strstr(buf, "\nbtime ");
  return p ? std::strtod(p + 7, nullptr) : 0;
}

// /proc/self/stat and /proc/self/fd are opened once and read again at every
// scrape (pread at 0; rewind and list): a read renders them anew, and the
// open's path walk through /proc/self was the larger part of their cost.
// Open descriptors. Linux >= 6.2 reports their number as the size of
// /proc/self/fd: one fstat instead of listing the directory, which with the
// sysfs collector's ~900 kept-open counter files was ~15 % of a scrape.
// Older kernels report 0 there; then the entries are counted (ListDir: no
// allocation per entry). The held descriptor is open and counted.
long OpenFds() {
  static const int dir =
      ::open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  // Listing moves the shared position: one scrape at a time.
  static std::mutex mu;
  if (dir < 0) return -1;
  std::lock_guard<std::mutex> g(mu);
  struct stat st {};
  if (::fstat(dir, &st) == 0 && st.st_size > 0) {
    return static_cast<long>(st.st_size);
  }
  if (::lseek(dir, 0, SEEK_SET) != 0) return -1;
  long n = 0;
  (void)ListDir(dir, [&](std::string_view, unsigned char) { ++n; });
  return n;
}

// /proc/self/stat into buf (NUL-terminated): bytes read, or < 0.
long ReadSelfStat(char* buf, size_t size) {
  static const int fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ReadSmall("/proc/self/stat", buf, size);
  const ssize_t n = ::pread(fd, buf, size - 1, 0);
  if (n >= 0) buf[n] = 0;
  return n;
}

}  // namespace

void AddProcessMetrics(MetricSet& out) {
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double kPage = static_cast<double>(sysconf(_SC_PAGESIZE));
  static const double kBoot = BootTimeSeconds();
  char buf[1024];
  if (ReadSelfStat(buf, sizeof buf) > 0) {
    // Fields after the ")" that closes comm; see proc(5).
    const char* p = std::strrchr(buf, ')');
    if (p != nullptr) {
      p += 2;
      double f[24] = {};
      for (int i = 0; i < 22 && *p; ++i) {  // fields 3..24
        char* end;
        f[i] = std::strtod(p, &end);
        if (end == p) {  // the state letter
          ++end;
        }
        p = end;
        while (*p == ' ') ++p;
      }
      // f[0]=state(3) ... utime(14)=f[11], stime(15)=f[12],
      // starttime(22)=f[19], vsize(23)=f[20], rss(24)=f[21].
      const LabelSetPtr& none = LabelSet::Empty();
      out.Add(fam::kCpu, none, (f[11] + f[12]) / kTicks);
      out.Add(fam::kStartTime, none, kBoot + f[19] / kTicks);
      out.Add(fam::kVirtualMemory, none, f[20]);
      out.Add(fam::kResidentMemory, none, f[21] * kPage);
    }
  }
  if (const long n = OpenFds(); n >= 0) {
    out.Add(fam::kOpenFds, LabelSet::Empty(), static_cast<double>(n));
  }
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    out.Add(fam::kMaxFds, LabelSet::Empty(), static_cast<double>(rl.rlim_cur));
  }
}

void AddBuildInfo(MetricSet& out) {
  static const LabelSetPtr kLabels =
      LabelSet::Make({{"version", RNIC_VERSION},
                      {"revision", RNIC_REVISION},
                      {"compiler", __VERSION__}});
  out.Add(fam::kBuildInfo, kLabels, 1);
}

std::vector<const FamilyDesc*> ExporterFamilies() {
  return {&fam::kBuildInfo, &fam::kCollectorSuccess, &fam::kCollectorDuration,
          &fam::kCpu,       &fam::kResidentMemory,   &fam::kVirtualMemory,
          &fam::kOpenFds,   &fam::kMaxFds,           &fam::kStartTime};
}

}  // namespace rnic
