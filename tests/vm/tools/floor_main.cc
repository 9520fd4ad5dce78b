// rnic_floor: the bare kernel cost of the RDMA netlink information a default
// scrape exports, as a floor to compare the exporter with (issue 9, target 1).
//
//   rnic_floor [--rounds N] [--part all|port|res]
//   rnic_floor [--rounds N] --part files --files-of PID [--under DIR]
//
// Devices and ports are found once, before the clock starts (one GET dump).
// Then each round does exactly: per port STAT_GET and PORT_GET (doit), per
// device RES_GET (doit) and one dump each of RES_QP/CQ/MR/PD/CTX_GET. Replies
// are read into one reused buffer and only walked to find their end: no
// parsing, no allocation, so the CPU is the syscalls and the kernel filling
// the answers. CPU is the process's utime+stime (getrusage) over the rounds.
// --part port does only the per-port requests (netlink_stat's share of the
// floor), --part res only the per-device ones (netlink_resource's).
// --part files is the rest of a default scrape's kernel information: one
// pread at offset 0 of every file under /sys that process PID (the exporter,
// after a scrape) holds open: sysfs counters, carrier counts, MTU, PCIe link
// and AER. The floor tool opens them itself once, before the clock starts.
// --under DIR takes the files under DIR instead of /sys: a fixture tree the
// exporter reads with --path.sysfs, for the floor of a sysfs-only scrape on
// the host (issue 9, targets 2 and 3).
// Prints one line of key=value pairs. A benchmark: it reports, never asserts.
#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::floor {
namespace {

namespace nl = rnic::nl;

struct Device {
  std::uint32_t index = 0;
  std::uint32_t ports = 0;
  std::string name;
};

struct Tally {
  long requests = 0;
  long messages = 0;  // data messages (not DONE / ack)
  long bytes = 0;     // of data messages
};

class Socket {
 public:
  Socket() {
    sock_ = nl_socket_alloc();
    if (sock_ == nullptr || nl_connect(sock_, nl::kNetlinkRdma) < 0) {
      std::fprintf(stderr, "rnic_floor: cannot open NETLINK_RDMA: %s\n",
                   std::strerror(errno));
      std::exit(1);
    }
    nl_socket_disable_auto_ack(sock_);
    (void)nl_socket_set_buffer_size(sock_, 1 << 20, 0);
    // Read with NLMSG_GOODSIZE (a page less skb_shared_info, 320 bytes on
    // x86-64), the size the kernel gives every RDMA reply and dump datagram
    // unless a socket reads with a larger buffer: it then allocates that
    // much (up to 32 KiB, zeroed) per dump datagram. The floor is the
    // cheapest way to get the answers, so it reads with exactly this; a
    // datagram that does not fit stops the tool.
    buf_.resize(static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) - 320);
  }
  ~Socket() { nl_socket_free(sock_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  // A request built once, before the rounds: building it is user-space
  // work, and libnl's nlmsg_alloc zeroes a page for each message (10 % of
  // the floor's CPU under TCG when a message was built per request).
  struct Request {
    std::uint16_t cmd = 0;
    bool dump = false;
    std::vector<char> bytes;
  };
  static Request Build(std::uint16_t cmd, bool dump,
                       std::optional<std::uint32_t> dev,
                       std::optional<std::uint32_t> port) {
    nl_msg* msg = nlmsg_alloc_simple(
        // A GET doit answers with one message (or an error, always sent):
        // no ack asked, as the exporter asks none.
        nl::MsgType(cmd), NLM_F_REQUEST | (dump ? NLM_F_DUMP : 0));
    // Device indexes start at 0 (rxe0 is often 0): absent is not 0.
    if (dev) nla_put_u32(msg, nl::kAttrDevIndex, *dev);
    if (port) nla_put_u32(msg, nl::kAttrPortIndex, *port);
    const nlmsghdr* h = nlmsg_hdr(msg);
    Request r{
        cmd, dump,
        std::vector<char>(reinterpret_cast<const char*>(h),
                          reinterpret_cast<const char*>(h) + h->nlmsg_len)};
    nlmsg_free(msg);
    return r;
  }

  // Sends one request and reads its whole answer; `on_msg` (may be null)
  // sees each data message. Exits on any error: a floor with a failed
  // request would be no floor.
  template <typename Fn>
  void Exchange(std::uint16_t cmd, bool dump, std::optional<std::uint32_t> dev,
                std::optional<std::uint32_t> port, Tally* t, Fn&& on_msg) {
    Request r = Build(cmd, dump, dev, port);
    Exchange(r, t, on_msg);
  }

  template <typename Fn>
  void Exchange(Request& r, Tally* t, Fn&& on_msg) {
    const std::uint16_t cmd = r.cmd;
    const bool dump = r.dump;
    auto* req = reinterpret_cast<nlmsghdr*>(r.bytes.data());
    const std::uint32_t seq = ++seq_;
    req->nlmsg_seq = seq;
    if (send(nl_socket_get_fd(sock_), r.bytes.data(), r.bytes.size(), 0) !=
        static_cast<ssize_t>(r.bytes.size())) {
      Die(cmd, "send failed");
    }
    ++t->requests;
    const int fd = nl_socket_get_fd(sock_);
    for (;;) {
      ssize_t n = recv(fd, buf_.data(), buf_.size(), MSG_TRUNC);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) Die(cmd, std::strerror(errno));
      if (static_cast<std::size_t>(n) > buf_.size()) Die(cmd, "truncated");
      // Walk the datagram by hand (NLMSG_OK mixes signed and unsigned).
      const std::size_t len = static_cast<std::size_t>(n);
      for (std::size_t off = 0; off + sizeof(nlmsghdr) <= len;) {
        auto* h = reinterpret_cast<nlmsghdr*>(buf_.data() + off);
        if (h->nlmsg_len < sizeof(nlmsghdr) || h->nlmsg_len > len - off)
          Die(cmd, "malformed reply");
        off += NLMSG_ALIGN(h->nlmsg_len);
        if (h->nlmsg_seq != seq) continue;
        if (h->nlmsg_type == NLMSG_DONE) return;
        if (h->nlmsg_type == NLMSG_ERROR) {
          auto* e = static_cast<nlmsgerr*>(NLMSG_DATA(h));
          if (e->error != 0) Die(cmd, std::strerror(-e->error));
          return;  // the ack that ends a doit
        }
        ++t->messages;
        t->bytes += h->nlmsg_len;
        on_msg(h);
        if (!dump) return;  // a doit's one message
      }
    }
  }

 private:
  [[noreturn]] static void Die(std::uint16_t cmd, const char* why) {
    std::fprintf(stderr, "rnic_floor: command %u: %s\n", cmd, why);
    std::exit(1);
  }
  nl_sock* sock_ = nullptr;
  std::vector<char> buf_;
  std::uint32_t seq_ = 0;
};

std::vector<Device> Discover(Socket& s) {
  std::vector<Device> out;
  Tally ignore;
  s.Exchange(nl::kCmdGet, true, std::nullopt, std::nullopt, &ignore,
             [&](nlmsghdr* h) {
               nlattr* tb[nl::kAttrPortIndex + 1] = {};
               if (nlmsg_parse(h, 0, tb, nl::kAttrPortIndex, nullptr) < 0)
                 return;
               if (tb[nl::kAttrDevIndex] == nullptr ||
                   tb[nl::kAttrPortIndex] == nullptr)
                 return;
               Device d;
               d.index = nla_get_u32(tb[nl::kAttrDevIndex]);
               d.ports = nla_get_u32(tb[nl::kAttrPortIndex]);
               if (tb[nl::kAttrDevName] != nullptr)
                 d.name = nla_get_string(tb[nl::kAttrDevName]);
               out.push_back(d);
             });
  return out;
}

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto s = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) +
           static_cast<double>(tv.tv_usec) / 1e6;
  };
  return s(ru.ru_utime) + s(ru.ru_stime);
}

double Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// CPU (utime+stime) and wall time from construction to Print(), which
// prints the part's key=value fields followed by them: one line per run.
class Meter {
 public:
  void Print(int rounds, const char* fields) const {
    const double wall = Now() - t0_;
    const double cpu = CpuSeconds() - c0_;
    std::printf("%s wall_s=%.3f cpu_s=%.3f cpu_per_round_ms=%.3f\n", fields,
                wall, cpu, cpu / rounds * 1e3);
  }

 private:
  const double c0_ = CpuSeconds();
  const double t0_ = Now();
};

// The files under /sys that `pid` holds open, opened here too.
std::vector<int> OpenFilesOf(const std::string& pid, const std::string& under) {
  std::vector<int> fds;
  const std::string dir = "/proc/" + pid + "/fd";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) {
    std::fprintf(stderr, "rnic_floor: %s: %s\n", dir.c_str(),
                 std::strerror(errno));
    std::exit(1);
  }
  while (dirent* e = readdir(d)) {
    char target[4096];
    const std::string link = dir + "/" + e->d_name;
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::strncmp(target, under.c_str(), under.size()) != 0) continue;
    const int fd = open(target, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) fds.push_back(fd);
  }
  closedir(d);
  return fds;
}

int RunFiles(int rounds, const std::string& pid, const std::string& under) {
  const std::vector<int> fds = OpenFilesOf(pid, under);
  char buf[4096];
  long bytes = 0;
  const Meter m;
  for (int r = 0; r < rounds; ++r) {
    for (int fd : fds) {
      const ssize_t n = pread(fd, buf, sizeof buf, 0);
      if (n > 0) bytes += n;
    }
  }
  char fields[256];
  std::snprintf(fields, sizeof fields,
                "part=files rounds=%d files=%zu requests_per_round=%zu "
                "messages_per_round=0 bytes_per_round=%ld",
                rounds, fds.size(), fds.size(), bytes / rounds);
  m.Print(rounds, fields);
  return 0;
}

