// Collector `kmsg` (default enabled): host-wide CQ errors from the kernel
// log (paths.devkmsg, default /dev/kmsg), read from the end of the log at
// start-up by a background thread; see kmsg_reader.h.
#pragma once

#include "collectors/collector_spec.h"

namespace rnic {

[[nodiscard]] CollectorSpec MakeKmsgCollectorSpec();

}  // namespace rnic
