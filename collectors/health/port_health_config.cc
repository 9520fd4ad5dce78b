#include "collectors/health/port_health_config.h"

#include <chrono>

namespace rnic::health {
namespace {

const config::Section<Thresholds>& Schema() {
  static const config::Section<Thresholds> section = [] {
    using T = Thresholds;
    using std::chrono::hours;
    using std::chrono::milliseconds;
    using std::chrono::minutes;
    using std::chrono::seconds;
    config::MapSchema<T> s;
    s.Key("drop_window", &T::drop_window,
          config::Duration(seconds(1), hours(1)),
          "down this long: a drop (`failed`); back up sooner: a flap");
    s.Key("flap_window", &T::flap_window,
          config::Duration(minutes(1), hours(24)),
          "window flaps are counted in");
    s.Key("flap_count", &T::flap_count, config::Int<int>(1, 1000),
          "flaps in `flap_window` that make the port `degraded`");
    s.Key("ber_window", &T::ber_window, config::Duration(minutes(1), hours(24)),
          "window bit errors are counted in");
    s.Key("ber_max", &T::ber_max, config::Number(1e-18, 1),
          "bit error ratio above which the port is `degraded`");
    config::MapSchema<T::RateBound> rb;
    rb.Key("rate_gbps", &T::RateBound::rate_gbps, config::Int<int>(1, 100000),
           "port rate (Gb/s)")
        .Required("a rate_gbps");
    rb.Key("ber_max", &T::RateBound::ber_max, config::Number(1e-18, 1),
           "bound at that rate");
    s.Key("ber_max_by_rate", &T::ber_max_by_rate,
          config::List(config::Map(std::move(rb))),
          "bounds per port rate, over `ber_max`");
    s.Key("aer_fatal_hold", &T::aer_fatal_hold,
          config::Duration(milliseconds(0), hours(24)),
          "a fatal AER error keeps the port `failed` this long");
    s.Key("recovery_hold", &T::recovery_hold,
          config::Duration(milliseconds(0), hours(1)),
          "a better state shows once it held this long");
    s.Key("read_deadline", &T::read_deadline,
          config::Duration(milliseconds(10), minutes(1)),
          "a read not answered in this time: `unknown`");
    return config::Section<Thresholds>{
        "port_health",
        "Port health thresholds; "
        "[rules](collectors/health/README.md#port_health).",
        config::Map(std::move(s))};
  }();
  return section;
}

}  // namespace

Result<Thresholds> ParsePortHealthConfig(const YAML::Node& node) {
  return Schema().Parse(node);
}

config::SectionDoc PortHealthConfigDoc() { return Schema().Doc(); }

}  // namespace rnic::health
