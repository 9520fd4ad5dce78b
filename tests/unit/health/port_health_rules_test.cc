// Every rule of the port health state machine, and the edges of its
// windows and of the recovery hold, on a made-up clock.
#include "collectors/health/port_health_rules.h"

#include <gtest/gtest.h>

namespace rnic::health {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

class PortHealthTest : public ::testing::Test {
 protected:
  PortHealthTest() {
    t_.drop_window = seconds(10);
    t_.flap_window = minutes(10);
    t_.flap_count = 3;
    t_.ber_window = minutes(5);
    t_.ber_max = 1e-12;
    t_.aer_fatal_hold = minutes(10);
    t_.recovery_hold = seconds(30);
  }
  // An observation at `s` seconds after the start, link up unless told.
  Observation At(double s, Link link = Link::kUp) const {
    Observation o;
    o.at = Clock::time_point() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(s));
    o.link = link;
    return o;
  }
  State Feed(const Observation& o) { return m_.Observe(o).state; }

  Thresholds t_;
  PortHealth m_{t_};
};

TEST_F(PortHealthTest, UnknownUntilTheFirstObservation) {
  EXPECT_EQ(m_.verdict().state, State::kUnknown);
  EXPECT_EQ(Feed(At(0)), State::kOk);
  EXPECT_EQ(m_.verdict().reason, "");
}

TEST_F(PortHealthTest, UnreadablePortStateIsUnknown) {
  EXPECT_EQ(Feed(At(0)), State::kOk);
  EXPECT_EQ(Feed(At(1, Link::kUnknown)), State::kUnknown);
  EXPECT_EQ(m_.verdict().reason, "port state unreadable");
  // Back at once: unknown is not debounced.
  EXPECT_EQ(Feed(At(2)), State::kOk);
}

TEST_F(PortHealthTest, StuckReadIsUnknownWithItsReasonAndLeavesAtOnce) {
  EXPECT_EQ(Feed(At(0)), State::kOk);
  Observation o = At(1);
  o.stuck = "read of x not answered within 1s";
  EXPECT_EQ(Feed(o), State::kUnknown);
  EXPECT_EQ(m_.verdict().reason, "read of x not answered within 1s");
  EXPECT_EQ(Feed(At(2)), State::kOk);
}

TEST_F(PortHealthTest, DownLessThanTheDropWindowIsAFlapNotAFailure) {
  EXPECT_EQ(Feed(At(0)), State::kOk);
  EXPECT_EQ(Feed(At(1, Link::kDown)), State::kOk);  // pending: state kept
  EXPECT_EQ(Feed(At(10.999, Link::kDown)), State::kOk);
  EXPECT_EQ(Feed(At(11)), State::kOk);
  EXPECT_EQ(m_.flaps(), 1);
}

TEST_F(PortHealthTest, DownForExactlyTheDropWindowIsADrop) {
  EXPECT_EQ(Feed(At(0)), State::kOk);
  EXPECT_EQ(Feed(At(1, Link::kDown)), State::kOk);
  EXPECT_EQ(Feed(At(11, Link::kDown)), State::kFailed);
  EXPECT_EQ(m_.verdict().reason, "link down longer than the drop window (10s)");
  // Back up: a drop that ended is no flap, and failed holds for the
  // recovery hold.
  EXPECT_EQ(Feed(At(12)), State::kFailed);
  EXPECT_EQ(m_.flaps(), 0);
  EXPECT_EQ(Feed(At(41.999)), State::kFailed);
  EXPECT_EQ(Feed(At(42)), State::kOk);
}

TEST_F(PortHealthTest, FirstSeenDownIsUnknownUntilTheDropWindowDecides) {
  EXPECT_EQ(Feed(At(0, Link::kDown)), State::kUnknown);
  EXPECT_EQ(m_.verdict().reason,
            "link down, drop window (10s) not yet elapsed");
  EXPECT_EQ(Feed(At(10, Link::kDown)), State::kFailed);
}

TEST_F(PortHealthTest, FirstSeenDownThenUpIsOk) {
  EXPECT_EQ(Feed(At(0, Link::kDown)), State::kUnknown);
  EXPECT_EQ(Feed(At(5)), State::kOk);
  EXPECT_EQ(m_.flaps(), 1);
}

TEST_F(PortHealthTest, FlapCountReachingTheThresholdDegrades) {
  Feed(At(0));
  double t = 1;
  for (int i = 0; i < 2; ++i, t += 10) {
    Feed(At(t, Link::kDown));
    EXPECT_EQ(Feed(At(t + 1)), State::kOk);
  }
  EXPECT_EQ(m_.flaps(), 2);  // one below the count
  Feed(At(t, Link::kDown));
  EXPECT_EQ(Feed(At(t + 1)), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason, "link flapping: 3 or more flaps within 10m");
}

