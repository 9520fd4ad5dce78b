#include "exporter/flags.h"

#include <charconv>
#include <optional>

#include "exporter/scrape_timeout.h"

namespace rnic {
namespace {

struct ValueFlag {
  const char* name;
  const char* help;
};

constexpr ValueFlag kValueFlags[] = {
    {"web.listen-address",
     "Address to listen on, host:port, :port or [IPv6]:port. Repeatable."},
    {"web.telemetry-path", "Path under which to expose metrics."},
    {"web.max-requests",
     "Maximum number of parallel scrape requests; 0 disables the limit."},
    {"web.timeout-offset",
     "Seconds subtracted from the scraper's "
     "X-Prometheus-Scrape-Timeout-Seconds "
     "to give collectors their deadline (0, or 0.001 to 3600)."},
    {"web.config.file",
     "Prometheus exporter-toolkit web configuration file (TLS, basic auth, "
     "response headers)."},
    {"web.default-timeout",
     "Collector deadline in seconds when the scraper sends no timeout header "
     "(0.001 to 3600)."},
    {"path.sysfs", "sysfs mount point."},
    {"path.procfs", "procfs mount point."},
    {"path.devkmsg", "Kernel log device read by the kmsg collector."},
    {"config.file", "YAML file with per-collector settings (probe, ...)."},
    {"log.level",
     "Only log messages with the given severity or above: debug, info, warn, "
     "error."},
    {"log.format", "Output format of log messages: logfmt or json."},
};

bool IsValueFlag(std::string_view n) {
  for (const auto& f : kValueFlags) {
    if (n == f.name) return true;
  }
  return false;
}

const CollectorSpec* FindSpec(const std::vector<CollectorSpec>& specs,
                              std::string_view name) {
  for (const auto& s : specs) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

Error Bad(const std::string& flag, const std::string& why) {
  return Error{"flag --" + flag + ": " + why};
}

// A boolean flag's optional "=true"/"=false".
Result<bool> BoolValue(const std::string& flag,
                       const std::optional<std::string>& value) {
  if (!value || *value == "true") return true;
  if (*value == "false") return false;
  return Bad(flag, "expected true or false, got '" + *value + "'");
}

}  // namespace

Result<Options> ParseFlags(const std::vector<std::string>& args,
                           const std::vector<CollectorSpec>& specs) {
  Options o;
  o.paths = Paths{};
  std::map<std::string, bool> explicit_state;
  bool disable_defaults = false;
  // Collector name -> option -> text as given; parsed once all flags are in.
  std::map<std::string, std::map<std::string, std::string>> given;
  std::set<std::string> given_flags;  // names without "no-"

  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      o.show_help = true;
      continue;
    }
    if (a == "--version") {
      o.show_version = true;
      continue;
    }
    if (a.rfind("--", 0) != 0) return Error{"unexpected argument '" + a + "'"};
    std::string name = a.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    // A flag given twice is a mistake (two config management layers, a
    // stale unit override): refused, not resolved silently by the last
    // one. --no-x and --x are the same flag; listen addresses repeat.
    if (name != "web.listen-address" &&
        !given_flags.insert(name.rfind("no-", 0) == 0 ? name.substr(3) : name)
             .second) {
      return Bad(name, "given twice");
    }

