// --config.file: the YAML text goes through LoadConfigFile (top level), then
// each section through what reads it at start-up: probe's
// ParseProbeConfig, and the perf and roce factories (their ParseConfig; a
// sysfs path that does not exist keeps the perf factory from opening
// events). Nothing is caught that main() would not catch: an exception
// escaping here would end the exporter too.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "collectors/collector_spec.h"
#include "collectors/probe/probe_config.h"
#include "exporter/config_file.h"

namespace {

std::size_t g_sink;

// LoadConfigFile reads a path: hand it the input as an anonymous file.
class MemFile {
 public:
  MemFile(const std::uint8_t* data, std::size_t size)
      : fd_(memfd_create("fuzz_config", 0)) {
    if (fd_ >= 0 && write(fd_, data, size) != static_cast<ssize_t>(size)) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  [[nodiscard]] bool ok() const { return fd_ >= 0; }
  [[nodiscard]] std::string path() const {
    return "/proc/self/fd/" + std::to_string(fd_);
  }

 private:
  int fd_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  static const auto& specs = rnic::AllCollectors();
  MemFile file(data, size);
  if (!file.ok()) return 0;
  auto sections = rnic::LoadConfigFile(file.path(), specs);
  if (!sections.ok()) return 0;
  std::size_t sink = 0;
  for (const auto& spec : specs) {
    auto it = sections->find(spec.name);
    if (it == sections->end()) continue;
    if (spec.name == "probe") {
      if (auto c = rnic::probe::ParseProbeConfig(it->second); c.ok())
        sink += c->sizes.size();
    } else if (spec.name == "perf" || spec.name == "roce") {
      rnic::CollectorArgs args;
      args.paths.sysfs = "/nonexistent/rnic-fuzz";
      args.paths.procfs = "/nonexistent/rnic-fuzz";
      // Defaults, parsed once (regexes are slow to compile).
      static std::map<std::string, rnic::OptionValues> defaults;
      if (!defaults.contains(spec.name))
        defaults[spec.name] = spec.ParseOptions().value();
      args.options = defaults.at(spec.name);
      args.config = it->second;
      if (auto c = spec.factory(args); c.ok()) sink += 1;
    }
  }
  g_sink = sink;
  return 0;
}
