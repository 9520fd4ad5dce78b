// rnic_vm_sysfs_check: inside the VM, compares every value the exporter
// serves for the given RDMA devices with what sysfs says at the same moment.
//
//   rnic_vm_sysfs_check [--port N] [--path /metrics] [--sysfs /sys]
//                       [--tries N] [-v] DEVICE...
//
// "Same moment": sysfs is read before and after the scrape, and the scrape is
// retried until both reads agree (counters must be quiet, so run no traffic
// meanwhile). Exit 0 only if every served sample of those devices maps to a
// sysfs file and equals it, every hw_counters file was served, and at least
// one value per device was compared.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/vm/tools/http_get.h"
#include "tests/vm/tools/sysfs_snapshot.h"
#include "tests/vm/tools/text_format.h"

namespace rnic::vmtest {
namespace {

struct Options {
  int port = 9709;
  std::string path = "/metrics";
  std::string sysfs = "/sys";
  int tries = 5;
  bool verbose = false;
  std::vector<std::string> devices;
};

std::optional<Options> ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    if (a == "-v") {
      o.verbose = true;
    } else if (a == "--port" || a == "--path" || a == "--sysfs" ||
               a == "--tries") {
      auto v = value();
      if (!v) return std::nullopt;
      if (a == "--port") o.port = std::atoi(v->c_str());
      if (a == "--path") o.path = *v;
      if (a == "--sysfs") o.sysfs = *v;
      if (a == "--tries") o.tries = std::atoi(v->c_str());
    } else if (!a.empty() && a[0] != '-') {
      o.devices.push_back(a);
    } else {
      return std::nullopt;
    }
  }
  if (o.devices.empty()) return std::nullopt;
  return o;
}

std::string Sanitize(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_';
    if (!ok) c = '_';
  }
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// sysfs attribute parsers: the number a metric is expected to carry.
std::optional<double> ParseUnsigned(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 0);  // lid is hex
  if (*end != '\0') return std::nullopt;
  return static_cast<double>(v);
}
// "4: ACTIVE" -> 4
std::optional<double> ParseLeadingNumber(const std::string& s) {
  char* end = nullptr;
  unsigned long v = std::strtoul(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != ':') return std::nullopt;
  return static_cast<double>(v);
}
// "25 Gb/sec (1X EDR)" -> bytes per second
std::optional<double> ParseRateBytes(const std::string& s) {
  char* end = nullptr;
  double gbit = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || std::string_view(end).rfind(" Gb/sec", 0) != 0) {
    return std::nullopt;
  }
  return gbit * 1e9 / 8;
}

using Parser = std::optional<double> (*)(const std::string&);

// Port attributes served as plain gauges. The PMA counters/ files are not
// listed: Soft-RoCE has none, so the VM could not check them anyway.
struct PortAttributeRule {
  const char* family;
  const char* file;
  Parser parse;
};
constexpr PortAttributeRule kPortAttributes[] = {
    {"rnic_port_state", "state", ParseLeadingNumber},
    {"rnic_port_physical_state", "phys_state", ParseLeadingNumber},
    {"rnic_port_phys_state", "phys_state", ParseLeadingNumber},
    {"rnic_port_rate_bytes_per_second", "rate", ParseRateBytes},
    {"rnic_port_lid", "lid", ParseUnsigned},
};

class Checker {
 public:
  Checker(const SysfsSnapshot& snap, bool verbose)
      : snap_(snap), verbose_(verbose) {}

  void Check(const Sample& s) {
    auto dev = s.labels.find("device");
    auto port = s.labels.find("port");
    std::string base = dev->second;
    if (port != s.labels.end()) base += "/ports/" + port->second;

    if (EndsWith(s.name, "_info")) return CheckInfo(s, base);
    if (s.name == "rnic_hw_counters_lifespan_seconds") {
      return Compare(s, base + "/hw_counters/lifespan", 1e-3, ParseUnsigned);
    }
    if (s.name.rfind("rnic_hw_", 0) == 0) {
      std::string counter = s.name.substr(8);
      std::string file = HwCounterFile(base, counter);
      if (file.empty() && EndsWith(counter, "_total")) {
        file = HwCounterFile(base, counter.substr(0, counter.size() - 6));
      }
      if (file.empty())
        return Fail(s, "no hw_counters file for it under " + base);
      return Compare(s, file, 1, ParseUnsigned);
    }
    if (port != s.labels.end()) {
      for (const auto& rule : kPortAttributes) {
        if (s.name == rule.family) {
          return Compare(s, base + "/" + rule.file, 1, rule.parse);
        }
      }
    }
    unmapped_.insert(s.name);
  }

  // hw_counters files of the devices that no sample covered.
  std::vector<std::string> Unserved() const {
    std::vector<std::string> out;
    for (const auto& [key, value] : snap_) {
      if (key.find("/hw_counters/") != std::string::npos &&
          !used_.contains(key)) {
        out.push_back(key + " = " + value);
      }
    }
    return out;
  }

  int compared() const { return compared_; }
  const std::vector<std::string>& failures() const { return failures_; }
  const std::set<std::string>& unmapped() const { return unmapped_; }
  bool Covered(const std::string& device) const {
    for (const auto& key : used_) {
      if (key.rfind(device + "/", 0) == 0) return true;
    }
    return false;
  }

 private:
  // The file under base/hw_counters whose sanitized name is `name`.
  std::string HwCounterFile(const std::string& base, const std::string& name) {
    const std::string dir = base + "/hw_counters/";
    for (auto it = snap_.lower_bound(dir);
         it != snap_.end() && it->first.rfind(dir, 0) == 0; ++it) {
      if (Sanitize(it->first.substr(dir.size())) == name) return it->first;
    }
    return "";
  }

