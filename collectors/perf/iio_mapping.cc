#include "collectors/perf/iio_mapping.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "collectors/common/dir_fd.h"
#include "collectors/common/small_file.h"
#include "collectors/host/sysfs_parse.h"

namespace rnic::perf {
namespace {

// The number after `prefix` in `name`, or -1.
int Suffix(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return -1;
  const std::string_view digits = name.substr(prefix.size());
  int v = -1;
  auto [p, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || digits.empty())
    return -1;
  return v;
}

}  // namespace

std::vector<IioStack> ListIioStacks(const std::string& sysfs) {
  std::vector<IioStack> out;
  const std::string devices = sysfs + "/bus/event_source/devices";
  auto pmus = ListDirectory(devices);
  if (!pmus.ok()) return out;
  for (const std::string& name : *pmus) {
    const int n = Suffix(name, "uncore_iio_");
    if (n < 0) continue;
    const std::string dir = devices + "/" + name;
    auto files = ListDirectory(dir);
    if (!files.ok()) continue;
    for (const std::string& file : *files) {
      const int die = Suffix(file, "die");
      if (die < 0) continue;
      auto text = ReadSmallFile(dir + "/" + file);
      if (!text.ok()) continue;
      const std::string bus(sysfs::TrimValue(*text));
      // "0000:80"; the kernel writes "" for a stack without a root bus.
      if (bus.size() != 7 || bus[4] != ':') continue;
      out.push_back(IioStack{n, die, bus});
    }
  }
  std::sort(out.begin(), out.end(), [](const IioStack& a, const IioStack& b) {
    return std::tie(a.index, a.die) < std::tie(b.index, b.die);
  });
  return out;
}

const IioStack* FindStack(const std::vector<IioStack>& stacks,
                          const std::string& root_bus) {
  for (const IioStack& s : stacks) {
    if (s.root_bus == root_bus) return &s;
  }
  return nullptr;
}

std::vector<StackUse> MapFunctions(const std::vector<IioStack>& stacks,
                                   std::vector<RdmaFunction> functions) {
  std::sort(functions.begin(), functions.end(),
            [](const RdmaFunction& a, const RdmaFunction& b) {
              return a.device < b.device;
            });
  std::vector<StackUse> out;
  for (RdmaFunction& f : functions) {
    const IioStack* s =
        f.root_bus.empty() ? nullptr : FindStack(stacks, f.root_bus);
    if (s == nullptr) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const StackUse& u) {
      return u.stack.index == s->index && u.stack.die == s->die;
    });
    if (it == out.end()) {
      out.push_back(StackUse{*s, {}});
      it = std::prev(out.end());
    }
    it->functions.push_back(std::move(f));
  }
  return out;
}

Result<double> BytesPerCount(const PmuEvent& ev) {
  double unit = 0;
  if (ev.unit == "MiB") {
    unit = 1024.0 * 1024.0;
  } else if (ev.unit == "KiB") {
    unit = 1024.0;
  } else if (ev.unit.empty() || ev.unit == "B" || ev.unit == "bytes") {
    unit = 1.0;
  } else {
    return Error{"unit '" + ev.unit + "' is not a byte unit", EINVAL};
  }
  return ev.scale * unit;
}

Result<std::vector<BandwidthEvent>> BandwidthEvents(const Pmu& pmu) {
  std::vector<BandwidthEvent> out;
  for (const auto& [name, ev] : pmu.events) {
    std::string direction;
    if (Suffix(name, "bw_in_port") >= 0) {
      direction = "in";
    } else if (Suffix(name, "bw_out_port") >= 0) {
      direction = "out";
    } else {
      continue;
    }
    auto bytes = BytesPerCount(ev);
    if (!bytes) {
      return Error{pmu.name + "/" + name + ": " + bytes.error().message,
                   EINVAL};
    }
    out.push_back(BandwidthEvent{name, direction, *bytes});
  }
  return out;
}

}  // namespace rnic::perf
