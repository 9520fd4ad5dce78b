#include "collectors/kmsg/kmsg_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <spdlog/common.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>

#include "collectors/kmsg/kmsg_families.h"
#include "collectors/kmsg/kmsg_parser.h"

namespace rnic::kmsg {
namespace {

// /dev/kmsg hands out one record per read() and fails with EINVAL if the
// buffer is too small for it; records are at most ~1 KiB of text plus the
// dictionary, so 16 KiB is plenty (and batches many lines of a plain file).
constexpr std::size_t kBuf = 16384;
constexpr auto kPciMapMaxAge = std::chrono::seconds(1);
// Reads per wake-up before the coalescing pause: a writer that never stops
// (a FIFO fed without end) costs a bounded share of a core, not all of it.
constexpr int kMaxReadsPerWakeup = 64;

}  // namespace

Status CheckKmsgPath(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return Status::Ok();
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) return Status::Ok();
  // mem devices: 1:11 is /dev/kmsg, 1:3 /dev/null.
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 &&
      (minor(st.st_rdev) == 11 || minor(st.st_rdev) == 3)) {
    return Status::Ok();
  }
  return Error{path +
               ": not the kernel log (the character device 1:11 like "
               "/dev/kmsg, /dev/null, or a FIFO or regular file)"};
}

KmsgReader::KmsgReader(KmsgReaderOptions opts, int fd)
    : opts_(std::move(opts)), fd_(fd) {}

