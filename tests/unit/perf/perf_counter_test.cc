// Host integration: the real perf_event_open on this machine's software and
// msr PMUs (present on every x86 Linux host, including VMs).
#include "collectors/perf/perf_counter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "collectors/perf/pmu_catalog.h"

namespace rnic {
namespace {

void Spin() {
  volatile double x = 0;
  for (int i = 0; i < 2000000; ++i) x = x + i;
}

Result<PerfCounter> OpenOnCpu0(const Pmu& pmu, const std::string& event) {
  auto ev = EncodeEvent(pmu, event);
  if (!ev.ok()) return ev.error();
  return PerfCounter::Open(pmu.type, *ev, 0);
}

// perf_event_open refused to this user (perf_event_paranoid, no
// CAP_PERFMON): the host cannot run the test, which is not a failure.
bool Refused(const Result<PerfCounter>& c) {
  return !c.ok() &&
         (c.error().errno_value == EACCES || c.error().errno_value == EPERM);
}

TEST(PerfCounterTest, RealMsrTscCountsUp) {
  auto pmu = LoadPmu("/sys", "msr");
  if (!pmu.ok() || pmu->events.count("tsc") == 0)
    GTEST_SKIP() << "no msr PMU with tsc here";
  auto c = OpenOnCpu0(*pmu, "tsc");
  if (Refused(c)) GTEST_SKIP() << c.error().message;
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto a = c->Read();
  Spin();
  auto b = c->Read();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(*b, *a);
}

TEST(PerfCounterTest, RealSoftwareCpuClock) {
  auto pmu = LoadPmu("/sys", "software");
  ASSERT_TRUE(pmu.ok()) << pmu.error().message;
  auto c = OpenOnCpu0(*pmu, "config=0");  // PERF_COUNT_SW_CPU_CLOCK
  if (Refused(c)) GTEST_SKIP() << c.error().message;
  ASSERT_TRUE(c.ok()) << c.error().message;
  usleep(20000);
  auto v = c->Read();
  ASSERT_TRUE(v.ok());
  EXPECT_GT(*v, 1e6);  // nanoseconds of CPU 0's clock over >= 20 ms
}

TEST(PerfCounterTest, BadEventIsAnErrorNotACrash) {
  EncodedEvent ev;
  ev.config[0] = ~0ULL;
  auto c = PerfCounter::Open(0x7fffffff, ev, 0);  // no such PMU type
  EXPECT_FALSE(c.ok());
}

}  // namespace
}  // namespace rnic
