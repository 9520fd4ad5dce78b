// rnic_probe_tool: runs the probe and kmsg collectors without the HTTP
// server and writes their exposition text to a file, periodically and at
// exit. For the Soft-RoCE VM tests and for measuring the probe's CPU cost:
//   rnic_probe_tool --config probe.yml --duration 60 --out /tmp/m.prom
#include <prometheus/text_serializer.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include "collectors/kmsg/kmsg_collector.h"
#include "collectors/probe/probe_collector.h"

namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

void Usage() {
  std::fprintf(stderr,
               "usage: rnic_probe_tool [--config FILE] [--duration SEC]\n"
               "  [--out FILE] [--dump-interval SEC] [--kmsg PATH|none]\n"
               "  [--sysfs DIR] [--no-probe] [--log-level LEVEL]\n");
}

bool WriteFile(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) return false;
    out << text;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path, out_path, kmsg_path = "/dev/kmsg", sysfs = "/sys";
  double duration = 10, dump_interval = 1;
  bool run_probe = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        Usage();
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--config")
      config_path = next();
    else if (a == "--duration")
      duration = std::stod(next());
    else if (a == "--out")
      out_path = next();
    else if (a == "--dump-interval")
      dump_interval = std::stod(next());
    else if (a == "--kmsg")
      kmsg_path = next();
    else if (a == "--sysfs")
      sysfs = next();
    else if (a == "--no-probe")
      run_probe = false;
    else if (a == "--log-level")
      spdlog::set_level(spdlog::level::from_str(next()));
    else {
      Usage();
      return 2;
    }
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);

  rnic::CollectorArgs args;
  args.paths.sysfs = sysfs;
  args.paths.devkmsg = kmsg_path;
  args.shared = std::make_shared<rnic::SharedFacts>();
  if (!config_path.empty()) {
    try {
      YAML::Node doc = YAML::LoadFile(config_path);
      args.config = doc["probe"] ? doc["probe"] : doc;
    } catch (const YAML::Exception& e) {
      std::fprintf(stderr, "config %s: %s\n", config_path.c_str(), e.what());
      return 2;
    }
  }
  std::vector<std::unique_ptr<rnic::Collector>> collectors;
  if (run_probe) {
    auto c = rnic::MakeProbeCollectorSpec().factory(args);
    if (!c) {
      std::fprintf(stderr, "probe: %s\n", c.error().ToString().c_str());
      return 2;
    }
    collectors.push_back(std::move(*c));
  }
  if (kmsg_path != "none") {
    auto c = rnic::MakeKmsgCollectorSpec().factory(args);
    if (!c) {
      std::fprintf(stderr, "kmsg: %s\n", c.error().ToString().c_str());
      return 2;
    }
    collectors.push_back(std::move(*c));
  }

  auto dump = [&] {
    rnic::MetricSet all;
    rnic::ScrapeContext ctx{std::chrono::steady_clock::now() +
                            std::chrono::seconds(10)};
    for (auto& c : collectors) {
      rnic::MetricSet one;
      if (auto st = c->Collect(ctx, one); !st.ok()) {
        spdlog::warn("collect: {}", st.error().ToString());
        continue;
      }
      all.Merge(std::move(one));
    }
    const std::string text =
        prometheus::TextSerializer().Serialize(std::move(all).Take());
    if (!out_path.empty()) {
      WriteFile(out_path, text);
    } else {
      std::fputs(text.c_str(), stdout);
    }
  };

  const auto t0 = std::chrono::steady_clock::now();
  auto next_dump = t0 + std::chrono::duration<double>(dump_interval);
  while (!g_stop &&
         (duration <= 0 || std::chrono::steady_clock::now() - t0 <
                               std::chrono::duration<double>(duration))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (!out_path.empty() && std::chrono::steady_clock::now() >= next_dump) {
      dump();
      next_dump += std::chrono::duration<double>(dump_interval);
    }
  }
  dump();
  collectors.clear();  // stops and joins the probe and kmsg threads
  spdlog::info(
      "rnic_probe_tool: done after {:.1f} s",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count());
  return 0;
}
