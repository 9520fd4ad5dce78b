// A network namespace the test makes itself (`ip netns add`), entered by the
// calling thread with setns() so the code under test talks to the real
// kernel there, and removed afterwards. Needs CAP_SYS_ADMIN; tests skip
// without it.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace rnic::testing {

class TestNetns {
 public:
  TestNetns() {
    static int counter = 0;
    name_ = "rnic_roce_" + std::to_string(getpid()) + "_" +
            std::to_string(counter++);
    if (Sh("ip netns add " + name_) != 0) return;
    created_ = true;
  }
  ~TestNetns() {
    Leave();
    if (created_) Sh("ip netns del " + name_);
  }
  TestNetns(const TestNetns&) = delete;
  TestNetns& operator=(const TestNetns&) = delete;

  [[nodiscard]] bool ok() const { return created_; }
  [[nodiscard]] const std::string& name() const { return name_; }

  // Runs `ip -n <ns> <args>`.
  int Ip(const std::string& args) const {
    return Sh("ip -n " + name_ + " " + args);
  }
  // Runs a shell command inside the namespace.
  int Exec(const std::string& cmd) const {
    return Sh("ip netns exec " + name_ + " " + cmd);
  }

  // Moves this thread into the namespace.
  bool Enter() {
    if (!created_ || old_ >= 0) return false;
    old_ = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    const int fd = open(("/run/netns/" + name_).c_str(), O_RDONLY | O_CLOEXEC);
    if (old_ < 0 || fd < 0) return false;
    const bool ok = setns(fd, CLONE_NEWNET) == 0;
    close(fd);
    return ok;
  }
  void Leave() {
    if (old_ < 0) return;
    (void)setns(old_, CLONE_NEWNET);
    close(old_);
    old_ = -1;
  }

 private:
  static int Sh(const std::string& cmd) {
    return std::system((cmd + " >/dev/null 2>&1").c_str());
  }

  std::string name_;
  bool created_ = false;
  int old_ = -1;
};

}  // namespace rnic::testing
