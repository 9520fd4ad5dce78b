// The port health state machine: timestamped observations of one RDMA port
// in, a state (ok, degraded, failed, unknown) and its reason out. Pure: no
// clock, no I/O; the port_health collector feeds it what it read, tests feed
// it whatever times they like. The rules and their thresholds are listed in
// collectors/health/README.md#port_health; each one's edges have a test in
// tests/unit/health/port_health_rules_test.cc.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "collectors/module_faults.h"

namespace rnic::health {

enum class State { kOk, kDegraded, kFailed, kUnknown };
// "ok", "degraded", "failed", "unknown"
[[nodiscard]] std::string_view StateName(State s);
inline constexpr State kAllStates[] = {State::kOk, State::kDegraded,
                                       State::kFailed, State::kUnknown};

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The thresholds (the port_health: section of --config.file).
struct Thresholds {
  // Down at least this long: a drop (failed). Down and back up sooner: a
  // flap.
  milliseconds drop_window{std::chrono::seconds(10)};
  // flap_count flaps within flap_window: degraded.
  milliseconds flap_window{std::chrono::minutes(10)};
  int flap_count = 3;
  // Symbol plus link-integrity errors within ber_window, per bit the port's
  // rate carries in ber_window, above the bound for that rate: degraded.
  milliseconds ber_window{std::chrono::minutes(5)};
  double ber_max = 1e-12;  // IBTA's link BER objective
  // Bounds for given rates (Gb/s, as ports/N/rate says), over ber_max.
  struct RateBound {
    int rate_gbps = 0;
    double ber_max = 1e-12;
  };
  std::vector<RateBound> ber_max_by_rate;
  // A fatal PCIe AER error keeps the port failed this long.
  milliseconds aer_fatal_hold{std::chrono::minutes(10)};
  // A better state is shown only once it has held this long.
  milliseconds recovery_hold{std::chrono::seconds(30)};
  // A kernel read not answered within this: the port is unknown.
  milliseconds read_deadline{std::chrono::seconds(1)};

  [[nodiscard]] double BerBound(double rate_gbps) const;
};

enum class Link { kUnknown, kUp, kDown };

// A lane fault of the port's pluggable module: "tx_fault" makes it failed;
// "rx_los", "tx_los", "rx_cdr_lol", "tx_cdr_lol" degraded.
using ModuleFault = ModuleLaneFault;

// What one scrape read for a port. Unset optionals were not available (the
// port has no such counter, the file is absent): their rules are skipped.
struct Observation {
  Clock::time_point at;
  Link link = Link::kUnknown;
  // Cumulative link-down events (the netdev's carrier_down_count, else the
  // PMA link_downed counter): catches a flap between two observations.
  std::optional<std::uint64_t> down_events;
  std::optional<double> rate_gbps;
  // Cumulative symbol_error + local_link_integrity_errors.
  std::optional<std::uint64_t> bit_errors;
  std::optional<bool> pcie_downtrained;
  std::optional<std::uint64_t> aer_fatal;  // cumulative, all fatal types
  std::vector<ModuleFault> module_faults;
  // Non-empty: a read that has not answered ("ports/1/state: no answer for
  // 3s"); the port is unknown and the other fields are ignored.
  std::string stuck;
};

struct Verdict {
  State state = State::kUnknown;
  std::string reason;
  bool operator==(const Verdict&) const = default;
};

class PortHealth {
 public:
  // `t` must outlive the machine (the collector's config).
  explicit PortHealth(const Thresholds& t) : t_(&t) {}

  // Feeds one observation (times must not go backwards) and returns the
  // state shown from now on.
  const Verdict& Observe(const Observation& o);
  [[nodiscard]] const Verdict& verdict() const { return shown_; }
  // Flaps within the flap window as of the last observation.
  [[nodiscard]] int flaps() const { return static_cast<int>(flaps_.size()); }

 private:
  // The verdict the rules give for this observation (their windows
  // included), before the recovery hold.
  Verdict Evaluate(const Observation& o);
  void TrackLink(const Observation& o);
  void TrackBitErrors(const Observation& o);

  const Thresholds* t_;
  Verdict shown_{State::kUnknown, "no observation yet"};
  // Link.
  Link last_link_ = Link::kUnknown;
  std::optional<std::uint64_t> last_down_events_;
  Clock::time_point last_at_{};  // of the last observation with a link
  // Flaps counted at the last observation from the down counter alone (the
  // link up before and then): taken back if the link now shows down with
  // no new down event, as that down is the one the counter saw.
  std::uint64_t provisional_ = 0;
  Clock::time_point down_since_{};
  bool dropped_ = false;  // this down episode outlasted the drop window
  std::deque<Clock::time_point> flaps_;
  // Bit errors: (time, cumulative count), oldest first.
  std::deque<std::pair<Clock::time_point, std::uint64_t>> errors_;
  // AER.
  std::optional<std::uint64_t> last_aer_fatal_;
  std::optional<Clock::time_point> aer_fatal_at_;
  // A better verdict waiting out the recovery hold.
  std::optional<Clock::time_point> better_since_;
};

}  // namespace rnic::health