    // Boolean flags.
    if (name == "collector.disable-defaults" ||
        name == "web.disable-exporter-metrics") {
      auto v = BoolValue(name, value);
      if (!v.ok()) return v.error();
      (name == "collector.disable-defaults" ? disable_defaults
                                            : o.disable_exporter_metrics) = *v;
      continue;
    }
    bool negated = name.rfind("no-collector.", 0) == 0;
    if (negated || name.rfind("collector.", 0) == 0) {
      std::string rest = name.substr(negated ? 13 : 10);
      auto dot = rest.find('.');
      std::string cname = rest.substr(0, dot);
      const CollectorSpec* spec = FindSpec(specs, cname);
      if (spec == nullptr)
        return Bad(name, "unknown collector '" + cname + "'");
      if (dot == std::string::npos) {
        if (negated && value) return Bad(name, "takes no value");
        auto v = BoolValue(name, value);
        if (!v.ok()) return v.error();
        explicit_state[cname] = negated ? false : *v;
        continue;
      }
      std::string opt = rest.substr(dot + 1);
      const OptionSpec* os = nullptr;
      for (const auto& o2 : spec->options) {
        if (o2.name == opt) os = &o2;
      }
      if (os == nullptr) {
        return Bad(name, negated ? "unknown flag"
                                 : "unknown option '" + opt +
                                       "' of collector " + cname);
      }
      // A bool option alone is true, and --no-collector.<c>.<opt> false,
      // like the collectors' own switches.
      if (os->type == OptionType::kBool && !value) {
        given[cname][opt] = negated ? "false" : "true";
        continue;
      }
      if (negated) {
        return Bad(name, os->type == OptionType::kBool
                             ? "takes no value"
                             : "only a boolean option can be negated");
      }
      if (!value) {
        if (i + 1 >= args.size()) return Bad(name, "needs a value");
        value = args[++i];
      }
      given[cname][opt] = *value;
      continue;
    }
    if (!IsValueFlag(name)) return Bad(name, "unknown flag (see --help)");
    if (!value) {
      if (i + 1 >= args.size()) return Bad(name, "needs a value");
      value = args[++i];
    }
    const std::string& v = *value;
    if (name == "web.listen-address") {
      if (v.empty()) return Bad(name, "empty address");
      o.listen_addresses.push_back(v);
    } else if (name == "web.telemetry-path") {
      if (v.empty() || v[0] != '/' || v == "/") {
        return Bad(name, "must start with '/' and not be '/', got '" + v + "'");
      }
      o.telemetry_path = v;
    } else if (name == "web.max-requests") {
      int n = 0;
      auto r = std::from_chars(v.data(), v.data() + v.size(), n);
      if (r.ec != std::errc() || r.ptr != v.data() + v.size() || n < 0) {
        return Bad(name, "expected a non-negative integer, got '" + v + "'");
      }
      o.max_requests = n;
    } else if (name == "web.timeout-offset" || name == "web.default-timeout") {
      // Finite and bounded: both end up in a clock deadline. Below a
      // millisecond (the config file's resolution) a timeout fails every
      // scrape and an offset means nothing.
      const bool offset = name == "web.timeout-offset";
      auto d = ParseSeconds(v);
      if (!d || *d < 0 || (!offset && *d == 0) ||
          (*d != 0 && *d < kMinTimeoutSeconds) || *d > kMaxTimeoutSeconds) {
        return Bad(name,
                   std::string("expected seconds, ") +
                       (offset ? "0 or 0.001" : "0.001") + " to " +
                       std::to_string(static_cast<int>(kMaxTimeoutSeconds)) +
                       ", got '" + v + "'");
      }
      (offset ? o.timeout_offset_seconds : o.default_timeout_seconds) = *d;
    } else if (name == "path.sysfs") {
      o.paths.sysfs = v;
    } else if (name == "path.procfs") {
      o.paths.procfs = v;
    } else if (name == "path.devkmsg") {
      o.paths.devkmsg = v;
    } else if (name == "config.file") {
      o.config_file = v;
    } else if (name == "web.config.file") {
      if (v.empty()) return Bad(name, "empty path");
      o.web_config_file = v;
    } else if (name == "log.level") {
      if (v != "debug" && v != "info" && v != "warn" && v != "error") {
        return Bad(name,
                   "expected debug, info, warn or error, got '" + v + "'");
      }
      o.log_level = v;
    } else if (name == "log.format") {
      if (v != "logfmt" && v != "json") {
        return Bad(name, "expected logfmt or json, got '" + v + "'");
      }
      o.log_format = v;
    }
  }

  if (o.listen_addresses.empty()) {
    o.listen_addresses.push_back(":" + std::to_string(kDefaultPort));
  }
  for (const auto& s : specs) {
    auto values = s.ParseOptions(given[s.name]);
    if (!values.ok()) return values.error();
    o.collector_options[s.name] = std::move(values).value();
    bool enabled = disable_defaults ? false : s.default_enabled;
    if (auto it = explicit_state.find(s.name); it != explicit_state.end()) {
      enabled = it->second;
    }
    o.collectors[s.name] = enabled;
  }
  return o;
}

std::string HelpText(const std::vector<CollectorSpec>& specs) {
  std::string h =
      "usage: rnic_exporter [<flags>]\n\n"
      "Prometheus exporter for RDMA NICs (InfiniBand, RoCE, iWARP).\n\nFlags:\n"
      "  -h, --help                     Show this help.\n"
      "      --version                  Show the version.\n";
  auto line = [&h](const std::string& flag, const std::string& help) {
    std::string l = "      " + flag;
    if (l.size() < 39) {
      l.resize(39, ' ');
    } else {
      l += "\n" + std::string(39, ' ');
    }
    h += l + help + "\n";
  };
  for (const auto& f : kValueFlags)
    line(std::string("--") + f.name + "=VALUE", f.help);
  line("--web.disable-exporter-metrics",
       "Leave out process_* and rnic_build_info from /metrics.");
  line("--collector.disable-defaults",
       "Disable all collectors that are not enabled explicitly.");
  for (const auto& s : specs) {
    line("--[no-]collector." + s.name,
         "Enable the " + s.name + " collector (default: " +
             (s.default_enabled ? "enabled" : "disabled") + "). " + s.help);
    for (const auto& o : s.options) {
      line(
          "--collector." + s.name + "." + o.name + "=VALUE",
          o.help + " (" + TypeText(o) +
              (o.default_value.empty() ? "" : ", default: " + o.default_value) +
              ")");
    }
  }
  return h;
}

}  // namespace rnic