Result<std::unique_ptr<KmsgReader>> KmsgReader::Start(KmsgReaderOptions opts) {
  const int fd = open(opts.path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno("open " + opts.path, errno);
  // /dev/kmsg: SEEK_END moves to after the newest record. A pipe cannot
  // seek (ESPIPE), which is fine: it only has what is written from now on.
  if (opts.seek_end) lseek(fd, 0, SEEK_END);
  std::unique_ptr<KmsgReader> r(new KmsgReader(std::move(opts), fd));
  r->stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (r->stop_fd_ < 0) return Error::FromErrno("eventfd", errno);
  if (!r->opts_.host) {
    r->opts_.host = std::make_shared<host::HostModel>(
        host::HostModel::Options{r->opts_.sysfs_root});
  }
  r->opts_.host->Refresh();
  r->refreshed_ = std::chrono::steady_clock::now();
  r->thread_ = std::thread([p = r.get()] { p->Loop(); });
  return r;
}

KmsgReader::~KmsgReader() {
  stop_ = true;
  if (stop_fd_ >= 0) {
    const std::uint64_t one = 1;
    (void)!write(stop_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  if (stop_fd_ >= 0) close(stop_fd_);
  close(fd_);
}

void KmsgReader::Pause(std::chrono::milliseconds d) {
  // The eventfd that ends poll() below ends this wait too.
  pollfd p{stop_fd_, POLLIN, 0};
  (void)poll(&p, 1, static_cast<int>(d.count()));
}

void KmsgReader::Loop() {
  std::string buf(kBuf, '\0');
  while (!stop_.load()) {
    pollfd pfd[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    // No timeout: a new record or shutdown wakes it.
    if (poll(pfd, 2, -1) < 0 && errno != EINTR) {
      log_.Log(spdlog::level::warn, "poll", "poll failed",
               Error::FromErrno("poll " + opts_.path, errno));
      Pause(opts_.idle_wait);
      continue;
    }
    log_.Clear("poll");
    if (stop_.load()) break;
    wakeups_.fetch_add(1, std::memory_order_relaxed);
    bool eof = false;
    bool any = false;
    for (int reads = 0; !stop_.load(); ++reads) {
      if (reads == kMaxReadsPerWakeup) break;  // `any`: pause, then go on
      const ssize_t n = read(fd_, buf.data(), buf.size());
      if (n > 0) {
        any = true;
        HandleChunk(std::string_view(buf.data(), static_cast<std::size_t>(n)));
        log_.Clear("read");
        continue;
      }
      if (n == 0) {  // end of a regular file, or a pipe without writers
        eof = true;
        break;
      }
      if (errno == EPIPE) {
        // The ring buffer overwrote records we had not read yet; the next
        // read continues at the oldest record still there. The exact count
        // comes from the sequence-number gap.
        LogEvent(spdlog::level::debug, "kmsg", "ring buffer overrun",
                 {{"path", opts_.path}});
        continue;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        log_.Log(spdlog::level::warn, "read", "read failed",
                 Error::FromErrno("read " + opts_.path, errno));
        eof = true;
      }
      break;
    }
    if (eof) {
      Pause(opts_.idle_wait);
    } else if (any) {
      Pause(opts_.coalesce);
    }
  }
}

void KmsgReader::HandleChunk(std::string_view chunk) {
  // /dev/kmsg: one record per read, ending in '\n', continuation lines
  // (" KEY=value") included. A plain file or pipe: any number of lines,
  // possibly cut in the middle; keep the tail for the next read.
  pending_.append(chunk);
  std::size_t start = 0;
  while (true) {
    const auto nl = pending_.find('\n', start);
    if (nl == std::string::npos) break;
    // Extend the record over following continuation lines in the buffer.
    std::size_t end = nl;
    while (end + 1 < pending_.size() && pending_[end + 1] == ' ') {
      const auto next = pending_.find('\n', end + 1);
      if (next == std::string::npos) break;
      end = next;
    }
    HandleRecord(std::string_view(pending_).substr(start, end + 1 - start));
    start = end + 1;
  }
  pending_.erase(0, start);
  if (pending_.size() > kBuf * 4) pending_.clear();  // a line with no end
}

std::string KmsgReader::DeviceFor(const std::string& pci) {
  if (pci.empty()) return {};
  auto snap = opts_.host->Current();
  const host::Device* dev = snap->FindPci(pci);
  const auto now = std::chrono::steady_clock::now();
  // A device may have appeared or been renamed since the last scrape
  // refreshed the model: look again on a miss, at most once a second even
  // in a burst of log lines.
  if (!dev && now - refreshed_ >= kPciMapMaxAge) {
    refreshed_ = now;
    snap = opts_.host->Refresh();
    dev = snap->FindPci(pci);
  }
  return dev ? dev->name : std::string();
}

void KmsgReader::HandleRecord(std::string_view record) {
  if (record.empty() || record.front() == ' ') return;
  const KmsgRecord r = ParseKmsgRecord(record);
  std::uint64_t gap = 0;
  if (r.has_seq) {
    if (have_seq_ && r.seq > last_seq_ + 1) gap = r.seq - last_seq_ - 1;
    last_seq_ = r.seq;
    have_seq_ = true;
  }
  auto e = ParseCqError(r.message, r.device);
  std::string dev;
  if (e) dev = DeviceFor(e->pci);
  std::lock_guard lock(mu_);
  ++records_;
  lost_ += gap;
  if (e) ++cq_errors_[{dev, e->pci, e->syndrome}];
}

void KmsgReader::AppendTo(MetricSet& out, const host::Snapshot* present) {
  std::lock_guard lock(mu_);
  if (present) {
    std::erase_if(cq_errors_, [&](const auto& kv) {
      const std::string& dev = std::get<0>(kv.first);
      return !dev.empty() && present->Find(dev) == nullptr;
    });
  }
  for (const auto& [k, n] : cq_errors_) {
    const auto& [dev, pci, syn] = k;
    out.Add(families::kCqErrors,
            {{"device", dev},
             {"pci", pci},
             {"syndrome", SyndromeHex(syn)},
             {"reason", SyndromeReason(syn)}},
            static_cast<double>(n));
  }
  out.Add(families::kRecords, LabelSet::Empty(), static_cast<double>(records_));
  out.Add(families::kRecordsLost, LabelSet::Empty(),
          static_cast<double>(lost_));
}

std::uint64_t KmsgReader::records() const {
  std::lock_guard lock(mu_);
  return records_;
}

std::uint64_t KmsgReader::lost() const {
  std::lock_guard lock(mu_);
  return lost_;
}

std::uint64_t KmsgReader::CqErrors(const std::string& device,
                                   const std::string& pci,
                                   std::uint32_t syndrome) const {
  std::lock_guard lock(mu_);
  auto it = cq_errors_.find({device, pci, syndrome});
  return it == cq_errors_.end() ? 0 : it->second;
}

}  // namespace rnic::kmsg