int Run(int rounds, const std::string& part) {
  const bool do_port = part != "res";
  const bool do_res = part != "port";
  Socket s;
  const std::vector<Device> devices = Discover(s);
  long ports = 0;
  for (const auto& d : devices) ports += d.ports;
  constexpr std::uint16_t kDumps[] = {nl::kCmdResQpGet, nl::kCmdResCqGet,
                                      nl::kCmdResMrGet, nl::kCmdResPdGet,
                                      nl::kCmdResCtxGet};
  // One round's requests, in the order the rounds send them.
  std::vector<Socket::Request> reqs;
  for (const auto& d : devices) {
    for (std::uint32_t p = 1; do_port && p <= d.ports; ++p) {
      reqs.push_back(Socket::Build(nl::kCmdStatGet, false, d.index, p));
      reqs.push_back(Socket::Build(nl::kCmdPortGet, false, d.index, p));
    }
    if (!do_res) continue;
    reqs.push_back(Socket::Build(nl::kCmdResGet, false, d.index, std::nullopt));
    for (std::uint16_t cmd : kDumps) {
      reqs.push_back(Socket::Build(cmd, true, d.index, std::nullopt));
    }
  }
  auto nothing = [](nlmsghdr*) {};
  Tally t;
  const Meter m;
  for (int r = 0; r < rounds; ++r) {
    for (auto& req : reqs) s.Exchange(req, &t, nothing);
  }
  char fields[256];
  std::snprintf(
      fields, sizeof fields,
      "part=%s rounds=%d devices=%zu ports=%ld requests_per_round=%ld "
      "messages_per_round=%ld bytes_per_round=%ld",
      part.c_str(), rounds, devices.size(), ports, t.requests / rounds,
      t.messages / rounds, t.bytes / rounds);
  m.Print(rounds, fields);
  return 0;
}

}  // namespace
}  // namespace rnic::floor

int main(int argc, char** argv) {
  int rounds = 100;
  std::string part = "all";
  std::string pid;
  std::string under = "/sys/";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) {
      rounds = std::atoi(argv[++i]);
    } else if (a == "--part" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "all" ||
                std::string(argv[i + 1]) == "port" ||
                std::string(argv[i + 1]) == "res" ||
                std::string(argv[i + 1]) == "files")) {
      part = argv[++i];
    } else if (a == "--files-of" && i + 1 < argc) {
      pid = argv[++i];
    } else if (a == "--under" && i + 1 < argc) {
      // A directory: "/dev/shm/sys256" takes what lies under it, not
      // "/dev/shm/sys2560".
      // The links in /proc/PID/fd are absolute and resolved.
      char real[PATH_MAX];
      under = realpath(argv[++i], real) != nullptr ? real : argv[i];
      if (under.empty() || under.back() != '/') under += '/';
    } else {
      rounds = 0;
      break;
    }
  }
  if (rounds <= 0 || (part == "files") != !pid.empty()) {
    std::fprintf(stderr,
                 "usage: rnic_floor [--rounds N] [--part all|port|res]\n"
                 "       rnic_floor [--rounds N] --part files --files-of "
                 "PID [--under DIR]\n");
    return 2;
  }
  if (part == "files") return rnic::floor::RunFiles(rounds, pid, under);
  return rnic::floor::Run(rounds, part);
}
