#include "collectors/health/port_health_rules.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "collectors/common/config_schema.h"

namespace rnic::health {
namespace {

int Severity(State s) {
  switch (s) {
    case State::kOk:
      return 0;
    case State::kDegraded:
      return 1;
    case State::kFailed:
      return 2;
    case State::kUnknown:
      return 3;
  }
  return 3;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", v);
  return buf;
}

std::string Window(milliseconds d) { return config::FormatDuration(d); }

// Reasons are label values: they name the rule and its threshold, never a
// measured value, so a port that stays in one condition keeps one series.
struct Findings {
  std::vector<std::string> failed, degraded;
  void Add(State s, std::string why) {
    (s == State::kFailed ? failed : degraded).push_back(std::move(why));
  }
};

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : "; ") + s;
  return out;
}

// "module TX fault on lanes 1,3"
void AddModuleFaults(const std::vector<ModuleFault>& faults, Findings& f) {
  struct Kind {
    const char* kind;
    const char* text;
    State state;
  };
  static constexpr Kind kKinds[] = {
      {"tx_fault", "module TX fault", State::kFailed},
      {"rx_los", "module RX loss of signal", State::kDegraded},
      {"tx_los", "module TX loss of signal", State::kDegraded},
      {"rx_cdr_lol", "module RX CDR loss of lock", State::kDegraded},
      {"tx_cdr_lol", "module TX CDR loss of lock", State::kDegraded},
  };
  for (const Kind& k : kKinds) {
    std::vector<int> lanes;
    for (const auto& m : faults) {
      if (m.kind == k.kind) lanes.push_back(m.lane);
    }
    if (lanes.empty()) continue;
    std::sort(lanes.begin(), lanes.end());
    std::string text =
        std::string(k.text) + (lanes.size() == 1 ? " on lane " : " on lanes ");
    for (std::size_t i = 0; i < lanes.size(); ++i) {
      text += (i ? "," : "") + std::to_string(lanes[i]);
    }
    f.Add(k.state, std::move(text));
  }
}

}  // namespace

std::string_view StateName(State s) {
  switch (s) {
    case State::kOk:
      return "ok";
    case State::kDegraded:
      return "degraded";
    case State::kFailed:
      return "failed";
    case State::kUnknown:
      return "unknown";
  }
  return "unknown";
}

double Thresholds::BerBound(double rate_gbps) const {
  const long rate = std::lround(rate_gbps);
  for (const RateBound& b : ber_max_by_rate) {
    if (b.rate_gbps == rate) return b.ber_max;
  }
  return ber_max;
}

void PortHealth::TrackLink(const Observation& o) {
  if (o.link == Link::kUnknown) return;  // nothing learnt; memory kept
  std::uint64_t events = 0;
  if (o.down_events && last_down_events_ &&
      *o.down_events >= *last_down_events_) {
    events = *o.down_events - *last_down_events_;
  }
  if (o.down_events) last_down_events_ = o.down_events;
  const bool seen_before = last_link_ != Link::kUnknown;
  // Complete down-and-up episodes since the last observation: the sampled
  // episode that ended (unless it was a drop) plus those only the down
  // counter saw (a down event the counter saw but no observation did came
  // back within an observation interval).
  std::uint64_t flaps = 0;
  const std::uint64_t provisional = provisional_;
  provisional_ = 0;
  if (o.link == Link::kUp) {
    if (last_link_ == Link::kDown) {
      flaps = (dropped_ ? 0 : 1) + events;
    } else if (seen_before) {
      flaps = events;
      provisional_ = events;
    }
  } else {  // down
    if (last_link_ == Link::kUp && events == 0 && provisional > 0) {
      // The down the counter saw at the last observation is this one: the
      // port state follows the netdev's carrier a little late (linkwatch).
      // Not a flap; down since then.
      flaps_.pop_back();
      down_since_ = last_at_;
      dropped_ = false;
    } else if (last_link_ != Link::kDown) {
      flaps = events > 1 ? events - 1 : 0;
      down_since_ = o.at;
      dropped_ = false;
    } else if (events > 0) {
      // Up and down again in between: the earlier episode ended.
      flaps = (dropped_ ? 0 : 1) + (events - 1);
      down_since_ = o.at;
      dropped_ = false;
    }
    if (o.at - down_since_ >= t_->drop_window) dropped_ = true;
  }
  for (std::uint64_t i = 0; i < flaps; ++i) flaps_.push_back(o.at);
  last_link_ = o.link;
  last_at_ = o.at;
}

