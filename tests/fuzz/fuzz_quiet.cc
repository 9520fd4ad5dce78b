// Linked into every fuzz target: the code under test logs every refusal,
// which would flood the fuzzer's output and slow it down tenfold.
#include <spdlog/spdlog.h>

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}
