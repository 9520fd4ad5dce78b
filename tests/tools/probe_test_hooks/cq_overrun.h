// Test-build fault injection for the probe: an overrun of the probe's own
// side-A CQ. The provider reports it as IBV_EVENT_CQ_ERR on the probe's
// context, and the probe's production path handles it: its async-event
// thread counts the event and the port's pair is rebuilt.
#pragma once

#include "collectors/probe/probe_engine.h"

namespace rnic::test_hooks {

// After a build of a port's probe pair, unless that build was the rebuild
// the hook's own previous overrun caused: a throw-away QP pair that shares
// the probe's CQ posts one signaled WRITE more than the CQ holds. So a case
// sees one overrun at start-up and one after each other rebuild (a link
// flap), never an overrun loop.
[[nodiscard]] probe::PortBuiltHook CqOverrunHook();

}  // namespace rnic::test_hooks
