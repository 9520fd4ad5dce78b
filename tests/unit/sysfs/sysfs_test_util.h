// Helpers shared by the sysfs unit tests: fixture paths, scratch copies of
// the fixture tree, and sample lookup in collector output.
#pragma once

#include <prometheus/metric_family.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/metrics/metric_set.h"

namespace rnic::sysfs::testing {

inline std::string FixtureSysfs() {
  return std::string(RNIC_FIXTURES_DIR) + "/sys";
}

// A private copy of the fixture tree (symlinks kept as symlinks), removed
// when the object goes away. For tests that change files.
class ScratchSysfs {
 public:
  ScratchSysfs() {
    static std::atomic<int> seq{0};
    // tmpfs when there is one: copying ~900 small files to a busy disk
    // takes seconds.
    std::error_code ec;
    const std::filesystem::path base =
        std::filesystem::is_directory("/dev/shm", ec)
            ? std::filesystem::path("/dev/shm")
            : std::filesystem::temp_directory_path();
    static std::once_flag swept;
    std::call_once(swept, [&] { SweepDead(base); });
    root_ = base / ("rnic_sysfs_" + std::to_string(::getpid()) + "_" +
                    std::to_string(seq++));
    std::filesystem::remove_all(root_);
    std::filesystem::copy(FixtureSysfs(), root_,
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::copy_symlinks);
  }
  ~ScratchSysfs() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  [[nodiscard]] std::string root() const { return root_.string(); }
  // Path of a file under class/infiniband/<rel> (through the symlinks).
  [[nodiscard]] std::filesystem::path ib(const std::string& rel) const {
    return root_ / "class/infiniband" / rel;
  }
  void Write(const std::string& rel, const std::string& content) const;

 private:
  // Copies left by test processes that died before their destructors ran
  // (a crash, a ctest timeout): 3 MiB each in /dev/shm, which would fill
  // up over many runs on one machine.
  static void SweepDead(const std::filesystem::path& base) {
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(base, ec)) {
      const std::string name = e.path().filename().string();
      constexpr std::string_view kPrefix = "rnic_sysfs_";
      if (name.rfind(kPrefix, 0) != 0) continue;
      const std::string pid = name.substr(
          kPrefix.size(), name.find('_', kPrefix.size()) - kPrefix.size());
      if (pid.empty() ||
          pid.find_first_not_of("0123456789") != std::string::npos ||
          std::filesystem::exists("/proc/" + pid, ec)) {
        continue;
      }
      std::filesystem::remove_all(e.path(), ec);
    }
  }
  std::filesystem::path root_;
};

using LabelMap = std::map<std::string, std::string>;

inline void ScratchSysfs::Write(const std::string& rel,
                                const std::string& content) const {
  std::ofstream out(ib(rel), std::ios::trunc);
  out << content;
}

namespace detail {

inline LabelMap ToMap(const prometheus::ClientMetric& m) {
  LabelMap out;
  for (const auto& l : m.label) out[l.name] = l.value;
  return out;
}

inline double ValueOf(const prometheus::MetricFamily& f,
                      const prometheus::ClientMetric& m) {
  return f.type == prometheus::MetricType::Counter ? m.counter.value
                                                   : m.gauge.value;
}

}  // namespace detail

inline const prometheus::MetricFamily* FindFamily(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name) {
  for (const auto& f : families) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

inline std::optional<double> FindSample(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name, const LabelMap& labels) {
  const auto* f = FindFamily(families, name);
  if (!f) return std::nullopt;
  for (const auto& m : f->metric) {
    if (detail::ToMap(m) == labels) return detail::ValueOf(*f, m);
  }
  return std::nullopt;
}

inline std::vector<LabelMap> SampleLabels(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name) {
  std::vector<LabelMap> out;
  if (const auto* f = FindFamily(families, name)) {
    for (const auto& m : f->metric) out.push_back(detail::ToMap(m));
  }
  return out;
}

inline std::vector<std::string> FamilyNames(
    const std::vector<prometheus::MetricFamily>& families) {
  std::vector<std::string> out;
  for (const auto& f : families) out.push_back(f.name);
  return out;
}

}  // namespace rnic::sysfs::testing
