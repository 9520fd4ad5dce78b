// Test-build fault injection for the probe: a CQ overrun on the probe's own
// device context, which the provider reports as IBV_EVENT_CQ_ERR to that
// context's async-event thread (an overrun on another process's context
// would never reach the probe).
#pragma once

#include "collectors/probe/probe_engine.h"

namespace rnic::test_hooks {

// After every build of a port's probe pair: posts `writes`
// signaled WRITEs into a one-entry CQ nobody polls.
[[nodiscard]] probe::PortBuiltHook CqOverrunHook(int writes);

}  // namespace rnic::test_hooks
