// rnic_vm_run_as UID GID CAPS PROG ARGS...: runs PROG as UID/GID with no
// supplementary groups and exactly CAPS (comma-separated capability numbers,
// or "none") as its permitted, effective, inheritable and ambient set, so the
// exporter can be started in the VM as an unprivileged user with only the
// capabilities the README's privileges table names. (busybox's setpriv
// cannot change user; the VM has no libcap tools.)
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "rnic_vm_run_as: %s: %s\n", what, std::strerror(errno));
  std::exit(127);
}

bool ParseCaps(const char* text, std::vector<int>* caps) {
  if (std::strcmp(text, "none") == 0) return true;
  std::string s = text;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const std::size_t end = s.find(',', pos);
    const std::string item =
        s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    char* stop = nullptr;
    const long v = std::strtol(item.c_str(), &stop, 10);
    if (item.empty() || *stop != '\0' || v < 0 || v > CAP_LAST_CAP) {
      return false;
    }
    caps->push_back(static_cast<int>(v));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> caps;
  if (argc < 5 || !ParseCaps(argv[3], &caps)) {
    std::fprintf(stderr,
                 "usage: rnic_vm_run_as UID GID CAPS|none PROG ARGS...\n");
    return 2;
  }
  const auto uid = static_cast<uid_t>(std::strtoul(argv[1], nullptr, 10));
  const auto gid = static_cast<gid_t>(std::strtoul(argv[2], nullptr, 10));
  // Keep the permitted set across setuid, then narrow it to `caps`.
  if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0) Die("PR_SET_KEEPCAPS");
  if (setgroups(0, nullptr) != 0) Die("setgroups");
  if (setresgid(gid, gid, gid) != 0) Die("setresgid");
  if (setresuid(uid, uid, uid) != 0) Die("setresuid");
  __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2]{};
  for (int c : caps) {
    const auto bit = 1U << (c % 32);
    data[c / 32].permitted |= bit;
    data[c / 32].effective |= bit;
    data[c / 32].inheritable |= bit;
  }
  if (syscall(SYS_capset, &hdr, data) != 0) Die("capset");
  // Ambient capabilities survive execve of a program without file caps.
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0) {
    Die("PR_CAP_AMBIENT_CLEAR_ALL");
  }
  for (int c : caps) {
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) != 0) {
      Die("PR_CAP_AMBIENT_RAISE");
    }
  }
  execvp(argv[4], argv + 4);
  Die(argv[4]);
}
