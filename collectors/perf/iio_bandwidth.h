// PCIe bandwidth per RNIC (the perf collector's rnic_pcie_iio_* families):
// the IIO stacks the host model's RDMA PCI functions sit on, their
// free-running bandwidth counters opened once per stack, and the series.
//
// The mapping follows the host model: when its generation changes (a device
// hot-added, removed or renamed), the die files are read again, a newly used
// stack is opened, a stack no device uses any more is closed, and the labels
// carry the current names. A stack still in use keeps its open counters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "collectors/common/log_once.h"
#include "collectors/host/host_model.h"
#include "collectors/metrics/label_set.h"
#include "collectors/metrics/metric_set.h"
#include "collectors/perf/iio_mapping.h"
#include "collectors/perf/perf_counter.h"

namespace rnic::perf {

class IioBandwidth {
 public:
  IioBandwidth(std::string sysfs, PerfOpener open, LogOnce& log)
      : sysfs_(std::move(sysfs)), open_(std::move(open)), log_(log) {}

  // Maps again when `snap` is another generation than the last one seen;
  // otherwise costs nothing (no sysfs read).
  void Update(const host::Snapshot& snap);
  // rnic_pcie_iio_stack_info and rnic_pcie_iio_bytes_total. A stack whose
  // counters fail to read is left out (logged once), never the scrape.
  void Collect(MetricSet& out);

  // Stacks with counters open (tests, diagnostics).
  [[nodiscard]] std::size_t open_stacks() const { return stacks_.size(); }

 private:
  struct Counter {
    PerfCounter counter;
    double bytes_per_count;
    bool in;
  };
  struct OpenStack {
    int index = 0;
    int die = 0;
    std::vector<Counter> counters;
    std::string reporter;               // device the bytes are labelled with
    LabelSetPtr in_labels, out_labels;  // device, direction
    std::string key;                    // log key: iio/<pmu>/<die>
  };
  [[nodiscard]] bool Open(const IioStack& stack, const std::string& reporter,
                          OpenStack& into);
  static void Label(OpenStack& s, const std::string& reporter);

  std::string sysfs_;
  PerfOpener open_;
  LogOnce& log_;
  std::uint64_t generation_ = 0;  // of the snapshot last mapped; 0: none
  std::vector<OpenStack> stacks_;
  std::vector<LabelSetPtr> info_;
};

}  // namespace rnic::perf