  void Compare(const Sample& s, const std::string& file, double scale,
               Parser parse) {
    auto it = snap_.find(file);
    if (it == snap_.end()) return Fail(s, file + " is not readable in sysfs");
    used_.insert(file);
    std::optional<double> raw = parse(it->second);
    if (!raw) return Fail(s, file + " = '" + it->second + "' is not a number");
    double expected = *raw * scale;
    bool equal = expected == s.value ||
                 std::fabs(expected - s.value) <= 1e-12 * std::fabs(expected);
    if (!equal) {
      return Fail(s, "sysfs " + file + " = '" + it->second + "' (expected " +
                         std::to_string(expected) + ")");
    }
    ++compared_;
    if (verbose_) std::printf("ok  %s  == %s\n", s.raw.c_str(), file.c_str());
  }

  // The sysfs file an info label mirrors: a file of the same name, except
  // for the labels renamed for readability.
  std::string LabelFile(const Sample& s, const std::string& base,
                        const std::string& label) const {
    const std::string& dev = s.labels.at("device");
    if (label == "firmware_version") return dev + "/fw_ver";
    if (label == "netdev") return dev + "/parent";  // software devices only
    return base + "/" + label;
  }

  // Info metrics: value 1, and every label that mirrors a sysfs attribute
  // of the device (or port) equals it.
  void CheckInfo(const Sample& s, const std::string& base) {
    if (s.value != 1) return Fail(s, "info metric is not 1");
    for (const auto& [name, value] : s.labels) {
      if (name == "device" || name == "port") continue;
      auto it = snap_.find(LabelFile(s, base, name));
      if (it == snap_.end()) continue;  // not a sysfs attribute (driver, ...)
      used_.insert(it->first);
      std::string expected = it->second;
      // node_type reads "1: CA"; the label carries the name.
      if (name == "node_type" && expected.find(": ") != std::string::npos) {
        expected = expected.substr(expected.find(": ") + 2);
      }
      if (expected != value) {
        return Fail(s, "label " + name + "=\"" + value + "\" but sysfs " +
                           it->first + " = '" + it->second + "'");
      }
      ++compared_;
      if (verbose_) {
        std::printf("ok  %s  label %s == %s\n", s.raw.c_str(), name.c_str(),
                    it->first.c_str());
      }
    }
  }

  void Fail(const Sample& s, const std::string& why) {
    failures_.push_back(s.raw + "  <-  " + why);
  }

  const SysfsSnapshot& snap_;
  bool verbose_;
  std::set<std::string> used_;
  std::set<std::string> unmapped_;
  std::vector<std::string> failures_;
  int compared_ = 0;
};

int Run(const Options& o) {
  // Scrape between two sysfs reads; retry until sysfs did not move.
  SysfsSnapshot snap;
  std::string body;
  bool stable = false;
  for (int attempt = 1; attempt <= o.tries && !stable; ++attempt) {
    SysfsSnapshot before = ReadSysfs(o.sysfs, o.devices);
    std::string error;
    std::optional<std::string> got = HttpGetLocal(o.port, o.path, &error);
    if (!got) {
      std::fprintf(stderr, "FAIL: scrape: %s\n", error.c_str());
      return 1;
    }
    snap = ReadSysfs(o.sysfs, o.devices);
    body = std::move(*got);
    stable = before == snap;
    if (!stable)
      std::printf("sysfs changed during scrape %d; again\n", attempt);
  }
  if (!stable) {
    std::fprintf(stderr, "FAIL: sysfs never stood still for a scrape\n");
    return 1;
  }
  std::string error;
  auto samples = ParseTextFormat(body, &error);
  if (!samples) {
    std::fprintf(stderr, "FAIL: exposition: %s\n", error.c_str());
    return 1;
  }
  std::set<std::string> wanted(o.devices.begin(), o.devices.end());
  Checker checker(snap, o.verbose);
  int served = 0;
  for (const auto& s : *samples) {
    auto dev = s.labels.find("device");
    if (dev == s.labels.end() || !wanted.contains(dev->second)) continue;
    ++served;
    checker.Check(s);
  }
  bool ok = true;
  for (const auto& f : checker.failures()) {
    std::printf("MISMATCH %s\n", f.c_str());
    ok = false;
  }
  for (const auto& name : checker.unmapped()) {
    std::printf(
        "UNMAPPED %s: served for the devices, but this check knows no "
        "sysfs source for it (extend tests/vm/tools)\n",
        name.c_str());
    ok = false;
  }
  for (const auto& f : checker.Unserved()) {
    std::printf("UNSERVED sysfs %s\n", f.c_str());
    ok = false;
  }
  for (const auto& d : o.devices) {
    if (!checker.Covered(d)) {
      std::printf("NOTHING compared for %s\n", d.c_str());
      ok = false;
    }
  }
  std::printf(
      "%s: %d samples served for the devices, %d values equal to sysfs\n",
      ok ? "PASS" : "FAIL", served, checker.compared());
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace rnic::vmtest

int main(int argc, char** argv) {
  auto options = rnic::vmtest::ParseArgs(argc, argv);
  if (!options) {
    std::fprintf(stderr,
                 "usage: %s [--port N] [--path P] [--sysfs DIR] [--tries N] "
                 "[-v] DEVICE...\n",
                 argv[0]);
    return 2;
  }
  return rnic::vmtest::Run(*options);
}
