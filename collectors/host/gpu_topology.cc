#include "collectors/host/gpu_topology.h"

#include <algorithm>
#include <set>

namespace rnic::gpu {

std::vector<Gpu> FindGpus(const std::vector<PciFunction>& fns) {
  std::vector<Gpu> gpus;
  std::map<GpuVendor, int> next;
  for (const PciFunction& f : fns) {
    const GpuVendor v = GpuVendorOf(f);
    if (v == GpuVendor::kNone) continue;
    std::optional<int> index;
    if (v != GpuVendor::kNvidia || f.driver == "nvidia") index = next[v]++;
    gpus.push_back(Gpu{f, v, index, NvmlBusId(f.address)});
  }
  return gpus;
}

Result<std::vector<std::string>> ParseRailOrder(std::string_view text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::set<std::string, std::less<>> seen;
  while (true) {
    const auto comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    if (name.empty()) return Error{"empty RDMA device name in the rail order"};
    if (!seen.insert(std::string(name)).second) {
      return Error{"RDMA device " + std::string(name) +
                   " named twice in the rail order"};
    }
    out.emplace_back(name);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::map<std::string, std::string> AssignRails(
    const std::vector<RdmaFunction>& nics,
    const std::vector<std::string>& order) {
  std::map<std::string, std::string> rails;
  if (!order.empty()) {
    for (std::size_t i = 0; i < order.size(); ++i) {
      rails[order[i]] = std::to_string(i);
    }
    return rails;
  }
  std::vector<const RdmaFunction*> pfs;
  for (const RdmaFunction& n : nics) {
    if (!n.vf) pfs.push_back(&n);
  }
  std::sort(pfs.begin(), pfs.end(), [](const auto* a, const auto* b) {
    if (a->address != b->address) {
      return PciAddressLess(a->address, b->address);
    }
    return a->device < b->device;
  });
  for (std::size_t i = 0; i < pfs.size(); ++i) {
    rails[pfs[i]->device] = std::to_string(i);
  }
  return rails;
}

Topology BuildTopology(const std::vector<PciFunction>& fns,
                       const std::vector<RdmaFunction>& nics,
                       const std::vector<std::string>& order) {
  Topology t;
  t.gpus = FindGpus(fns);
  t.rails = AssignRails(nics, order);
  std::vector<RdmaFunction> sorted = nics;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& a, const auto& b) { return a.device < b.device; });
  for (const RdmaFunction& n : sorted) {
    const auto it = std::find_if(
        fns.begin(), fns.end(),
        [&](const PciFunction& f) { return f.address == n.address; });
    if (it == fns.end()) continue;
    t.nics.emplace_back(n.device, *it);
    for (std::size_t g = 0; g < t.gpus.size(); ++g) {
      t.pairs.push_back(Pair{n.device, g, Relate(*it, t.gpus[g].fn), false});
    }
  }
  // Nearest per GPU.
  for (std::size_t g = 0; g < t.gpus.size(); ++g) {
    std::optional<Relation> best;
    for (const Pair& p : t.pairs) {
      if (p.gpu == g && (!best || p.relation < *best)) best = p.relation;
    }
    for (Pair& p : t.pairs) {
      if (p.gpu == g && best && p.relation == *best) p.nearest = true;
    }
  }
  return t;
}

const Gpu* Topology::NearestGpu(std::string_view device) const {
  const Pair* best = nullptr;
  for (const Pair& p : pairs) {
    if (p.device != device) continue;
    if (!best || p.relation < best->relation) best = &p;
  }
  return best ? &gpus[best->gpu] : nullptr;
}

}  // namespace rnic::gpu
