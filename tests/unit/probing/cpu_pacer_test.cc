#include "collectors/probing/cpu_pacer.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace rnic::probe {
namespace {

double Seconds(std::chrono::nanoseconds d) {
  return std::chrono::duration<double>(d).count();
}

// Runs the engine's schedule: a round of `round_wall` seconds costing
// `round_cpu`, then the later of the interval and the pacer's wait.
// Returns (CPU used, wall time elapsed, rounds delayed by the pacer).
struct PacedRun {
  double cpu = 0, wall = 0;
  int delayed = 0;
};
PacedRun Simulate(CpuPacer& p, int rounds, double interval, double round_wall,
                  double round_cpu) {
  PacedRun r;
  double since_last = 0;
  for (int i = 0; i < rounds; ++i) {
    since_last += round_wall;
    r.cpu += round_cpu;
    const double wait = Seconds(p.AfterRound(since_last, round_cpu));
    const double gap = std::max(interval - round_wall, 0.0);
    if (wait > gap) ++r.delayed;
    const double pause = std::max(gap, wait);
    r.wall += round_wall + pause;
    since_last = pause;
  }
  return r;
}

TEST(CpuPacerTest, CheapRoundsAreNeverDelayed) {
  CpuPacer p(0.01, 0.1, 1e9);
  // 1 ms of CPU per 1 s round: 0.1 % of a core.
  const PacedRun r = Simulate(p, 1000, 1.0, 0.002, 0.001);
  EXPECT_EQ(r.delayed, 0);
  EXPECT_NEAR(p.credit_seconds(), 0.099, 1e-12);  // refilled every round
}

TEST(CpuPacerTest, ExpensiveRoundsAreStretchedToTheShare) {
  CpuPacer p(0.01, 0.1, 1e9);
  // 40 ms of CPU per round at a 1 s interval would be 4 % of a core.
  const PacedRun r = Simulate(p, 2000, 1.0, 0.05, 0.04);
  EXPECT_GT(r.delayed, 1900);
  // Long-run share: at most the budget plus the banked burst.
  EXPECT_LE(r.cpu, 0.01 * r.wall + 0.1 + 1e-9);
  EXPECT_GT(r.cpu / r.wall, 0.0095);  // and not throttled far below it
}

TEST(CpuPacerTest, OneHeavyRoundIsPaidBackThenTheIntervalResumes) {
  CpuPacer p(0.01, 0.05, 1e9);
  const double since = 0.01;
  // A 0.25 s round (64 MiB registrations under emulation, say).
  const double wait = Seconds(p.AfterRound(since, 0.25));
  // 0.05 banked, 0.20 of debt at 1 % of a core: 20 s.
  EXPECT_NEAR(wait, 20.0, 1e-6);
  // After the wait the bucket is empty, not in debt: a cheap round that
  // follows one interval later goes at once.
  EXPECT_EQ(p.AfterRound(wait + 1.0, 0.001).count(), 0);
}

TEST(CpuPacerTest, ZeroShareMeansNoLimit) {
  CpuPacer p(0, 0, 0);
  EXPECT_EQ(p.AfterRound(1.0, 100.0).count(), 0);
}

TEST(CpuPacerTest, BurstCapsBankedCredit) {
  CpuPacer p(0.01, 0.02, 1e9);
  // An hour idle banks at most the burst, not 36 s of CPU.
  EXPECT_EQ(p.AfterRound(3600, 0).count(), 0);
  EXPECT_DOUBLE_EQ(p.credit_seconds(), 0.02);
  EXPECT_GT(p.AfterRound(0, 0.5).count(), 0);
}

TEST(CpuPacerTest, WaitIsCappedAndTheExcessDebtForgiven) {
  CpuPacer p(0.01, 0, 30);
  // 10 s of CPU in one round would mean 1000 s of silence at 1 %.
  EXPECT_NEAR(Seconds(p.AfterRound(1, 10.0)), 30.0, 1e-6);
  // After the 30 s wait, a cheap round goes at once.
  EXPECT_EQ(p.AfterRound(30.0 + 1e-9, 0).count(), 0);
  // Expensive rounds in a row: each waits at most the cap.
  for (int i = 0; i < 5; ++i) {
    EXPECT_LE(Seconds(p.AfterRound(0, 5.0)), 30.0 + 1e-6);
  }
}

TEST(PacedGapTest, LongerOfIntervalAndCostOverShare) {
  using std::chrono::seconds;
  // 64 MiB pinned in 20 ms on hardware: the 60 s interval stands.
  EXPECT_EQ(PacedGap(seconds(60), 0.02, 0.0025), seconds(60));
  // 0.8 s under emulation at a quarter of 1 %: 320 s.
  EXPECT_EQ(PacedGap(seconds(60), 0.8, 0.0025), seconds(320));
  EXPECT_EQ(PacedGap(seconds(60), 0.8, 0), seconds(60));
}

}  // namespace
}  // namespace rnic::probe
