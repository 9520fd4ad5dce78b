// Command-line flags in the Prometheus exporter dialect. Parsing is pure:
// it returns Options or an Error that names the offending flag, and main
// stops start-up with that message.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collectors/collector_spec.h"
#include "collectors/common/result.h"

namespace rnic {

inline constexpr int kDefaultPort = 9709;

struct Options {
  std::vector<std::string> listen_addresses;  // as given, e.g. ":9709"
  std::string telemetry_path = "/metrics";
  // Each parallel scrape holds a worker thread (and its stack), so
  // the default is sized for an HA pair of Prometheus servers with room to
  // spare, not for node_exporter's goroutines (40).
  int max_requests = 10;
  double timeout_offset_seconds = 0.5;
  double default_timeout_seconds = 10;
  bool disable_exporter_metrics = false;
  Paths paths;
  std::string config_file;
  std::string web_config_file;  // exporter-toolkit web config; "": none
  std::string log_level = "info";
  std::string log_format = "logfmt";
  bool show_version = false;
  bool show_help = false;
  // Collector name -> enabled, after defaults and --collector.disable-defaults.
  std::map<std::string, bool> collectors;
  // Collector name -> its options, parsed and checked (defaults filled), for
  // disabled collectors too: a bad value is refused even when unused.
  std::map<std::string, OptionValues> collector_options;
};

[[nodiscard]] Result<Options> ParseFlags(
    const std::vector<std::string>& args,
    const std::vector<CollectorSpec>& specs);

[[nodiscard]] std::string HelpText(const std::vector<CollectorSpec>& specs);

}  // namespace rnic