void PortHealth::TrackBitErrors(const Observation& o) {
  if (!o.bit_errors) return;
  // A counter that went backwards was reset: start over.
  if (!errors_.empty() && *o.bit_errors < errors_.back().second) {
    errors_.clear();
  }
  errors_.emplace_back(o.at, *o.bit_errors);
  // Keep as baseline the newest sample at or before the window's start.
  while (errors_.size() >= 2 && errors_[1].first <= o.at - t_->ber_window) {
    errors_.pop_front();
  }
}

Verdict PortHealth::Evaluate(const Observation& o) {
  if (o.link == Link::kUnknown) {
    return Verdict{State::kUnknown, "port state unreadable"};
  }
  Findings f;
  if (o.link == Link::kDown && dropped_) {
    f.Add(State::kFailed, "link down longer than the drop window (" +
                              Window(t_->drop_window) + ")");
  }
  if (o.aer_fatal) {
    if (last_aer_fatal_ && *o.aer_fatal > *last_aer_fatal_) {
      aer_fatal_at_ = o.at;
    }
    last_aer_fatal_ = o.aer_fatal;
  }
  if (aer_fatal_at_ && o.at - *aer_fatal_at_ < t_->aer_fatal_hold) {
    f.Add(State::kFailed,
          "fatal PCIe AER error within " + Window(t_->aer_fatal_hold));
  }
  AddModuleFaults(o.module_faults, f);
  if (flaps() >= t_->flap_count) {
    f.Add(State::kDegraded, "link flapping: " + std::to_string(t_->flap_count) +
                                " or more flaps within " +
                                Window(t_->flap_window));
  }
  if (o.bit_errors && o.rate_gbps && *o.rate_gbps > 0 && errors_.size() >= 2) {
    const auto& [since, base] = errors_.front();
    const double seconds =
        std::chrono::duration<double>(
            std::max<Clock::duration>(o.at - since, t_->ber_window))
            .count();
    const double ber = static_cast<double>(*o.bit_errors - base) /
                       (*o.rate_gbps * 1e9 * seconds);
    const double bound = t_->BerBound(*o.rate_gbps);
    if (ber > bound) {
      f.Add(State::kDegraded, "bit error ratio above " + Number(bound) +
                                  " at " + Number(*o.rate_gbps) +
                                  " Gb/s over " + Window(t_->ber_window));
    }
  }
  if (o.pcie_downtrained.value_or(false)) {
    f.Add(State::kDegraded, "PCIe link trained below its maximum");
  }
  if (!f.failed.empty()) return Verdict{State::kFailed, Join(f.failed)};
  if (!f.degraded.empty()) return Verdict{State::kDegraded, Join(f.degraded)};
  return Verdict{State::kOk, ""};
}

const Verdict& PortHealth::Observe(const Observation& o) {
  if (!o.stuck.empty()) {
    shown_ = Verdict{State::kUnknown, o.stuck};
    better_since_.reset();
    return shown_;
  }
  TrackLink(o);
  TrackBitErrors(o);
  while (!flaps_.empty() && o.at - flaps_.front() >= t_->flap_window) {
    flaps_.pop_front();
  }
  Verdict raw = Evaluate(o);
  // A link down inside the drop window is neither a drop nor a flap yet:
  // the shown state may get worse (other rules) but not better.
  const bool pending = o.link == Link::kDown && !dropped_;
  if (shown_.state == State::kUnknown || raw.state == State::kUnknown) {
    // Leaving or entering unknown is immediate: there is nothing to
    // debounce against.
    if (pending && raw.state == State::kOk) {
      raw = Verdict{State::kUnknown, "link down, drop window (" +
                                         Window(t_->drop_window) +
                                         ") not yet elapsed"};
    }
    shown_ = std::move(raw);
    better_since_.reset();
    return shown_;
  }
  const int now = Severity(raw.state), was = Severity(shown_.state);
  if (now > was) {
    shown_ = std::move(raw);
    better_since_.reset();
  } else if (now == was) {
    shown_.reason = std::move(raw.reason);
    better_since_.reset();
  } else if (pending) {
    better_since_.reset();
  } else {
    if (!better_since_) better_since_ = o.at;
    if (o.at - *better_since_ >= t_->recovery_hold) {
      shown_ = std::move(raw);
      better_since_.reset();
    }
  }
  return shown_;
}

}  // namespace rnic::health
