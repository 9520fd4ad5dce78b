// Shared by the fuzz targets: the code under test logs every refusal, which
// would flood the fuzzer's output and slow it down tenfold.
#pragma once

#include <spdlog/spdlog.h>

namespace rnic::fuzz {

inline void Quiet() { spdlog::set_level(spdlog::level::off); }

}  // namespace rnic::fuzz
