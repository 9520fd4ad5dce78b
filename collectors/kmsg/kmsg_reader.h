// Follows the kernel log (/dev/kmsg, or any file or pipe standing in for
// it) in its own thread and counts mlx5 "CQ error on CQN" lines by RDMA
// device and syndrome. Starts at the END of the log (records logged before
// the exporter started are not counted: they were probably counted by the
// previous instance, and a restart must not replay them as new errors).
// Scrapes only copy counters under a mutex; they never touch the fd.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "collectors/common/log_once.h"
#include "collectors/common/result.h"
#include "collectors/host/host_model.h"
#include "collectors/metrics/metric_set.h"

namespace rnic::kmsg {

struct KmsgReaderOptions {
  std::string path = "/dev/kmsg";
  std::string sysfs_root = "/sys";  // for a model of its own (tests)
  // The exporter's host model: PCI function -> RDMA device. Null: the
  // reader keeps one of its own on sysfs_root.
  std::shared_ptr<host::HostModel> host;
  bool seek_end = true;
  // A plain file or a pipe without writers (no wake-up when data comes):
  // how long to wait before reading again.
  std::chrono::milliseconds idle_wait{200};
  // After a burst of records, how long to wait before looking again: a log
  // storm (a driver logging at every port query) costs at most 1000 /
  // coalesce wake-ups a second, not one per record; the kernel keeps the
  // records meanwhile.
  std::chrono::milliseconds coalesce{100};
};

// The kernel log device (char 1:11), /dev/null (char 1:3: no log), or a
// FIFO or regular file standing in for it; anything else, /dev/zero or a
// directory say, is refused: "<path>: not the kernel log (...)". A path
// that cannot be stat'ed passes: opening it reports that error.
[[nodiscard]] Status CheckKmsgPath(const std::string& path);

class KmsgReader {
 public:
  [[nodiscard]] static Result<std::unique_ptr<KmsgReader>> Start(
      KmsgReaderOptions opts);
  ~KmsgReader();
  KmsgReader(const KmsgReader&) = delete;
  KmsgReader& operator=(const KmsgReader&) = delete;

  // Appends the counters. With `present`, counts of RDMA devices no longer
  // in the host model are forgotten first: a removed device leaves no
  // series behind (counts for "" - no device - stay).
  void AppendTo(MetricSet& out, const host::Snapshot* present = nullptr);
  [[nodiscard]] std::uint64_t records() const;
  [[nodiscard]] const std::shared_ptr<host::HostModel>& host() const {
    return opts_.host;
  }
  [[nodiscard]] std::uint64_t lost() const;
  // Times the thread woke to read (for tests: an idle log costs none, a
  // storm one per `coalesce`).
  [[nodiscard]] std::uint64_t wakeups() const { return wakeups_.load(); }
  // Count for one (device, pci, syndrome); for tests.
  [[nodiscard]] std::uint64_t CqErrors(const std::string& device,
                                       const std::string& pci,
                                       std::uint32_t syndrome) const;
  // Processes one record (what one read() of /dev/kmsg returns). Public so
  // tests can feed records without a thread.
  void HandleRecord(std::string_view record);

 private:
  KmsgReader(KmsgReaderOptions opts, int fd);
  void Loop();
  // Sleeps `d` unless stopped first.
  void Pause(std::chrono::milliseconds d);
  void HandleChunk(std::string_view chunk);
  std::string DeviceFor(const std::string& pci);

  KmsgReaderOptions opts_;
  int fd_;
  // Written at shutdown: it ends the thread's poll() (no timeout, so an idle
  // kernel log costs no wake-ups) and its pauses alike.
  int stop_fd_ = -1;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> wakeups_{0};
  std::string pending_;  // partial line from a plain file or pipe
  LogOnce log_{"kmsg"};  // a failing poll or read is logged once, not per loop

  // Reader thread only.
  std::chrono::steady_clock::time_point refreshed_{};
  std::uint64_t last_seq_ = 0;
  bool have_seq_ = false;

  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, std::uint32_t>, std::uint64_t>
      cq_errors_;
  std::uint64_t records_ = 0;
  std::uint64_t lost_ = 0;
};

}  // namespace rnic::kmsg
