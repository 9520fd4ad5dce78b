#include "collectors/probing/latency_buckets.h"

namespace rnic::probe {

const std::vector<double>& LatencyBuckets() {
  // Literals, so the exposition prints "3e-06" and not a rounding artefact.
  static const std::vector<double> kBuckets = {
      0.5e-6, 0.7e-6, 1e-6,  1.5e-6, 2e-6,  3e-6,   5e-6,   7e-6,   10e-6,
      15e-6,  20e-6,  30e-6, 50e-6,  70e-6, 100e-6, 150e-6, 200e-6, 300e-6,
      500e-6, 700e-6, 1e-3,  1.5e-3, 2e-3,  3e-3,   5e-3,   7e-3,   10e-3,
      15e-3,  20e-3,  30e-3, 50e-3,  70e-3, 100e-3};
  return kBuckets;
}

const std::vector<double>& CoarseLatencyBuckets() {
  static const std::vector<double> kBuckets = {
      1e-6,   2e-6, 5e-6, 10e-6, 20e-6, 50e-6, 100e-6, 200e-6,
      500e-6, 1e-3, 2e-3, 5e-3,  10e-3, 20e-3, 50e-3,  100e-3};
  return kBuckets;
}

}  // namespace rnic::probe
