// rnic_exporter entry point: flags, config, logging, signals; nothing else.
#include <malloc.h>
#include <signal.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "collectors/collector_spec.h"
#include "collectors/common/log_once.h"
#include "exporter/config_file.h"
#include "exporter/flags.h"
#include "exporter/http_server.h"
#include "exporter/logging.h"
#include "exporter/path_check.h"
#include "exporter/registry.h"
#include "exporter/tls_context.h"
#include "exporter/version.h"
#include "exporter/web_config.h"
#include "exporter/web_handler.h"
#ifdef RNIC_TEST_HOOKS
#include "tests/tools/probe_test_hooks/test_collectors.h"
#endif

namespace {

int Fail(const std::string& msg) {
  std::fprintf(stderr, "rnic_exporter: error: %s\n", msg.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace rnic;
  // Collectors, HTTP workers and the probe run on several threads; with
  // glibc's default of one arena per thread, freed scrape memory stays spread
  // over many arenas. One arena keeps the resident set small and flat;
  // allocation contention is negligible at scrape rates.
  mallopt(M_ARENA_MAX, 1);
  // A scrape's large buffers (the response text, big metric vectors) are
  // mmap'ed and unmapped when freed instead of growing the heap, whose top
  // glibc then keeps resident; fixing the threshold also stops glibc from
  // raising it after the first large free. (Heap kept between scrapes would
  // spare a scrape its page faults, but a 512 KiB trim threshold cost 0.2 MiB
  // of resident memory in tests/bench/memory_soak.py.)
  mallopt(M_MMAP_THRESHOLD, 64 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
#ifdef RNIC_TEST_HOOKS
  // Test build only (rnic_exporter_test_hooks): the probe's fault injection.
  const auto& specs = test_hooks::TestCollectors();
#else
  const auto& specs = AllCollectors();
#endif
  std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = ParseFlags(args, specs);
  if (!parsed.ok()) return Fail(parsed.error().message);
  const Options& opts = parsed.value();
  if (opts.show_help) {
    std::cout << HelpText(specs);
    return 0;
  }
  if (opts.show_version) {
    std::cout << "rnic_exporter version " RNIC_VERSION
                 " (revision " RNIC_REVISION ")\n";
    return 0;
  }
  if (Status st = CheckPaths(opts.paths); !st)
    return Fail(st.error().ToString());
  auto threads = WorkerThreadsFor(opts.max_requests);
  if (!threads.ok()) return Fail(threads.error().message);
  SetUpLogging(opts.log_level, opts.log_format);

  auto config = LoadConfigFile(opts.config_file, specs);
  if (!config.ok()) return Fail(config.error().message);

  // TLS and basic auth: everything is loaded and checked before any thread
  // starts, so a bad web config stops start-up.
  WebConfig web;
  std::unique_ptr<TlsContext> tls;
  if (!opts.web_config_file.empty()) {
    auto w = LoadWebConfig(opts.web_config_file);
    if (!w.ok()) return Fail("--web.config.file: " + w.error().message);
    web = std::move(w).value();
    if (web.tls) {
      auto t = TlsContext::Create(*web.tls);
      if (!t.ok()) {
        return Fail("--web.config.file: " + opts.web_config_file + ": " +
                    t.error().message);
      }
      tls = std::move(t).value();
    }
  }
  BasicAuth auth(web.users);

  // Block the stop signals before any thread starts, so only sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto shared = std::make_shared<SharedFacts>();
  shared->host = MakeHostModel(opts.paths);
  std::vector<CollectorRunner::Entry> entries;
  for (const auto& spec : specs) {
    if (!opts.collectors.at(spec.name)) continue;
    CollectorArgs cargs;
    cargs.paths = opts.paths;
    cargs.options = opts.collector_options.at(spec.name);
    if (auto it = config.value().find(spec.name); it != config.value().end()) {
      cargs.config = it->second;
    }
    cargs.shared = shared;
    auto c = spec.factory(cargs);
    if (!c.ok())
      return Fail("collector " + spec.name + ": " + c.error().ToString());
    LogEvent(spdlog::level::info, spec.name, "enabled collector", {});
    entries.push_back({spec.name, std::move(c).value()});
  }
  if (entries.empty())
    spdlog::warn(
        "no collector enabled: /metrics serves only the exporter's own "
        "metrics");

  CollectorRunner runner(std::move(entries),
                         [host = shared->host] { host->Refresh(); });
  WebHandler handler(opts, runner, &auth, web.headers);
  handler.SetEndpoints(shared->endpoints);
  HttpServer server(handler);
  auto bound = server.Start(opts.listen_addresses, threads.value(), tls.get());
  if (!bound.ok()) return Fail(bound.error().message);
  for (const auto& b : bound.value()) {
    spdlog::info("msg=\"listening\" address={} version=" RNIC_VERSION
                 " tls={} basic_auth={}",
                 b, tls != nullptr, auth.enabled());
  }

  int sig = 0;
  sigwait(&stop_signals, &sig);
  spdlog::info("msg=\"shutting down\" signal={}", sig);
  server.Stop();
  runner.Drain(std::chrono::seconds(5));
  spdlog::info("msg=\"stopped\"");
  return 0;
}
