// How a collector reaches the host model. In the exporter all collectors
// share one model, which the runner refreshes once before a scrape's
// collectors start, so they all read one snapshot. A collector built alone
// (unit tests, tools, fuzzers) is given none: it then keeps a model of its
// own and refreshes it at every scrape.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "collectors/host/host_model.h"

namespace rnic::host {

class ModelView {
 public:
  // `own` is used only when `shared` is null.
  ModelView(std::shared_ptr<HostModel> shared, HostModel::Options own)
      : model_(std::move(shared)) {
    if (!model_) {
      model_ = std::make_shared<HostModel>(std::move(own));
      own_ = true;
    }
  }

  // This scrape's snapshot.
  [[nodiscard]] std::shared_ptr<const Snapshot> Get() {
    return own_ ? model_->Refresh() : model_->Current();
  }
  [[nodiscard]] HostModel& model() const { return *model_; }

 private:
  std::shared_ptr<HostModel> model_;
  bool own_ = false;
};

// Per-port state kept across scrapes is pruned, and caches derived from the
// topology are dropped, only when the model changed: Changed() is true once
// per new generation.
class GenerationGate {
 public:
  [[nodiscard]] bool Changed(const Snapshot& snap) {
    if (snap.generation == seen_) return false;
    seen_ = snap.generation;
    return true;
  }

 private:
  std::uint64_t seen_ = 0;
};

}  // namespace rnic::host