TEST_F(PortHealthTest, FlapsLeaveTheWindowAtItsEdge) {
  Feed(At(0));
  for (double t : {1.0, 3.0, 5.0}) {
    Feed(At(t, Link::kDown));
    Feed(At(t + 1));  // flaps counted at 2, 4, 6
  }
  EXPECT_EQ(m_.verdict().state, State::kDegraded);
  // The first flap is 10m old at 602 s: out of the window.
  EXPECT_EQ(Feed(At(601.999)), State::kDegraded);
  EXPECT_EQ(m_.flaps(), 3);
  EXPECT_EQ(Feed(At(602)), State::kDegraded);  // better, but held
  EXPECT_EQ(m_.flaps(), 2);
  EXPECT_EQ(Feed(At(631.999)), State::kDegraded);
  EXPECT_EQ(Feed(At(632)), State::kOk);
}

TEST_F(PortHealthTest, FlapsOnlyTheDownCounterSawAreCounted) {
  Observation o = At(0);
  o.down_events = 7;
  Feed(o);
  o = At(1);
  o.down_events = 9;  // down and up twice between observations
  EXPECT_EQ(Feed(o), State::kOk);
  EXPECT_EQ(m_.flaps(), 2);
  o = At(2, Link::kDown);
  o.down_events = 11;  // one flap, then down now
  Feed(o);
  EXPECT_EQ(m_.flaps(), 3);
  o = At(3);
  o.down_events = 11;  // the sampled episode ended: a flap
  EXPECT_EQ(Feed(o), State::kDegraded);
  EXPECT_EQ(m_.flaps(), 4);
}

TEST_F(PortHealthTest, ADownTheCounterSawBeforeThePortStateIsNoFlap) {
  // The netdev's carrier_down_count rises before the port state follows
  // (linkwatch runs later): at 1 s the counter says down, the state up.
  Observation o = At(0);
  o.down_events = 0;
  Feed(o);
  o = At(1);
  o.down_events = 1;
  Feed(o);
  EXPECT_EQ(m_.flaps(), 1);  // provisional
  o = At(2, Link::kDown);
  o.down_events = 1;
  Feed(o);
  EXPECT_EQ(m_.flaps(), 0);  // it was this down
  // Down since the counter said so (1 s): a drop at 11 s, not 12 s.
  o = At(11, Link::kDown);
  EXPECT_EQ(Feed(o), State::kFailed);
}

TEST_F(PortHealthTest, DownCounterResetCountsNothing) {
  Observation o = At(0);
  o.down_events = 50;
  Feed(o);
  o = At(1);
  o.down_events = 0;
  Feed(o);
  EXPECT_EQ(m_.flaps(), 0);
}

TEST_F(PortHealthTest, UpAndDownAgainWhileDownEndsTheEpisode) {
  Observation o = At(0, Link::kDown);
  o.down_events = 1;
  Feed(o);
  o = At(8, Link::kDown);
  o.down_events = 2;  // came up and went down again: a flap, new episode
  EXPECT_EQ(Feed(o), State::kUnknown);
  EXPECT_EQ(m_.flaps(), 1);
  o = At(17, Link::kDown);  // 9 s into the new episode
  EXPECT_NE(Feed(o), State::kFailed);
  o = At(18, Link::kDown);
  EXPECT_EQ(Feed(o), State::kFailed);
}

Observation WithErrors(Observation o, std::uint64_t errors, double rate) {
  o.bit_errors = errors;
  o.rate_gbps = rate;
  return o;
}

TEST_F(PortHealthTest, BitErrorRatioAboveTheBoundDegrades) {
  // 100 Gb/s over 5 min: 3e13 bits; 1e-12 allows 30 errors.
  EXPECT_EQ(Feed(WithErrors(At(0), 1000, 100)), State::kOk);
  EXPECT_EQ(Feed(WithErrors(At(60), 1030, 100)), State::kOk);  // at the bound
  EXPECT_EQ(Feed(WithErrors(At(120), 1031, 100)), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason,
            "bit error ratio above 1e-12 at 100 Gb/s over 5m");
}

TEST_F(PortHealthTest, BitErrorsOlderThanTheWindowStopCounting) {
  Feed(WithErrors(At(0), 0, 100));
  EXPECT_EQ(Feed(WithErrors(At(10), 31, 100)), State::kDegraded);
  // At 310 s the 10 s sample is the window's baseline: 0 new errors.
  EXPECT_EQ(Feed(WithErrors(At(309), 31, 100)), State::kDegraded);
  EXPECT_EQ(Feed(WithErrors(At(310), 31, 100)), State::kDegraded);  // held
  EXPECT_EQ(Feed(WithErrors(At(340), 31, 100)), State::kOk);
}

TEST_F(PortHealthTest, BitErrorBoundPerRate) {
  t_.ber_max_by_rate = {{25, 1e-10}};
  // 25 Gb/s over 5 min: 7.5e12 bits; 1e-10 allows 750 errors.
  Feed(WithErrors(At(0), 0, 25));
  EXPECT_EQ(Feed(WithErrors(At(1), 750, 25)), State::kOk);
  EXPECT_EQ(Feed(WithErrors(At(2), 751, 25)), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason,
            "bit error ratio above 1e-10 at 25 Gb/s over 5m");
  EXPECT_EQ(t_.BerBound(100), 1e-12);
}

