// The mount points of --path.sysfs and --path.procfs, checked at start-up:
// a tree that is not there would otherwise start silently, every collector
// reporting success with nothing to read.
#pragma once

#include "collectors/collector_spec.h"
#include "collectors/common/result.h"

namespace rnic {

// "--path.sysfs: <path>: not a directory" (or the stat error).
[[nodiscard]] Status CheckPaths(const Paths& paths);

}  // namespace rnic
