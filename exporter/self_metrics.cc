#include "exporter/self_metrics.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "exporter/version.h"

namespace rnic {
namespace {

// Reads a small /proc file into buf; returns bytes read or -1.
ssize_t ReadSmall(const char* path, char* buf, size_t size) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = ::read(fd, buf, size - 1);
  ::close(fd);
  if (n >= 0) buf[n] = 0;
  return n;
}

double BootTimeSeconds() {
  char buf[8192];
  if (ReadSmall("/proc/stat", buf, sizeof buf) <= 0) return 0;
  const char* p = std::strstr(buf, "\nbtime ");
  return p ? std::strtod(p + 7, nullptr) : 0;
}

}  // namespace

void AddProcessMetrics(MetricSet& out) {
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  static const double kPage = static_cast<double>(sysconf(_SC_PAGESIZE));
  static const double kBoot = BootTimeSeconds();
  char buf[1024];
  if (ReadSmall("/proc/self/stat", buf, sizeof buf) > 0) {
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
      out.AddCounter("process_cpu_seconds_total",
                     "Total user and system CPU time spent in seconds.", {},
                     (f[11] + f[12]) / kTicks);
      out.AddGauge("process_start_time_seconds",
                   "Start time of the process since unix epoch in seconds.", {},
                   kBoot + f[19] / kTicks);
      out.AddGauge("process_virtual_memory_bytes",
                   "Virtual memory size in bytes.", {}, f[20]);
      out.AddGauge("process_resident_memory_bytes",
                   "Resident memory size in bytes.", {}, f[21] * kPage);
    }
  }
  if (DIR* d = ::opendir("/proc/self/fd")) {
    int n = 0;
    while (struct dirent* e = ::readdir(d)) {
      if (e->d_name[0] != '.') ++n;
    }
    ::closedir(d);
    out.AddGauge("process_open_fds", "Number of open file descriptors.", {},
                 n - 1);
  }
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    out.AddGauge("process_max_fds", "Maximum number of open file descriptors.",
                 {}, static_cast<double>(rl.rlim_cur));
  }
}

void AddBuildInfo(MetricSet& out) {
  out.AddGauge(
      "rnic_build_info",
      "A metric with a constant '1' value labeled by version, revision "
      "and compiler from which rnic_exporter was built.",
      {{"version", RNIC_VERSION},
       {"revision", RNIC_REVISION},
       {"compiler", __VERSION__}},
      1);
}

std::vector<MetricDoc> ExporterMetricDocs() {
  return {
      {"rnic_build_info", "gauge", "version,revision,compiler",
       "Version facts of the running exporter; value 1."},
      {"rnic_scrape_collector_success", "gauge", "collector",
       "1 if the collector finished without error within the scrape deadline."},
      {"rnic_scrape_collector_duration_seconds", "gauge", "collector",
       "Wall time the collector took in this scrape."},
      {"process_cpu_seconds_total", "counter", "",
       "CPU time of the exporter process."},
      {"process_resident_memory_bytes", "gauge", "",
       "Resident memory of the exporter."},
      {"process_virtual_memory_bytes", "gauge", "",
       "Virtual memory of the exporter."},
      {"process_open_fds", "gauge", "",
       "Open file descriptors of the exporter."},
      {"process_max_fds", "gauge", "",
       "File descriptor limit of the exporter."},
      {"process_start_time_seconds", "gauge", "",
       "Start time of the exporter, Unix seconds."},
  };
}

}  // namespace rnic