TEST_F(PortHealthTest, BitErrorCounterResetStartsOver) {
  Feed(WithErrors(At(0), 500, 100));
  EXPECT_EQ(Feed(WithErrors(At(1), 2, 100)), State::kOk);
  EXPECT_EQ(Feed(WithErrors(At(2), 10, 100)), State::kOk);
}

TEST_F(PortHealthTest, NoRateNoBitErrorRule) {
  Observation o = At(0);
  o.bit_errors = 0;
  Feed(o);
  o = At(1);
  o.bit_errors = 1000000;
  EXPECT_EQ(Feed(o), State::kOk);
}

TEST_F(PortHealthTest, PcieDowntrainedDegrades) {
  Observation o = At(0);
  o.pcie_downtrained = true;
  EXPECT_EQ(Feed(o), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason, "PCIe link trained below its maximum");
  o = At(1);
  o.pcie_downtrained = false;
  EXPECT_EQ(Feed(o), State::kDegraded);
}

TEST_F(PortHealthTest, FatalAerFailsForTheHold) {
  Observation o = At(0);
  o.aer_fatal = 4;  // counted before the exporter started: no verdict
  EXPECT_EQ(Feed(o), State::kOk);
  o = At(60);
  o.aer_fatal = 5;
  EXPECT_EQ(Feed(o), State::kFailed);
  EXPECT_EQ(m_.verdict().reason, "fatal PCIe AER error within 10m");
  o = At(659.999);
  EXPECT_EQ(Feed(o), State::kFailed);
  o = At(660);  // the hold is over; then the recovery hold
  EXPECT_EQ(Feed(o), State::kFailed);
  o = At(690);
  EXPECT_EQ(Feed(o), State::kOk);
}

TEST_F(PortHealthTest, ModuleTxFaultFailsAndLosDegrades) {
  Observation o = At(0);
  o.module_faults = {{2, "rx_los"}, {1, "rx_los"}, {3, "rx_cdr_lol"}};
  EXPECT_EQ(Feed(o), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason,
            "module RX loss of signal on lanes 1,2; module RX CDR loss of "
            "lock on lane 3");
  o.at += seconds(1);
  o.module_faults.push_back({4, "tx_fault"});
  EXPECT_EQ(Feed(o), State::kFailed);
  EXPECT_EQ(m_.verdict().reason, "module TX fault on lane 4");
}

TEST_F(PortHealthTest, WorseIsImmediateBetterWaitsTheRecoveryHold) {
  Observation bad = At(0);
  bad.pcie_downtrained = true;
  EXPECT_EQ(Feed(bad), State::kDegraded);
  EXPECT_EQ(Feed(At(10)), State::kDegraded);  // better since 10 s
  bad.at = Clock::time_point() + seconds(20);
  EXPECT_EQ(Feed(bad), State::kDegraded);  // worse again: hold restarts
  EXPECT_EQ(Feed(At(30)), State::kDegraded);
  EXPECT_EQ(Feed(At(59.999)), State::kDegraded);
  EXPECT_EQ(Feed(At(60)), State::kOk);
}

TEST_F(PortHealthTest, SameStateNewReasonIsShownAtOnce) {
  Observation o = At(0);
  o.pcie_downtrained = true;
  Feed(o);
  o = At(1);
  o.module_faults = {{1, "tx_los"}};
  EXPECT_EQ(Feed(o), State::kDegraded);
  EXPECT_EQ(m_.verdict().reason, "module TX loss of signal on lane 1");
}

TEST_F(PortHealthTest, ADownLinkInsideTheDropWindowDoesNotRecover) {
  Observation o = At(0);
  o.pcie_downtrained = true;
  Feed(o);
  EXPECT_EQ(Feed(At(1)), State::kDegraded);  // better since 1 s
  EXPECT_EQ(Feed(At(25, Link::kDown)), State::kDegraded);
  EXPECT_EQ(Feed(At(31, Link::kDown)), State::kDegraded);  // not ok: pending
  EXPECT_EQ(Feed(At(32)), State::kDegraded);  // hold restarts at 32 s
  EXPECT_EQ(Feed(At(62)), State::kOk);
}

TEST_F(PortHealthTest, FailedOutranksDegradedAndBothReasonsOfAStateJoin) {
  Observation o = At(0);
  o.pcie_downtrained = true;
  o.aer_fatal = 0;
  Feed(o);
  o = At(1);
  o.pcie_downtrained = true;
  o.aer_fatal = 1;
  o.module_faults = {{1, "tx_fault"}};
  EXPECT_EQ(Feed(o), State::kFailed);
  EXPECT_EQ(m_.verdict().reason,
            "fatal PCIe AER error within 10m; module TX fault on lane 1");
}

}  // namespace
}  // namespace rnic::health
