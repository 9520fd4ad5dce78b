// The collector table of the test build (rnic_exporter_test_hooks): every
// shipped collector, the probe's factory also accepting the test-only key
// `test_cq_overrun` (true or false) in its `probe:` section.
#pragma once

#include <vector>

#include "collectors/collector_spec.h"

namespace rnic::test_hooks {

[[nodiscard]] const std::vector<CollectorSpec>& TestCollectors();

}  // namespace rnic::test_hooks
